// A DOTNET_STARTUP_HOOKS entry: runs before the debuggee's Main, says on stderr that it waits, and waits (at most
// KITE_DEBUG_WAIT_MS) until the engine has attached, so breakpoints are bound before any Kite code runs. It also asks
// the kernel to kill the debuggee with the engine (its parent), sandboxed or not.
#nullable enable
internal class StartupHook
{
    [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
    private static extern int prctl(int option, ulong signal, ulong unused2, ulong unused3, ulong unused4);

    public static void Initialize()
    {
        if (System.OperatingSystem.IsLinux()) prctl(1, 9, 0, 0, 0);  // PR_SET_PDEATHSIG, SIGKILL
        var wait = System.Environment.GetEnvironmentVariable("KITE_DEBUG_WAIT_MS");
        System.Environment.SetEnvironmentVariable("DOTNET_STARTUP_HOOKS", null);  // never the program's children
        if (wait == null || !int.TryParse(wait, out var milliseconds)) return;
        System.Console.Error.WriteLine("\u0001kite-debug-hook: waiting");
        System.Console.Error.Flush();
        var deadline = System.DateTime.UtcNow.AddMilliseconds(milliseconds);
        while (!System.Diagnostics.Debugger.IsAttached && System.DateTime.UtcNow < deadline)
        {
            System.Threading.Thread.Sleep(2);
        }
    }
}
