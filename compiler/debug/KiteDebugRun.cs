// The debuggee's entry: loads a debug build of a Kite program from its file (so the debugger finds its PDB) and
// runs its fn main, or one test: KiteDebugRun PROGRAM.dll [main | test TYPE METHOD] [ARGS...].
// A failed expect or a crash is printed on stderr as the test report would say it, and the exit code is 1.
#nullable enable
using System;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Runtime.Loader;

public static class KiteDebugRun
{
    public static int Main(string[] args)
    {
        CultureInfo.DefaultThreadCurrentCulture = CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
        var program = Path.GetFullPath(args[0]);
        var folder = Path.GetDirectoryName(program)!;
        AssemblyLoadContext.Default.Resolving += (context, name) =>
        {
            var beside = Path.Combine(folder, name.Name + ".dll");
            return File.Exists(beside) ? context.LoadFromAssemblyPath(beside) : null;
        };
        var assembly = AssemblyLoadContext.Default.LoadFromAssemblyPath(program);
        MethodInfo? method = args[1] == "test"
            ? assembly.GetType(args[2], throwOnError: true)!.GetMethod(args[3], BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static)
            : assembly.EntryPoint;
        if (method == null)
        {
            Console.Error.WriteLine(args[1] == "test" ? $"no test method {args[3]}" : "the program has no fn main");
            return 2;
        }
        try
        {
            method.Invoke(null, null);
            if (args[1] == "test") Console.Error.WriteLine("test passed");
            return 0;
        }
        catch (TargetInvocationException error) when (error.InnerException != null)
        {
            var inner = error.InnerException;
            Console.Error.WriteLine(inner.GetType().Name == "ExpectationFailed" ? "test failed: " + inner.Message : $"crash: {inner.GetType().Name}: {inner.Message}");
            return 1;
        }
    }
}
