// The process that runs ONE answer's tests, supervised by `kite test` (compiler/testing/worker.py).
// Started ahead of time and idle until the answer arrives on stdin, as lines: a fresh key (hex) for this process;
// the output and message caps; the number of tests; each test's type and method; the answer's assembly (base64).
// Results go out on stdout, one JSON line per event, each signed with HMAC-SHA256 under that key. The answer's own
// output never reaches stdout (Console is redirected to a capped buffer per test); anything else that writes there
// breaks a signature, and the supervisor then fails the answer. The key and the channel live in local variables
// of Main only, so no field, static or reflection over this type leads to them.
#nullable enable
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Runtime.Loader;
using System.Security.Cryptography;
using System.Text;

public static class KiteTestHost
{
    public static int Main(string[] args)
    {
        LoadStdlib();
        System.Globalization.CultureInfo.DefaultThreadCurrentCulture = System.Globalization.CultureInfo.InvariantCulture;
        System.Globalization.CultureInfo.CurrentCulture = System.Globalization.CultureInfo.InvariantCulture;

        var channel = Console.OpenStandardOutput();
        channel.Write(Encoding.ASCII.GetBytes("ready\n")); // booted: from here on the answer's own time counts
        channel.Flush();
        var input = Console.OpenStandardInput();
        var key = ReadKey(input);
        var requests = new StreamReader(input, new UTF8Encoding(false));
        var limits = (requests.ReadLine() ?? "").Split(' ');
        var outputLimit = int.Parse(limits[0]);
        var messageLimit = int.Parse(limits[1]);
        var tests = new List<string[]>();
        for (var count = int.Parse(requests.ReadLine() ?? "0"); tests.Count < count;)
        {
            tests.Add((requests.ReadLine() ?? "").Split(' '));
        }
        var image = Convert.FromBase64String(requests.ReadLine() ?? "");
        requests.Dispose();
        Console.SetIn(TextReader.Null);
        var capture = new CappedWriter(outputLimit);
        Console.SetOut(capture);
        Console.SetError(capture);

        var sequence = 0;
        // The signature is never a string and its line is wiped once written: a signed line left in memory would let
        // code that reads this process's memory test which bytes are the key.
        void Send(string fields)
        {
            var payload = Encoding.UTF8.GetBytes("{\"sequence\":" + sequence++ + "," + fields + "}");
            var line = new byte[2 * HMACSHA256.HashSizeInBytes + 1 + payload.Length + 1];
            Span<byte> signature = stackalloc byte[HMACSHA256.HashSizeInBytes];
            HMACSHA256.HashData(key, payload, signature);
            for (var at = 0; at < signature.Length; at++)
            {
                line[2 * at] = (byte)"0123456789ABCDEF"[signature[at] >> 4];
                line[2 * at + 1] = (byte)"0123456789ABCDEF"[signature[at] & 15];
            }
            line[2 * signature.Length] = (byte)' ';
            payload.CopyTo(line, 2 * signature.Length + 1);
            line[^1] = (byte)'\n';
            channel.Write(line, 0, line.Length);
            channel.Flush();
            CryptographicOperations.ZeroMemory(signature);
            CryptographicOperations.ZeroMemory(line);
        }

        Assembly program;
        try
        {
            program = AssemblyLoadContext.Default.LoadFromStream(new MemoryStream(image));
        }
        catch (Exception error)
        {
            Send("\"event\":\"unloadable\",\"message\":" + Json(Cap(error.GetType().Name + ": " + error.Message, messageLimit)));
            return 1;
        }
        Send("\"event\":\"loaded\"");
        for (var index = 0; index < tests.Count; index++)
        {
            capture.Reset();
            var (status, message) = Run(program, tests[index][0], tests[index][1]);
            Send("\"event\":\"result\",\"index\":" + index + ",\"status\":\"" + status + "\",\"message\":" + Json(Cap(message, messageLimit))
                + ",\"output\":" + Json(capture.ToString()) + ",\"truncated\":" + (capture.Truncated ? "true" : "false"));
        }
        return 0;
    }

    // The key's line (hex and a newline), read straight from stdin: never a string, never in a reader's buffer, and
    // wiped, so the only copy in memory is the key itself (a string would outlive this method on the heap).
    private static byte[] ReadKey(Stream input)
    {
        Span<byte> hex = stackalloc byte[2 * KeyBytes + 1];
        input.ReadExactly(hex);
        var key = new byte[KeyBytes];
        for (var at = 0; at < key.Length; at++)
        {
            key[at] = (byte)(Nibble(hex[2 * at]) << 4 | Nibble(hex[2 * at + 1]));
        }
        CryptographicOperations.ZeroMemory(hex);
        return key;
    }

