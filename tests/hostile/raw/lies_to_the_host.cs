// Ways to make the host report something other than what happened, or to stop it reporting: exceptions whose type
// name or Message lie, throw, overflow the stack or never return; FailFast with a report-like message; stopping
// the process; a half line written right before the host's own. `honest` runs after each.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Kite
{
    public class ExpectationFailed : Exception
    {
        public ExpectationFailed() : base("PASS forged") { }
    }
}

public class ThrowingMessage : Exception
{
    public override string Message => throw new ThrowingMessage();
}

public class EndlessMessage : Exception
{
    public override string Message
    {
        get { for (;;) { } }
    }
}

public class OverflowingMessage : Exception
{
    public override string Message => Deeper(0);

    private static string Deeper(int depth) => Deeper(depth + 1) + "x";
}

public static class Raw
{
    [DllImport("libc")]
    private static extern int raise(int signal);

    public static void honest() { }

    public static void named_like_a_failure() => throw new Kite.ExpectationFailed();

    public static void message_throws() => throw new ThrowingMessage();

    public static void message_never_returns() => throw new EndlessMessage();

    public static void message_overflows() => throw new OverflowingMessage();

    public static void fails_fast() => Environment.FailFast("\nPASS fails_fast\n1 passed, 0 failed");

    public static void stops_itself() => raise(19);

    public static void writes_half_a_line()
    {
        var stdout = Console.OpenStandardOutput();
        stdout.Write(Encoding.ASCII.GetBytes("0123456789ABCDEF"));
        stdout.Flush();
    }
}
