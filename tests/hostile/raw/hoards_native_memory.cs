// Memory outside the managed heap: native blocks, every page written so it is resident. DOTNET_GCHeapHardLimit does
// not count it; only the RSS watchdog can stop it. Stopped, it is a crash; not stopped, it holds the memory a while
// (longer than a watchdog poll) and returns: a pass.
public static class Raw
{
    public static void hoard()
    {
        const int block = 16 << 20;
        for (int taken = 0; taken < 64; taken++)  // 1 GiB
        {
            System.IntPtr memory = System.Runtime.InteropServices.Marshal.AllocHGlobal(block);
            for (int offset = 0; offset < block; offset += 4096)
                System.Runtime.InteropServices.Marshal.WriteByte(memory, offset, 1);
        }
        System.Threading.Thread.Sleep(1000);
    }
}
