// Memory no RSS shows and no tmpfs bounds: anonymous files (memfd_create) written full and held open, 20 of them
// at up to 16 MiB each (320 MiB). It ignores SIGXFSZ so that a refused write ends the file, not the process.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

public static class Raw
{
    [DllImport("libc", SetLastError = true)]
    private static extern int memfd_create(string name, uint flags);

    [DllImport("libc", SetLastError = true)]
    private static extern nint write(int descriptor, byte[] buffer, nint length);

    [DllImport("libc")]
    private static extern int close(int descriptor);

    [DllImport("libc")]
    private static extern nint signal(int number, nint handler);

    public static void hoard()
    {
        const int FileTooLarge = 25;
        signal(FileTooLarge, 1); // SIG_IGN
        var block = new byte[1 << 20];
        var held = new List<int>();
        long bytes = 0;
        for (int descriptor; held.Count < 20 && (descriptor = memfd_create("hoard", 0)) >= 0;)
        {
            held.Add(descriptor);
            for (var megabytes = 0; megabytes < 16 && write(descriptor, block, block.Length) == block.Length; megabytes++)
            {
                bytes += block.Length;
            }
        }
        held.ForEach(descriptor => close(descriptor));
        Console.Write(bytes);
    }
}
