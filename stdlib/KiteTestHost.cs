// The worker that runs a Kite program's tests, supervised by `kite test` (compiler/testing/worker.py).
// One request per line on stdin (JSON); one result per line on the results channel, a file descriptor
// the program under test cannot name, each line opened by a secret the program never sees.
#nullable enable
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Runtime.Loader;
using System.Text;
using System.Text.Json;
using Microsoft.Win32.SafeHandles;

public static class KiteTestHost
{
    private const int OutputLimit = 64 * 1024;

    public static int Main(string[] args)
    {
        var secret = Environment.GetEnvironmentVariable("KITE_HOST_SECRET") ?? "";
        Environment.SetEnvironmentVariable("KITE_HOST_SECRET", null);
        var channel = new StreamWriter(new FileStream(new SafeFileHandle((IntPtr)int.Parse(args[0]), true), FileAccess.Write), new UTF8Encoding(false)) { AutoFlush = true };
        var requests = Console.In;
        Console.SetIn(TextReader.Null);
        System.Globalization.CultureInfo.DefaultThreadCurrentCulture = System.Globalization.CultureInfo.InvariantCulture;
        System.Globalization.CultureInfo.CurrentCulture = System.Globalization.CultureInfo.InvariantCulture;
        AssemblyLoadContext? context = null;
        string? loadedPath = null;
        Assembly? program = null;
        string? line;
        while ((line = requests.ReadLine()) != null)
        {
            var request = JsonDocument.Parse(line).RootElement;
            var assemblyPath = request.GetProperty("assembly").GetString()!;
            var stdlibPath = request.GetProperty("stdlib").GetString()!;
            if (assemblyPath != loadedPath)
            {
                // A new answer: drop the previous one so a long-lived worker does not grow.
                if (context is not null)
                {
                    context.Unload();
                    context = null;
                    program = null;
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                    GC.Collect();
                }
                context = new AssemblyLoadContext("answer", isCollectible: true);
                context.Resolving += (loader, name) => name.Name == "KiteStd" ? loader.LoadFromAssemblyPath(stdlibPath) : null;
                program = context.LoadFromAssemblyPath(assemblyPath);
                loadedPath = assemblyPath;
            }
            Directory.SetCurrentDirectory(request.GetProperty("workdir").GetString()!);
            var result = Run(program!, request.GetProperty("type").GetString()!, request.GetProperty("method").GetString()!);
            channel.WriteLine(secret + " " + JsonSerializer.Serialize(result));
        }
        return 0;
    }

    private static Dictionary<string, object> Run(Assembly program, string typeName, string methodName)
    {
        var output = new CappedWriter(OutputLimit);
        var originalOut = Console.Out;
        var originalError = Console.Error;
        Console.SetOut(output);
        Console.SetError(output);
        string status;
        string message = "";
        try
        {
            var method = program.GetType(typeName, throwOnError: true)!.GetMethod(methodName, BindingFlags.Public | BindingFlags.Static)
                ?? throw new MissingMethodException(typeName, methodName);
            method.Invoke(null, null);
            status = "pass";
        }
        catch (TargetInvocationException invocation) when (invocation.InnerException is not null)
        {
            (status, message) = Describe(invocation.InnerException);
        }
        catch (Exception other)
        {
            (status, message) = ("crash", other.GetType().Name + ": " + other.Message);
        }
        finally
        {
            Console.SetOut(originalOut);
            Console.SetError(originalError);
        }
        return new Dictionary<string, object>
        {
            ["status"] = status,
            ["message"] = message,
            ["output"] = output.ToString(),
            ["truncated"] = output.Truncated,
        };
    }

    private static (string, string) Describe(Exception error) =>
        error.GetType().FullName == "Kite.ExpectationFailed"
            ? ("fail", error.Message)
            : ("crash", error.GetType().Name + ": " + error.Message);

    private sealed class CappedWriter : StringWriter
    {
        private readonly int limit;

        public CappedWriter(int limit) => this.limit = limit;

        public bool Truncated { get; private set; }

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
