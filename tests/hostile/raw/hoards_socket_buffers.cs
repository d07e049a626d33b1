// Memory no RSS shows: kernel buffers of local socket pairs, filled until the descriptors run out (up to 9,000
// pairs, about 2 GB at the default limit of 20,000 descriptors). It gives every descriptor back before it reports,
// so the runtime can still write the result.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

public static class Raw
{
    [DllImport("libc", SetLastError = true)]
    private static extern int socketpair(int domain, int type, int protocol, int[] pair);

    [DllImport("libc", SetLastError = true)]
    private static extern nint send(int socket, byte[] buffer, nint length, int flags);

    [DllImport("libc")]
    private static extern int close(int descriptor);

    public static void hoard()
    {
        const int Local = 1, Stream = 1, NonBlocking = 0x800, DontWait = 0x40;
        var block = new byte[1 << 16];
        var held = new List<int>();
        long bytes = 0;
        var pair = new int[2];
        while (held.Count < 18_000 && socketpair(Local, Stream | NonBlocking, 0, pair) == 0)
        {
            held.AddRange(pair);
            for (nint sent; (sent = send(pair[0], block, block.Length, DontWait)) > 0;)
            {
                bytes += sent;
            }
        }
        held.ForEach(descriptor => close(descriptor));
        Console.Write(bytes);
    }
}
