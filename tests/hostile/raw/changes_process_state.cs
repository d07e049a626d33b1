// Answer A of the issue: a culture, an AppContext switch and a static changed, and a timer filling the heap,
// all meant to outlive A and break the answer graded after it.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Threading;

public static class Raw
{
    private static readonly List<byte[]> hoard = new List<byte[]>();
    private static Timer? filler;

    public static void change()
    {
        var german = new CultureInfo("de-DE");
        CultureInfo.DefaultThreadCurrentCulture = german;
        CultureInfo.CurrentCulture = german;
        AppContext.SetSwitch("System.Globalization.UseNls", true);
        filler = new Timer(_ => { lock (hoard) { hoard.Add(new byte[16 << 20]); } }, null, 0, 5);
    }
}
