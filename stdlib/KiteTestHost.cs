// The process that runs ONE answer's tests, supervised by `kite test` (compiler/testing/worker.py).
// Started ahead of time and idle until the answer arrives on stdin, as lines: a fresh key (hex) for this process;
// the output and message caps; the number of tests; each test's type and method; the answer's assembly (base64).
// Results go out on stdout, one JSON line per event, each signed with HMAC-SHA256 under that key. The answer's own
// output never reaches stdout (Console is redirected to a capped buffer per test); anything else that writes there
// breaks a signature, and the supervisor then fails the answer. The key and the channel live in local variables
// of Main only, so no field, static or reflection over this type leads to them.
extern alias kite__std;
#nullable enable
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Runtime.Loader;
using System.Text;
using Microsoft.Win32.SafeHandles;

public static class KiteTestHost
{
    public static int Main(string[] args)
    {
        LoadStdlib();
        System.Globalization.CultureInfo.DefaultThreadCurrentCulture = System.Globalization.CultureInfo.InvariantCulture;
        System.Globalization.CultureInfo.CurrentCulture = System.Globalization.CultureInfo.InvariantCulture;

        // The descriptors themselves, not Console's streams: Console's start (terminal, signals, encodings) was a tenth
        // of a host's CPU. Console is still redirected below, so the answer's own output is captured as before.
        var channel = new FileStream(new SafeFileHandle(1, ownsHandle: false), FileAccess.Write, 0);
        channel.Write(Encoding.ASCII.GetBytes("ready\n")); // booted: from here on the answer's own time counts
        channel.Flush();
        var input = new FileStream(new SafeFileHandle(0, ownsHandle: false), FileAccess.Read, 0);
        var key = ReadKey(input);
        var lines = ReadLines(input);
        var limits = lines[0].Split(' ');
        var outputLimit = int.Parse(limits[0]);
        var messageLimit = int.Parse(limits[1]);
        var tests = new List<string[]>();
        for (var count = int.Parse(lines[1]); tests.Count < count;)
        {
            tests.Add(lines[2 + tests.Count].Split(' '));
        }
        var image = Convert.FromBase64String(lines[2 + tests.Count]);
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
            var line = new byte[2 * HmacSha256.SizeInBytes + 1 + payload.Length + 1];
            Span<byte> signature = stackalloc byte[HmacSha256.SizeInBytes];
            HmacSha256.Sign(key, payload, signature);
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
            Wipe(signature);
            Wipe(line);
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
        Wipe(hex);
        return key;
    }

    private const int KeyBytes = 32;

    // The rest of the request, to the end of stdin (the supervisor closes it), as lines: bytes split by hand, an ASCII
    // line widened by hand, since a StreamReader's or UTF-8 decoder's first use cost ~2 ms CPU in every host.
    private static List<string> ReadLines(Stream input)
    {
        var buffer = new byte[1 << 16];
        var length = 0;
        for (int read; (read = input.Read(buffer, length, buffer.Length - length)) > 0;)
        {
            length += read;
            if (length == buffer.Length)
            {
                Array.Resize(ref buffer, 2 * buffer.Length);
            }
        }
        var lines = new List<string>();
        for (var start = 0; start < length;)
        {
            var end = Array.IndexOf(buffer, (byte)'\n', start, length - start);
            end = end < 0 ? length : end;
            lines.Add(Line(buffer, start, end - start));
            start = end + 1;
        }
        return lines;
    }

    private static string Line(byte[] bytes, int start, int count)
    {
        var characters = new char[count];
        for (var at = 0; at < count; at++)
        {
            if (bytes[start + at] >= 0x80)
            {
                return Encoding.UTF8.GetString(bytes, start, count);
            }
            characters[at] = (char)bytes[start + at];
        }
        return new string(characters);
    }