    private const int KeyBytes = 32;

    private static int Nibble(byte digit) => digit switch
    {
        >= (byte)'0' and <= (byte)'9' => digit - '0',
        >= (byte)'a' and <= (byte)'f' => digit - 'a' + 10,
        _ => throw new FormatException("the key is not lowercase hex"),
    };

    // Its own method, so the lambda's closure cannot share a class (and so fields) with Main's key and channel.
    private static void LoadStdlib()
    {
        var stdlibPath = Path.Combine(AppContext.BaseDirectory, "Kite.Std.dll");
        AssemblyLoadContext.Default.Resolving += (loader, name) => name.Name == "Kite.Std" ? loader.LoadFromAssemblyPath(stdlibPath) : null;
        var stdlib = AssemblyLoadContext.Default.LoadFromAssemblyPath(stdlibPath);
        // While idle, before the answer arrives: compile what every answer's tests and report use, so that the time
        // is spent beside the previous answer rather than on this one's clock.
        var runtime = stdlib.GetType("Kite.Runtime", throwOnError: true)!;
        runtime.GetMethod("ExpectEqual")!.MakeGenericMethod(typeof(int)).Invoke(null, new object[] { 1, 1, "" });
        runtime.GetMethod("ExpectEqual")!.MakeGenericMethod(typeof(string)).Invoke(null, new object[] { "a", "a", "" });
        stdlib.GetType("Kite.Std", throwOnError: true)!.GetMethod("to_str")!.Invoke(null, new object?[] { 1 });
        HMACSHA256.HashData(new byte[32], Encoding.UTF8.GetBytes(Json("warm")));
    }

    private static (string, string) Run(Assembly program, string typeName, string methodName)
    {
        try
        {
            var method = program.GetType(typeName, throwOnError: true)!.GetMethod(methodName, BindingFlags.Public | BindingFlags.Static)
                ?? throw new MissingMethodException(typeName, methodName);
            method.Invoke(null, null);
            return ("pass", "");
        }
        catch (TargetInvocationException invocation) when (invocation.InnerException is not null)
        {
            var error = invocation.InnerException;
            return error.GetType().FullName == "Kite.ExpectationFailed"
                ? ("fail", error.Message)
                : ("crash", error.GetType().Name + ": " + error.Message);
        }
        catch (Exception other)
        {
            return ("crash", other.GetType().Name + ": " + other.Message);
        }
    }

    // A JSON string in plain ASCII: every character past it, and every control, as \uXXXX (lone surrogates too).
    private static string Json(string text)
    {
        var json = new StringBuilder(text.Length + 2).Append('"');
        foreach (var character in text)
        {
            if (character == '"' || character == '\\')
            {
                json.Append('\\').Append(character);
            }
            else if (character < 0x20 || character >= 0x7f)
            {
                json.Append("\\u").Append(((int)character).ToString("x4", System.Globalization.CultureInfo.InvariantCulture));
            }
            else
            {
                json.Append(character);
            }
        }
        return json.Append('"').ToString();
    }

    // A message is capped like output: an answer cannot make the report as large as it likes.
    private static string Cap(string message, int limit) =>
        message.Length <= limit ? message : message.Substring(0, limit) + " [message cut at " + limit + " characters]";

    private sealed class CappedWriter : StringWriter
    {
        private readonly int limit;

        public CappedWriter(int limit) => this.limit = limit;

        public bool Truncated { get; private set; }

        public void Reset()
        {
            GetStringBuilder().Clear();
            Truncated = false;
        }

        public override void Write(char value)
        {
            if (GetStringBuilder().Length < limit)
            {
                base.Write(value);
            }
            else
            {
                Truncated = true;
            }
        }

        public override void Write(string? value)
        {
            if (value is null)
            {
                return;
            }
            var room = limit - GetStringBuilder().Length;
            if (value.Length > room)
            {
                Truncated = true;
                value = value.Substring(0, Math.Max(room, 0));
            }
            base.Write(value);
        }

        public override void Write(char[] buffer, int index, int count) => Write(new string(buffer, index, count));
    }
}
