// Links planted where the old supervisor kept its files (the working folder), pointing at root's files and at
// the host's /tmp; then a write through each.
using System;
using System.IO;

public static class Raw
{
    public static void plant()
    {
        File.CreateSymbolicLink("worker.stderr", "/etc/shadow");
        File.CreateSymbolicLink("dangling", "/nonexistent/target");
        Directory.CreateSymbolicLink("root", "/");
        foreach (var path in new[] { "worker.stderr", "dangling", "root/tmp/MARKER" })
        {
            try { File.WriteAllText(path, "written by the answer"); } catch (Exception) { }
        }
        Console.Error.WriteLine("a line on stderr");
    }
}