    // CryptographicOperations.ZeroMemory's own body: that class would load System.Security.Cryptography in every host.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining | System.Runtime.CompilerServices.MethodImplOptions.NoOptimization)]
    private static void Wipe(Span<byte> secret) => secret.Clear();

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
        AssemblyLoadContext.Default.LoadFromAssemblyPath(stdlibPath);
        // While idle, before the answer arrives: compile what every answer's tests and report use, so that the time
        // is spent beside the previous answer rather than on this one's clock. The types are named at compile time, not
        // looked up by Assembly.GetType (FindType says why).
        var runtime = typeof(kite__std::Kite.Runtime);
        runtime.GetMethod("ExpectEqual")!.MakeGenericMethod(typeof(int)).Invoke(null, new object[] { 1, 1, "" });
        runtime.GetMethod("ExpectEqual")!.MakeGenericMethod(typeof(string)).Invoke(null, new object[] { "a", "a", "" });
        Span<byte> signature = stackalloc byte[HmacSha256.SizeInBytes];
        HmacSha256.Sign(new byte[KeyBytes], Encoding.UTF8.GetBytes(Json("warm")), signature);
    }

    // HMAC-SHA256 (RFC 2104 over FIPS 180-4) in managed code: .NET's own goes through OpenSSL, whose loading and
    // start-up was a tenth of a test host's CPU, paid once per answer (benchmarks/score.py --breakdown). It keeps
    // nothing: every key-derived block lives on the stack and is wiped before it returns.
    private static class HmacSha256
    {
        public const int SizeInBytes = 32;
        private const int BlockBytes = 64;

        private static readonly uint[] RoundConstants =
        {
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
            0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
            0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
            0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
            0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
            0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
        };

        public static void Sign(byte[] key, ReadOnlySpan<byte> message, Span<byte> signature)
        {
            if (key.Length > BlockBytes)
            {
                throw new ArgumentException("an HMAC key longer than a block is hashed first; kite's never is");
            }
            Span<byte> padded = stackalloc byte[BlockBytes];
            Span<byte> inner = stackalloc byte[SizeInBytes];
            Pad(key, 0x36, padded);
            Hash(padded, message, inner);
            Pad(key, 0x5c, padded);
            Hash(padded, inner, signature);
            Wipe(padded);
            Wipe(inner);
        }

        private static void Pad(byte[] key, byte with, Span<byte> padded)
        {
            for (var at = 0; at < padded.Length; at++)
            {
                padded[at] = (byte)(with ^ (at < key.Length ? key[at] : 0));
            }
        }

        // SHA-256 of `first` (one block) followed by `rest`.
        private static void Hash(ReadOnlySpan<byte> first, ReadOnlySpan<byte> rest, Span<byte> digest)
        {
            Span<uint> state = stackalloc uint[] { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
            Span<uint> schedule = stackalloc uint[64];
            Span<byte> tail = stackalloc byte[2 * BlockBytes];
            Compress(state, first, schedule);
            var whole = rest.Length - rest.Length % BlockBytes;
            for (var at = 0; at < whole; at += BlockBytes)
            {
                Compress(state, rest.Slice(at, BlockBytes), schedule);
            }
            tail.Clear();
            rest.Slice(whole).CopyTo(tail);
            tail[rest.Length - whole] = 0x80;
            var tailBytes = rest.Length - whole + 9 <= BlockBytes ? BlockBytes : 2 * BlockBytes;
            System.Buffers.Binary.BinaryPrimitives.WriteUInt64BigEndian(tail.Slice(tailBytes - 8), (ulong)(first.Length + rest.Length) * 8);
            for (var at = 0; at < tailBytes; at += BlockBytes)
            {
                Compress(state, tail.Slice(at, BlockBytes), schedule);
            }
            for (var word = 0; word < state.Length; word++)
            {
                System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(digest.Slice(4 * word), state[word]);
            }
            Wipe(System.Runtime.InteropServices.MemoryMarshal.AsBytes(state));
            Wipe(System.Runtime.InteropServices.MemoryMarshal.AsBytes(schedule));
            Wipe(tail);
        }

        private static void Compress(Span<uint> state, ReadOnlySpan<byte> block, Span<uint> schedule)
        {
            for (var word = 0; word < 16; word++)
            {
                schedule[word] = System.Buffers.Binary.BinaryPrimitives.ReadUInt32BigEndian(block.Slice(4 * word));
            }
            for (var word = 16; word < 64; word++)
            {
                uint before = schedule[word - 15], twoBefore = schedule[word - 2];
                var sigma0 = Rotate(before, 7) ^ Rotate(before, 18) ^ (before >> 3);
                var sigma1 = Rotate(twoBefore, 17) ^ Rotate(twoBefore, 19) ^ (twoBefore >> 10);
                schedule[word] = schedule[word - 16] + sigma0 + schedule[word - 7] + sigma1;
            }
            uint a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
            for (var round = 0; round < 64; round++)
            {
                var t1 = h + (Rotate(e, 6) ^ Rotate(e, 11) ^ Rotate(e, 25)) + ((e & f) ^ (~e & g)) + RoundConstants[round] + schedule[round];
                var t2 = (Rotate(a, 2) ^ Rotate(a, 13) ^ Rotate(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
                h = g;
                g = f;
                f = e;
                e = d + t1;
                d = c;
                c = b;
                b = a;
                a = t1 + t2;
            }
            state[0] += a;
            state[1] += b;
            state[2] += c;
            state[3] += d;
            state[4] += e;
            state[5] += f;
            state[6] += g;
            state[7] += h;
        }

        private static uint Rotate(uint value, int by) => System.Numerics.BitOperations.RotateRight(value, by);
    }

    private static (string, string) Run(Assembly program, string typeName, string methodName)
    {
        try
        {
            var method = FindType(program, typeName).GetMethod(methodName, BindingFlags.Public | BindingFlags.Static)
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

    // By name over the answer's types, not Assembly.GetType: its type-name parser JIT-compiles vectorized search code
    // in every fresh process, a tenth of an answer's CPU (benchmarks/score.py --breakdown).
    private static Type FindType(Assembly program, string name)
    {
        Type?[] types;
        try
        {
            types = program.GetTypes();
        }
        catch (ReflectionTypeLoadException partly)
        {
            types = partly.Types;
        }
        foreach (var type in types)
        {
            if (type is not null && type.FullName == name)
            {
                return type;
            }
        }
        throw new TypeLoadException($"Could not load type '{name}' from assembly '{program.FullName}'.");
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
