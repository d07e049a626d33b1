// A DOTNET_STARTUP_HOOKS entry: runs before the debuggee's Main, says on stderr that it waits, and waits (at most
// KITE_DEBUG_WAIT_MS) until the engine has attached, so breakpoints are bound before any Kite code runs.
#nullable enable
internal class StartupHook
{
    public static void Initialize()
    {
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
