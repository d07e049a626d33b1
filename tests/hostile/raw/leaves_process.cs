// A process started by the answer and left running: a .NET program it writes to /tmp and starts detached.
using System;
using System.Diagnostics;
using System.IO;

public static class Raw
{
    public static void spawn()
    {
        File.WriteAllBytes("/tmp/sleeper.dll", Convert.FromBase64String(SleeperImage));
        File.WriteAllText("/tmp/sleeper.runtimeconfig.json", RuntimeConfig);
        var started = new ProcessStartInfo(Environment.ProcessPath!, "/tmp/sleeper.dll " + Marker) { UseShellExecute = false };
        Process.Start(started);
        System.Threading.Thread.Sleep(500); // the child is up before the test returns
    }

    private const string Marker = "MARKER";
    private const string RuntimeConfig = @"RUNTIMECONFIG";
    private const string SleeperImage = "SLEEPER";
}
