// What leaves_process.cs starts: it would live for a minute if nothing ended it.
public static class Sleeper
{
    public static void Main(string[] args) => System.Threading.Thread.Sleep(60_000);
}
