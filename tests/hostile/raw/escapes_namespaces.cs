// Ways out of the sandbox that need no file: a user namespace of its own (to regain capabilities), and the
// network (a listener the test opens on the host's loopback, at port PORT).
using System;
using System.Runtime.InteropServices;

public static class Raw
{
    [DllImport("libc", SetLastError = true)]
    private static extern int unshare(int flags);

    public static void nests()
    {
        const int NewUserNamespace = 0x10000000;
        if (unshare(NewUserNamespace) == 0)
        {
            throw new InvalidOperationException("made a user namespace of its own");
        }
    }

    public static void connects()
    {
        using var client = new System.Net.Sockets.TcpClient();
        client.Connect("127.0.0.1", PORT);
    }
}
