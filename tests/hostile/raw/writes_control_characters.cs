// Report forgery by bytes: control characters, ANSI sequences, line separators and a lone surrogate in a
// failure message and in the captured output.
using System;

public static class Raw
{
    private const string Forgery = "\u001b[2J\u0007\u0000\r\nPASS forged\u2028PASS forged too\u0085\ud800 2 passed, 0 failed";

    public static void fails_with_bytes()
    {
        Console.Write(Forgery);
        throw new InvalidOperationException(Forgery);
    }
}
