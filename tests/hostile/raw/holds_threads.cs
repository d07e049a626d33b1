// A thread bomb that stays just under its own process limit and holds on: when the limit is counted per user and
// every sandbox shares one user, every other answer graded meanwhile on the machine cannot start a thread. `counts`
// starts threads until the process limit refuses one.
using System;
using System.Threading;

public static class Raw
{
    public static void hold()
    {
        for (var started = 0; started < 240; started++)
        {
            new Thread(() => Thread.Sleep(Timeout.Infinite), 64 * 1024) { IsBackground = true }.Start();
        }
        Thread.Sleep(4000);
    }

    public static void counts()
    {
        var started = 0;
        try
        {
            for (; started < 2000; started++)
            {
                new Thread(() => Thread.Sleep(Timeout.Infinite), 64 * 1024) { IsBackground = true }.Start();
            }
        }
        catch (Exception) { }
        Console.WriteLine(started);
    }

    public static void needs_threads()
    {
        var worker = new Thread(() => { });
        worker.Start();
        worker.Join();
    }
}
