// kite's debug engine: the runtime's own ICorDebug (libmscordbi.so, shipped with every .NET runtime), driven
// without dbgshim. It starts the debuggee (KiteDebugRun.dll, held by the KiteDebugHook startup hook until the
// engine has attached), binds breakpoints at IL offsets, reads frames and values, steps and stops on exceptions.
// It decides nothing about Kite lines or names: kite.debug (Python) owns that, over one JSON line per request
// and event on stdin/stdout (docs/debugger.md, "The engine").
//
//   KiteDebugEngine symbols DLL PDB   the PDB and metadata as JSON (kite.debug.mapping reads it)
//   KiteDebugEngine serve             requests on stdin, replies and events on stdout (symbols too)
#nullable enable
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json.Nodes;
using System.Threading;

namespace Kite.Debugging
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length == 3 && args[0] == "symbols")
            {
                Console.Out.Write(Symbols.Read(args[1], args[2]).ToJsonString());
                return 0;
            }
            if (args.Length == 1 && args[0] == "serve")
            {
                return new Engine().Serve();
            }
            Console.Error.WriteLine("usage: KiteDebugEngine symbols DLL PDB | serve");
            return 2;
        }
    }

    internal sealed unsafe class Engine
    {
        private readonly object gate = new();  // one ICorDebug conversation at a time: requests and callbacks
        private readonly Stream output = Console.OpenStandardOutput();
        private Process? debuggee;
        private string kitePath = "";
        private string stdName = "";  // the standard library's file name: the runtime may load it from the runner's folder
        private IntPtr cordb, process, kiteModule, coreLibModule, stdModule, callback;
        private ulong kiteBase;
        private bool loadedHeld;  // the Kite module's load event, not yet continued: breakpoints bind first
        private IntPtr stoppedThread;
        private bool stopOnException;
        private readonly List<IntPtr> breakpoints = new();
        private readonly Scope stop = new();  // everything read during the current stop
        private readonly List<IntPtr> frames = new();
        private JsonObject kiteTypes = new();  // token -> {name, fields: [[token, kite name]], members: {value: name}}
        private readonly ManualResetEventSlim hookWaiting = new();

        public int Serve()
        {
            string? line;
            while ((line = Console.In.ReadLine()) != null)
            {
                JsonObject request;
                try
                {
                    request = JsonNode.Parse(line)!.AsObject();
                }
                catch (Exception)
                {
                    Send(new JsonObject { ["error"] = "not a JSON request" });
                    continue;
                }
                var id = request["id"]?.GetValue<int>() ?? 0;
                try
                {
                    JsonNode? reply;
                    bool resume = false;
                    if (request["op"]?.GetValue<string>() == "call") reply = Call(request);  // takes the gate itself: it runs the debuggee
                    else lock (gate)
                    {
                        reply = Handle(request["op"]!.GetValue<string>(), request);
                        resume = resumeAfter;
                        resumeAfter = false;
                    }
                    // Continue outside the gate: it may wait for mscordbi's callback thread, which takes the gate
                    if (resume) Com.Check(Com.Call(process, Slot.Continue, 0u), "ICorDebugController::Continue");
                    Send(new JsonObject { ["id"] = id, ["ok"] = reply ?? new JsonObject() });
                }
                catch (Exception error)
                {
                    Send(new JsonObject { ["id"] = id, ["error"] = error.Message });
                }
            }
            Kill();
            return 0;
        }

        private void Send(JsonObject message)
        {
            var bytes = Encoding.UTF8.GetBytes(message.ToJsonString() + "\n");
            lock (output)
            {
                output.Write(bytes);
                output.Flush();
            }
        }

        private void Event(string name, JsonObject body)
        {
            body["event"] = name;
            Send(body);
        }

        private JsonNode? Handle(string op, JsonObject request)
        {
            switch (op)
            {
                case "symbols":  // read from the engine already running: no process of its own on a launch's path
                    return Symbols.Read(request["dll"]!.GetValue<string>(), request["pdb"]!.GetValue<string>());
                case "launch":
                    return Launch(request);
                case "bind":
                    return Bind((JsonArray)request["points"]!);
                case "go":  // configuration done: the Kite module may run
                    if (loadedHeld)
                    {
                        loadedHeld = false;
                        Resume();
                    }
                    return null;
                case "frames":
                    return Frames();
                case "values":
                    return Values(request["frame"]!.GetValue<int>(), (JsonArray)request["args"]!, (JsonArray)request["locals"]!);
                case "children":
                    return Children(request["ref"]!.GetValue<int>());
                case "continue":
                    Resume();
                    return null;
                case "step":
                    Step(request["kind"]!.GetValue<string>(), request["range"] as JsonArray);
                    return null;
                case "pause":
                    return Pause();
                case "threads":
                    return Threads();
                case "held":
                    return new JsonObject { ["references"] = stop.Count, ["breakpoints"] = breakpoints.Count };
                case "kill":
                    Kill();
                    return null;
                default:
                    throw new InvalidOperationException($"unknown request '{op}'");
            }
        }

        // ---- launch and attach

        private JsonNode Launch(JsonObject request)
        {
            if (debuggee != null) throw new InvalidOperationException($"a debuggee is running already (pid {debuggee.Id})");
            kitePath = Path.GetFullPath(request["program"]!.GetValue<string>());
            stdName = request["stdlib"]!.GetValue<string>();
            stopOnException = request["exceptions"]?.GetValue<bool>() ?? true;
            kiteTypes = request["types"] as JsonObject ?? new JsonObject();
            var start = new ProcessStartInfo(request["dotnet"]!.GetValue<string>())
            {
                RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true, UseShellExecute = false,
            };
            start.ArgumentList.Add(request["runner"]!.GetValue<string>());
            start.ArgumentList.Add(kitePath);
            foreach (var word in (JsonArray)request["target"]!) start.ArgumentList.Add(word!.GetValue<string>());
            foreach (var word in (JsonArray?)request["args"] ?? new JsonArray()) start.ArgumentList.Add(word!.GetValue<string>());
            start.Environment["DOTNET_STARTUP_HOOKS"] = request["hook"]!.GetValue<string>();
            start.Environment["KITE_DEBUG_WAIT_MS"] = request["wait_ms"]?.ToString() ?? "30000";
            start.Environment.Remove("DOTNET_EnableDiagnostics");
            var started = Process.Start(start)!;
            debuggee = started;
            started.StandardInput.Close();
            new Thread(() => Pump(started.StandardOutput, "stdout")) { IsBackground = true }.Start();
            new Thread(() => Pump(started.StandardError, "stderr")) { IsBackground = true }.Start();
            if (!hookWaiting.Wait(TimeSpan.FromSeconds(60)) || started.HasExited)
            {
                throw new InvalidOperationException("the debuggee ended before the debugger could attach");
            }
            Attach(started.Id);
            return new JsonObject { ["pid"] = started.Id };
        }

        private const string HookMarker = "\u0001kite-debug-hook: waiting";

        private void Pump(StreamReader reader, string category)
        {
            var buffer = new char[4096];
            var pending = new StringBuilder();
            int n;
            while ((n = reader.Read(buffer, 0, buffer.Length)) > 0)
            {
                pending.Append(buffer, 0, n);
                var text = pending.ToString();
                int cut = text.LastIndexOf('\n') + 1;
                if (cut == 0 && pending.Length < 4096) continue;
                if (cut == 0) cut = text.Length;
                pending.Remove(0, cut);
                var chunk = text[..cut];
                if (category == "stderr" && chunk.Contains(HookMarker))
                {
                    chunk = string.Join("", chunk.Split('\n').Where(l => l != HookMarker).Select(l => l + "\n")).TrimEnd('\n');
                    chunk = chunk.Length > 0 ? chunk + "\n" : "";
                    hookWaiting.Set();
                }
                if (chunk.Length > 0) Event("output", new JsonObject { ["category"] = category, ["output"] = chunk });
            }
            if (pending.Length > 0) Event("output", new JsonObject { ["category"] = category, ["output"] = pending.ToString() });
            if (category == "stdout")
            {
                var ended = debuggee;
                ended?.WaitForExit();
                Event("exited", new JsonObject { ["exitCode"] = ended?.ExitCode ?? -1 });
            }
        }

        private void Attach(int pid)
        {
            ulong coreclr = 0;
            foreach (var line in File.ReadLines($"/proc/{pid}/maps"))
            {
                if (line.EndsWith("/libcoreclr.so", StringComparison.Ordinal))
                {
                    coreclr = Convert.ToUInt64(line.Split('-')[0], 16);
                    break;
                }
            }
            if (coreclr == 0) throw new InvalidOperationException("the debuggee has no libcoreclr.so mapped");
            var runtimeDir = Path.GetDirectoryName(typeof(object).Assembly.Location)!;
            var library = NativeLibrary.Load(Path.Combine(runtimeDir, "libmscordbi.so"));
            // dbgshim loads mscordbi through the PAL, which runs DllMain(PROCESS_ATTACH); dlopen does not, and
            // without it ICorDebug::Initialize hangs.
            var dllMain = (delegate* unmanaged<IntPtr, uint, IntPtr, int>)NativeLibrary.GetExport(library, "DllMain");
            if (dllMain(library, 1, IntPtr.Zero) == 0) throw new InvalidOperationException("mscordbi's DllMain failed");
            var create = (delegate* unmanaged<int, uint, char*, IntPtr, IntPtr*, int>)NativeLibrary.GetExport(library, "CoreCLRCreateCordbObjectEx");
            IntPtr unknown;
            Com.Check(create(4, (uint)pid, null, (IntPtr)(long)coreclr, &unknown), "CoreCLRCreateCordbObjectEx");
            Com.Check(Com.TryQuery(unknown, Iid.ICorDebug, out cordb), "QueryInterface(ICorDebug)");
            Com.Release(unknown);
            Com.Check(Com.Call(cordb, Slot.Initialize), "ICorDebug::Initialize");
            callback = Callbacks.Create(this);
            Com.Check(Com.Call(cordb, Slot.SetManagedHandler, (void*)callback), "ICorDebug::SetManagedHandler");
            IntPtr found;
            Com.Check(((delegate* unmanaged<IntPtr, uint, int, IntPtr*, int>)Com.Vt(cordb)[Slot.DebugActiveProcess])(cordb, (uint)pid, 0, &found),
                "ICorDebug::DebugActiveProcess");
            process = found;
        }

        // ---- callbacks (mscordbi's thread)

        internal void OnLoadModule(IntPtr appDomain, IntPtr module)
        {
            lock (gate)
            {
                var path = ModulePath(module);
                if (path.EndsWith("System.Private.CoreLib.dll", StringComparison.Ordinal) && coreLibModule == IntPtr.Zero)
                {
                    Com.AddRef(module);
                    coreLibModule = module;
                }
                if (Path.GetFileName(path) == stdName && stdModule == IntPtr.Zero)
                {
                    Com.AddRef(module);
                    stdModule = module;
                }
                if (path == kitePath && kiteModule == IntPtr.Zero)
                {
                    Com.AddRef(module);
                    kiteModule = module;
                    ulong b;
                    Com.Call(module, Slot.ModuleGetBaseAddress, &b);
                    kiteBase = b;
                    loadedHeld = true;  // held until "go": breakpoints are bound before any Kite code runs
                    Event("loaded", new JsonObject());
                    return;
                }
            }
            Com.Call(appDomain, Slot.Continue, 0u);
        }

        internal void OnStopped(IntPtr thread, string reason, JsonObject? extra = null)
        {
            lock (gate)
            {
                Com.AddRef(thread);
                stoppedThread = stop.Keep(thread);
                var body = extra ?? new JsonObject();
                body["reason"] = reason;
                body["thread"] = ThreadId(thread);
                body["top"] = Top();
                Event("stopped", body);
            }
        }

        internal bool OnException(IntPtr thread)
        {
            if (!stopOnException) return false;
            lock (gate)
            {
                if (!HasKiteFrame(thread)) return false;
                var (type, message) = CurrentException(thread);
                Com.AddRef(thread);
                stoppedThread = stop.Keep(thread);
                Event("stopped", new JsonObject
                {
                    ["reason"] = "exception", ["thread"] = ThreadId(thread), ["top"] = Top(),
                    ["exception"] = type, ["message"] = message,
                });
                return true;
            }
        }

        internal void OnExit() => Event("ended", new JsonObject());

        // ---- breakpoints

        private JsonNode Bind(JsonArray points)
        {
            if (kiteModule == IntPtr.Zero) throw new InvalidOperationException("the Kite module is not loaded yet");
            foreach (var old in breakpoints)
            {
                Com.Call(old, Slot.BreakpointActivate, 0u);
                Com.Release(old);
            }
            breakpoints.Clear();
            var bound = new JsonArray();
            foreach (var point in points)
            {
                var p = (JsonArray)point!;
                uint token = p[0]!.GetValue<uint>(), offset = p[1]!.GetValue<uint>();
                IntPtr function, code, breakpoint;
                Com.Check(Com.Call(kiteModule, Slot.ModuleGetFunctionFromToken, token, &function), "ICorDebugModule::GetFunctionFromToken");
                int hr = Com.Call(function, Slot.FunctionGetILCode, &code);
                Com.Release(function);
                Com.Check(hr, "ICorDebugFunction::GetILCode");
                hr = Com.Call(code, Slot.CodeCreateBreakpoint, offset, &breakpoint);
                Com.Release(code);
                Com.Check(hr, "ICorDebugCode::CreateBreakpoint");
                Com.Check(Com.Call(breakpoint, Slot.BreakpointActivate, 1u), "ICorDebugBreakpoint::Activate");
                breakpoints.Add(breakpoint);
                bound.Add(new JsonArray(token, offset));
            }
            return new JsonObject { ["bound"] = bound };
        }

        // ---- running

        private void Resume()
        {
            if (process == IntPtr.Zero) throw new InvalidOperationException("no debuggee");
            frames.Clear();
            expandable.Clear();
            referenceOf.Clear();
            nextReference = 0;
            stoppedThread = IntPtr.Zero;
            stop.ReleaseAll();
            resumeAfter = true;
        }

        private bool resumeAfter;  // a request resumed the debuggee: Serve continues it once the gate is released

        private void Step(string kind, JsonArray? range)
        {
            if (stoppedThread == IntPtr.Zero) throw new InvalidOperationException("the debuggee is not stopped");
            IntPtr stepper;
            Com.Check(Com.Call(stoppedThread, Slot.ThreadCreateStepper, &stepper), "ICorDebugThread::CreateStepper");
            try
            {
                Com.Check(Com.Call(stepper, Slot.StepperSetUnmappedStopMask, 0u), "ICorDebugStepper::SetUnmappedStopMask");
                Com.Check(Com.Call(stepper, Slot.StepperSetInterceptMask, 0u), "ICorDebugStepper::SetInterceptMask");
                if (kind == "out")
                {
                    Com.Check(Com.Call(stepper, Slot.StepperStepOut), "ICorDebugStepper::StepOut");
                }
                else if (range != null)
                {
                    uint* ranges = stackalloc uint[2];
                    ranges[0] = range[0]!.GetValue<uint>();
                    ranges[1] = range[1]!.GetValue<uint>();
                    Com.Check(Com.Call(stepper, Slot.StepperStepRange, kind == "in" ? 1 : 0, ranges, 1u), "ICorDebugStepper::StepRange");
                }
                else
                {
                    Com.Check(Com.Call(stepper, Slot.StepperStep, kind == "in" ? 1u : 0u), "ICorDebugStepper::Step");
                }
            }
            finally
            {
                Com.Release(stepper);  // the runtime keeps its own reference while the step is pending
            }
            Resume();
        }

        private JsonNode Pause()
        {
            if (process == IntPtr.Zero) throw new InvalidOperationException("no debuggee");
            if (stoppedThread != IntPtr.Zero) return new JsonObject { ["already"] = true };
            Com.Check(Com.Call(process, Slot.Stop, 5000u), "ICorDebugController::Stop");
            IntPtr chosen = IntPtr.Zero;
            foreach (var thread in EnumerateThreads())
            {
                if (chosen == IntPtr.Zero || HasKiteFrame(thread)) chosen = thread;
                if (HasKiteFrame(thread)) break;
            }
            if (chosen == IntPtr.Zero) throw new InvalidOperationException("the debuggee has no managed thread");
            stoppedThread = chosen;
            Event("stopped", new JsonObject { ["reason"] = "pause", ["thread"] = ThreadId(chosen), ["top"] = Top() });
            return new JsonObject();
        }

        private List<IntPtr> EnumerateThreads()
        {
            var found = new List<IntPtr>();
            var threads = stop.Get(process, Slot.EnumerateThreads, "ICorDebugController::EnumerateThreads");
            while (true)
            {
                IntPtr thread;
                uint fetched;
                if (((delegate* unmanaged<IntPtr, uint, IntPtr*, uint*, int>)Com.Vt(threads)[Slot.ThreadEnumNext])(threads, 1, &thread, &fetched) < 0 || fetched == 0)
                    break;
                found.Add(stop.Keep(thread));
            }
            return found;
        }

        private JsonNode Threads()
        {
            var list = new JsonArray();
            if (stoppedThread != IntPtr.Zero) list.Add(ThreadId(stoppedThread));
            return new JsonObject { ["threads"] = list };
        }

        private void Kill()
        {
            try
            {
                if (debuggee != null && !debuggee.HasExited) debuggee.Kill(entireProcessTree: true);
            }
            catch (InvalidOperationException)
            {
                // it ended on its own meanwhile
            }
        }

        // ---- frames

        private static int ThreadId(IntPtr thread)
        {
            uint id;
            Com.Call(thread, Slot.ThreadGetID, &id);
            return (int)id;
        }

        private string ModulePath(IntPtr module)
        {
            char* name = stackalloc char[2048];
            uint n;
            if (Com.Call(module, Slot.ModuleGetName, 2048u, &n, name) < 0 || n == 0) return "";
            return new string(name, 0, (int)n - 1);
        }

        private bool IsKite(IntPtr module)
        {
            if (module == IntPtr.Zero || kiteBase == 0) return false;
            ulong b;
            return Com.Call(module, Slot.ModuleGetBaseAddress, &b) >= 0 && b == kiteBase;
        }

        // Every frame of the thread, innermost first: [token, IL offset, in the Kite module]; IL frames only
        private List<(IntPtr il, int token, int offset, bool kite)> Walk(IntPtr thread)
        {
            var walked = new List<(IntPtr, int, int, bool)>();
            var frame = stop.GetOrZero(thread, Slot.ThreadGetActiveFrame);
            for (int depth = 0; frame != IntPtr.Zero && depth < 1000; depth++)
            {
                var il = stop.Query(frame, Iid.ILFrame);
                if (il != IntPtr.Zero)
                {
                    uint token, ip, mapping;
                    Com.Call(il, Slot.FrameGetFunctionToken, &token);
                    Com.Call(il, Slot.ILFrameGetIP, &ip, &mapping);
                    var function = stop.GetOrZero(il, Slot.FrameGetFunction);
                    var module = function == IntPtr.Zero ? IntPtr.Zero : stop.GetOrZero(function, Slot.FunctionGetModule);
                    walked.Add((il, (int)token, (int)ip, IsKite(module)));
                }
                else
                {
                    walked.Add((IntPtr.Zero, 0, 0, false));
                }
                frame = stop.GetOrZero(frame, Slot.FrameGetCaller);
            }
            return walked;
        }

        private bool HasKiteFrame(IntPtr thread) => Walk(thread).Any(f => f.kite);

        private JsonNode Top()
        {
            if (stoppedThread == IntPtr.Zero) return new JsonArray();
            var top = Walk(stoppedThread).FirstOrDefault();
            return new JsonArray(top.token, top.offset, top.kite);
        }

        private JsonNode Frames()
        {
            if (stoppedThread == IntPtr.Zero) throw new InvalidOperationException("the debuggee is not stopped");
            frames.Clear();
            var list = new JsonArray();
            foreach (var (il, token, offset, kite) in Walk(stoppedThread))
            {
                frames.Add(il);
                list.Add(new JsonArray(token, offset, kite));
            }
            return new JsonObject { ["frames"] = list };
        }

        // ---- values, spelled as Kite spells them

        private JsonNode Values(int frameIndex, JsonArray args, JsonArray locals)
        {
            if (frameIndex < 0 || frameIndex >= frames.Count || frames[frameIndex] == IntPtr.Zero)
                throw new InvalidOperationException("no such frame: ask for the frames of this stop first");
            var il = frames[frameIndex];
            var result = new JsonArray();
            foreach (var index in args)
            {
                IntPtr value;
                result.Add(Com.Call(il, Slot.ILFrameGetArgument, index!.GetValue<uint>(), &value) >= 0 ? Render(stop.Keep(value), 0) : null);
            }
            foreach (var slot in locals)
            {
                IntPtr value;
                result.Add(Com.Call(il, Slot.ILFrameGetLocalVariable, slot!.GetValue<uint>(), &value) >= 0 ? Render(stop.Keep(value), 0) : null);
            }
            return new JsonObject { ["values"] = result };
        }

        private const int ItemsShown = 100, DepthShown = 3;

        private JsonObject Render(IntPtr value, int depth)
        {
            uint type;
            Com.Call(value, Slot.ValueGetType, &type);
            switch (type)
            {
                case 0x02: return Plain("bool", Read<byte>(value) != 0 ? "true" : "false");
                case 0x03:
                    var letter = Read<char>(value).ToString();
                    var shownLetter = Plain("char", "'" + Escape(letter, '\'') + "'");
                    shownLetter["raw"] = letter;
                    return shownLetter;
                case 0x04: return Plain("int", Read<sbyte>(value).ToString(CultureInfo.InvariantCulture));
                case 0x05: return Plain("int", Read<byte>(value).ToString(CultureInfo.InvariantCulture));
                case 0x06: return Plain("int", Read<short>(value).ToString(CultureInfo.InvariantCulture));
                case 0x07: return Plain("int", Read<ushort>(value).ToString(CultureInfo.InvariantCulture));
                case 0x08: return Plain("int", Read<int>(value).ToString(CultureInfo.InvariantCulture));
                case 0x09: return Plain("int", Read<uint>(value).ToString(CultureInfo.InvariantCulture));
                case 0x0a: return Plain("int", Read<long>(value).ToString(CultureInfo.InvariantCulture));
                case 0x0b: return Plain("int", Read<ulong>(value).ToString(CultureInfo.InvariantCulture));
                case 0x0c: return Plain("float", Read<float>(value).ToString(CultureInfo.InvariantCulture));
                case 0x0d: return Plain("float", Read<double>(value).ToString(CultureInfo.InvariantCulture));
            }
            var reference = stop.Query(value, Iid.ReferenceValue);
            if (reference != IntPtr.Zero)
            {
                int isNull;
                Com.Call(reference, Slot.ReferenceIsNull, &isNull);
                if (isNull != 0) return Plain("none", "none");
                var target = IntPtr.Zero;
                if (Com.Call(reference, Slot.ReferenceDereference, &target) < 0) return Plain("object", "<unreadable>");
                var shown = Render(stop.Keep(target), depth);
                if (shown["ref"]!.GetValue<int>() is var made && made != 0) referenceOf.TryAdd(made, reference);
                return shown;
            }
            var text = stop.Query(value, Iid.StringValue);
            if (text != IntPtr.Zero)
            {
                var raw = ReadString(text);
                var shown = Plain("str", "\"" + Escape(raw, '"') + "\"");
                shown["raw"] = raw;
                return shown;
            }
            var box = stop.Query(value, Iid.BoxValue);
            if (box != IntPtr.Zero)
            {
                var inner = stop.GetOrZero(box, Slot.BoxGetObject);
                return inner == IntPtr.Zero ? Plain("object", "<boxed>") : Render(inner, depth);
            }
            var obj = stop.Query(value, Iid.ObjectValue);
            if (obj != IntPtr.Zero) return RenderObject(obj, depth);
            return Plain("object", $"<element type 0x{type:X}>");
        }

        private T Read<T>(IntPtr value) where T : unmanaged
        {
            var generic = stop.Query(value, Iid.GenericValue);
            T result = default;
            if (generic != IntPtr.Zero) Com.Call(generic, Slot.GenericGetValue, &result);
            return result;
        }

        private static string ReadString(IntPtr text)
        {
            uint length;
            Com.Call(text, Slot.StringGetLength, &length);
            var buffer = new char[length + 1];
            fixed (char* p = buffer)
            {
                uint got;
                Com.Call(text, Slot.StringGetString, length + 1, &got, p);
                return new string(p, 0, (int)Math.Min(got, length));
            }
        }

        private static string Escape(string text, char quote)
        {
            var b = new StringBuilder();
            foreach (var c in text)
            {
                b.Append(c switch { '\n' => "\\n", '\t' => "\\t", '\\' => "\\\\", _ when c == quote => "\\" + quote, _ => c.ToString() });
            }
            return b.ToString();
        }

        private static JsonObject Plain(string kind, string text) => new() { ["kind"] = kind, ["text"] = text, ["ref"] = 0 };

        private (string path, int token, ModuleMetadata metadata) ClassOf(IntPtr obj, out IntPtr cls)
        {
            cls = stop.Get(obj, Slot.ObjectGetClass, "ICorDebugObjectValue::GetClass");
            uint token;
            Com.Call(cls, Slot.ClassGetToken, &token);
            var module = stop.Get(cls, Slot.ClassGetModule, "ICorDebugClass::GetModule");
            var path = ModulePath(module);
            return (path, (int)token, ModuleMetadata.Of(path));
        }

        private IntPtr Field(IntPtr obj, IntPtr cls, int fieldToken)
        {
            IntPtr value;
            return fieldToken != 0 && Com.Call(obj, Slot.ObjectGetFieldValue, cls, (uint)fieldToken, &value) >= 0 ? stop.Keep(value) : IntPtr.Zero;
        }

        private JsonObject RenderObject(IntPtr obj, int depth)
        {
            var (path, token, metadata) = ClassOf(obj, out var cls);
            var name = metadata.NameOf(token);
            if (path == kitePath && kiteTypes[token.ToString(CultureInfo.InvariantCulture)] is JsonObject kite)
            {
                var typeName = kite["name"]!.GetValue<string>();
                if (kite["members"] is JsonObject members && members.Count > 0)
                {
                    var valueField = Field(obj, cls, metadata.Field(token, "value__"));
                    var number = valueField == IntPtr.Zero ? 0 : Read<int>(valueField);
                    var member = members[number.ToString(CultureInfo.InvariantCulture)]?.GetValue<string>() ?? number.ToString(CultureInfo.InvariantCulture);
                    return Plain(typeName, typeName + "." + member);
                }
                var parts = new List<string>();
                var named = new List<(string, IntPtr)>();
                foreach (var field in (JsonArray)kite["fields"]!)
                {
                    var f = (JsonArray)field!;
                    var fieldValue = Field(obj, cls, f[0]!.GetValue<int>());
                    var fieldName = f[1]!.GetValue<string>();
                    named.Add((fieldName, fieldValue));
                    if (depth < DepthShown)
                        parts.Add(fieldName + ": " + (fieldValue == IntPtr.Zero ? "?" : Render(fieldValue, depth + 1)["text"]!.GetValue<string>()));
                }
                return Expandable("record", typeName, typeName + "(" + (depth < DepthShown ? string.Join(", ", parts) : "...") + ")", named);
            }
            if (name == "System.Decimal")
            {
                byte* raw = stackalloc byte[16];
                var generic = stop.Query(obj, Iid.GenericValue);
                if (generic != IntPtr.Zero && Com.Call(generic, Slot.GenericGetValue, raw) >= 0)
                {
                    int flags = *(int*)raw;
                    uint hi = *(uint*)(raw + 4);
                    ulong lo = *(ulong*)(raw + 8);
                    var d = new decimal((int)(uint)lo, (int)(uint)(lo >> 32), (int)hi, flags < 0, (byte)((flags >> 16) & 0xff));
                    return Plain("dec", d.ToString(CultureInfo.InvariantCulture));
                }
            }
            if (name == "System.Nullable`1")
            {
                var has = Field(obj, cls, metadata.Field(token, "hasValue"));
                if (has == IntPtr.Zero || Read<byte>(has) == 0) return Plain("none", "none");
                var inner = Field(obj, cls, metadata.Field(token, "value"));
                return inner == IntPtr.Zero ? Plain("none", "none") : Render(inner, depth);
            }
            if (name == "System.Collections.Generic.List`1")
            {
                var items = Elements(Field(obj, cls, metadata.Field(token, "_items")), Count(obj, cls, metadata, token, "_size"), e => (e, IntPtr.Zero));
                return Collection("list", "[", "]", items, depth, keyed: false);
            }
            if (name == "System.Collections.Generic.HashSet`1" || name == "System.Collections.Generic.Dictionary`2")
            {
                bool map = name.EndsWith("`2", StringComparison.Ordinal);
                var entries = Elements(Field(obj, cls, metadata.Field(token, "_entries")), Count(obj, cls, metadata, token, "_count"), entry =>
                {
                    var entryObject = stop.Query(entry, Iid.ObjectValue);
                    if (entryObject == IntPtr.Zero) return (IntPtr.Zero, IntPtr.Zero);
                    var (_, entryToken, entryMetadata) = ClassOf(entryObject, out var entryClass);
                    var next = Field(entryObject, entryClass, entryMetadata.Field(entryToken, map ? "next" : "_next") is var t && t != 0 ? t : entryMetadata.Field(entryToken, "Next"));
                    if (next != IntPtr.Zero && Read<int>(next) < -1) return (IntPtr.Zero, IntPtr.Zero);  // a free entry
                    if (map) return (Field(entryObject, entryClass, entryMetadata.Field(entryToken, "value")), Field(entryObject, entryClass, entryMetadata.Field(entryToken, "key")));
                    return (Field(entryObject, entryClass, entryMetadata.Field(entryToken, "Value")), IntPtr.Zero);
                });
                return map ? Collection("map", "{", "}", entries, depth, keyed: true) : Collection("set", "{", "}", entries, depth, keyed: false);
            }
            return Plain("object", "<" + name + ">");
        }

        private int Count(IntPtr obj, IntPtr cls, ModuleMetadata metadata, int token, string field)
        {
            var count = Field(obj, cls, metadata.Field(token, field));
            return count == IntPtr.Zero ? 0 : Read<int>(count);
        }

        // The first `count` elements of an array: each as (value, key); a zero value is skipped (a free entry)
        private List<(IntPtr value, IntPtr key)> Elements(IntPtr arrayValue, int count, Func<IntPtr, (IntPtr, IntPtr)> pick)
        {
            var found = new List<(IntPtr, IntPtr)>();
            if (arrayValue == IntPtr.Zero) return found;
            var reference = stop.Query(arrayValue, Iid.ReferenceValue);
            var target = arrayValue;
            if (reference != IntPtr.Zero)
            {
                int isNull;
                Com.Call(reference, Slot.ReferenceIsNull, &isNull);
                if (isNull != 0) return found;
                target = stop.Get(reference, Slot.ReferenceDereference, "ICorDebugReferenceValue::Dereference");
            }
            var array = stop.Query(target, Iid.ArrayValue);
            if (array == IntPtr.Zero) return found;
            for (uint i = 0; i < count; i++)
            {
                IntPtr element;
                if (Com.Call(array, Slot.ArrayGetElementAtPosition, i, &element) < 0) break;
                var picked = pick(stop.Keep(element));
                if (picked.Item1 != IntPtr.Zero) found.Add(picked);
            }
            return found;
        }

        private JsonObject Collection(string kind, string open, string close, List<(IntPtr value, IntPtr key)> items, int depth, bool keyed)
        {
            var parts = new List<string>();
            var named = new List<(string, IntPtr)>();
            for (int i = 0; i < items.Count; i++)
            {
                var (value, key) = items[i];
                string? keyText = keyed ? Render(key, depth + 1)["text"]!.GetValue<string>() : null;
                named.Add((keyText ?? $"[{i}]", value));
                if (depth < DepthShown && i < ItemsShown)
                {
                    var valueText = Render(value, depth + 1)["text"]!.GetValue<string>();
                    parts.Add(keyed ? keyText + ": " + valueText : valueText);
                }
            }
            if (items.Count > ItemsShown || (depth >= DepthShown && items.Count > 0)) parts.Add("...");
            var shown = Expandable(kind, kind, open + string.Join(", ", parts) + close, named);
            shown["count"] = items.Count;
            return shown;
        }

        private JsonObject Expandable(string kind, string type, string text, List<(string, IntPtr)> children)
        {
            int reference = ++nextReference;
            expandable[reference] = children;
            var shown = Plain(kind, text);
            shown["type"] = type;
            shown["ref"] = reference;
            return shown;
        }

        private readonly Dictionary<int, List<(string, IntPtr)>> expandable = new();
        private readonly Dictionary<int, IntPtr> referenceOf = new();  // an expandable value's reference: what a call passes
        private int nextReference;  // counts on through a call, so a ref from before it is refused, never another value

        private JsonNode Children(int reference)
        {
            if (!expandable.TryGetValue(reference, out var children)) throw new InvalidOperationException("no such value in this stop");
            var list = new JsonArray();
            foreach (var (name, value) in children)
            {
                var shown = value == IntPtr.Zero ? Plain("object", "<unreadable>") : Render(value, 0);
                shown["name"] = name;
                list.Add(shown);
            }
            return new JsonObject { ["children"] = list };
        }

        // ---- func-eval: a call of a static method, run on the stopped thread under a time limit

        private readonly ManualResetEventSlim evalDone = new();
        private volatile bool evaluating;  // the debuggee runs a call: its breakpoints and exceptions are the call's
        private bool evalThrew;

        internal bool Evaluating => evaluating;

        internal void OnEvalDone(bool threw)
        {
            evalThrew = threw;
            evalDone.Set();
        }

        // A call's arguments are made first, then the call runs: a str argument is made by a func-eval of its own
        // (NewStringWithLength), which runs the debuggee and so neuters every value of the stop. So each argument
        // that is an object (a value of the stop, a made str) is held by a strong handle, which outlives a run.
        private JsonNode Call(JsonObject request)
        {
            var limit = request["ms"]!.GetValue<int>();
            var args = (JsonArray)request["args"]!;
            var values = new IntPtr[Math.Max(args.Count, 1)];
            var handles = new List<IntPtr>();
            try
            {
                lock (gate)
                {
                    if (stoppedThread == IntPtr.Zero) throw new InvalidOperationException("the debuggee is not stopped");
                    for (int i = 0; i < args.Count; i++)
                    {
                        if (args[i]!["ref"] is not JsonNode reference) continue;
                        if (!referenceOf.TryGetValue(reference.GetValue<int>(), out var value)) throw new InvalidOperationException("no such value in this stop");
                        values[i] = Held(value, handles);
                    }
                }
                var unbox = new bool[args.Count];  // a dec for a dec parameter: the value inside its box is passed
                for (int i = 0; i < args.Count; i++)
                {
                    bool isText = args[i]!["str"] != null;
                    // A value type passed boxed: where the parameter is object ("box"), or a dec (made only so)
                    var boxClass = args[i]!["box"]?.GetValue<string>() ?? (args[i]!["dec"] != null ? "System.Decimal" : null);
                    if (!isText && boxClass == null) continue;
                    IntPtr made;
                    lock (gate)
                    {
                        made = stop.Get(stoppedThread, Slot.ThreadCreateEval, "ICorDebugThread::CreateEval");
                        if (isText)
                        {
                            var raw = args[i]!["str"]!.GetValue<string>();
                            fixed (char* chars = raw)
                            {
                                Com.Check(Com.Call(stop.Query(made, Iid.Eval2), Slot.Eval2NewStringWithLength, chars, (uint)raw.Length), "ICorDebugEval2::NewStringWithLength");
                            }
                        }
                        else
                        {
                            // A box whose inside is written once it is made: ICorDebug makes no value-type value outside
                            // the debuggee, and boxes none
                            Com.Check(Com.Call(made, Slot.EvalNewObjectNoConstructor, (void*)CoreClass(boxClass!)), "ICorDebugEval::NewObjectNoConstructor");
                        }
                    }
                    if (Run(made, limit) is JsonObject failed) return failed;
                    lock (gate)
                    {
                        var result = stop.GetOrZero(made, Slot.EvalGetResult);
                        if (evalThrew || result == IntPtr.Zero) throw new InvalidOperationException("the debuggee could not make an argument");
                        values[i] = Held(result, handles);
                        if (!isText)
                        {
                            unbox[i] = args[i]!["box"] == null;
                            Write(Unboxed(values[i]), (JsonObject)args[i]!);
                        }
                    }
                }
                IntPtr eval;
                lock (gate)
                {
                    eval = stop.Get(stoppedThread, Slot.ThreadCreateEval, "ICorDebugThread::CreateEval");
                    for (int i = 0; i < args.Count; i++)
                    {
                        if (values[i] == IntPtr.Zero) values[i] = Made(eval, (JsonObject)args[i]!);
                        else if (unbox[i]) values[i] = Unboxed(values[i]);  // read again: the last run neutered the last one
                    }
                    var function = request["std"] is JsonNode name ? Overloaded(name.GetValue<string>(), values, args.Count)
                        : (Function(kiteModule, request["token"]!.GetValue<uint>()), Array.Empty<IntPtr>());
                    if (function.Item1 == IntPtr.Zero) return new JsonObject { ["no_overload"] = true, ["box"] = new JsonArray(toBox.Select(i => (JsonNode)i).ToArray()) };
                    fixed (IntPtr* types = function.Item2.Length > 0 ? function.Item2 : new IntPtr[1])
                    fixed (IntPtr* passed = values)
                    {
                        Com.Check(Com.Call(stop.Query(eval, Iid.Eval2), Slot.Eval2CallParameterizedFunction, function.Item1, (uint)function.Item2.Length, types, (uint)args.Count, passed),
                            "ICorDebugEval2::CallParameterizedFunction");
                    }
                }
                if (Run(eval, limit) is JsonObject stopped) return stopped;
                lock (gate)
                {
                    var result = stop.GetOrZero(eval, Slot.EvalGetResult);
                    if (evalThrew)
                    {
                        var (type, message) = ExceptionText(result);
                        return new JsonObject { ["exception"] = type, ["message"] = message };
                    }
                    return new JsonObject { ["value"] = result == IntPtr.Zero ? Plain("none", "none") : Render(result, 0) };
                }
            }
            finally
            {
                lock (gate)
                {
                    foreach (var handle in handles)
                    {
                        Com.Call(handle, Slot.HandleDispose);
                        Com.Release(handle);
                    }
                }
            }
        }

        private IntPtr Function(IntPtr module, uint token)
        {
            IntPtr function;
            Com.Check(Com.Call(module, Slot.ModuleGetFunctionFromToken, token, &function), "ICorDebugModule::GetFunctionFromToken");
            return stop.Keep(function);
        }

        // Run an eval set up on the stopped thread: null when it ended (the stop's values are read again after it),
        // or the reply that it was aborted or could not be
        private JsonObject? Run(IntPtr eval, int limit)
        {
            evalDone.Reset();
            evaluating = true;
            bool finished;
            try
            {
                Com.Check(Com.Call(process, Slot.Continue, 0u), "ICorDebugController::Continue");
                finished = evalDone.Wait(limit);
                if (!finished)
                {
                    // Stop may never return (seen on a second abort in one session): it is waited for, bounded
                    var stopping = System.Threading.Tasks.Task.Run(() => Com.Call(process, Slot.Stop, 5000u));
                    if (!stopping.Wait(5000)) return new JsonObject { ["stuck"] = true };
                    Com.Check(stopping.Result, "ICorDebugController::Stop");
                    Com.Check(Com.Call(eval, Slot.EvalAbort), "ICorDebugEval::Abort");
                    Com.Check(Com.Call(process, Slot.Continue, 0u), "ICorDebugController::Continue");
                    if (!evalDone.Wait(5000)) throw new InvalidOperationException("the call ran past its time limit and could not be aborted");
                }
            }
            finally
            {
                evaluating = false;
            }
            lock (gate) Ran(eval);
            return finished ? null : new JsonObject { ["aborted"] = true };
        }

        // A value of the stop held by a strong handle: valid until disposed, through any run of the debuggee
        private IntPtr Held(IntPtr value, List<IntPtr> handles)
        {
            var reference = stop.Query(value, Iid.ReferenceValue);
            var target = reference == IntPtr.Zero ? value : stop.Get(reference, Slot.ReferenceDereference, "ICorDebugReferenceValue::Dereference");
            var heap = stop.Query(target, Iid.HeapValue2);
            if (heap == IntPtr.Zero) throw new InvalidOperationException("the value cannot be passed to a call");
            IntPtr handle;
            Com.Check(Com.Call(heap, Slot.HeapValue2CreateHandle, 1u, &handle), "ICorDebugHeapValue2::CreateHandle");  // HANDLE_STRONG
            handles.Add(handle);
            return handle;
        }

        // An int, bool or char argument, made in the debuggee
        private IntPtr Made(IntPtr eval, JsonObject argument)
        {
            IntPtr made;
            var code = argument["int"] != null ? 0x08u : argument["char"] != null ? 0x03u : 0x02u;
            Com.Check(Com.Call(eval, Slot.EvalCreateValue, code, IntPtr.Zero, &made), "ICorDebugEval::CreateValue");
            Write(stop.Keep(made), argument);
            return made;
        }

        // An argument's value written into a value of its type (made, or inside a box)
        private void Write(IntPtr value, JsonObject argument)
        {
            if (argument["dec"] is JsonNode dec)
            {
                SetDecimal(value, dec.GetValue<string>());
                return;
            }
            var generic = stop.Query(value, Iid.GenericValue);
            if (generic == IntPtr.Zero) throw new InvalidOperationException("an argument cannot be written");
            long bytes = argument["int"] is JsonNode number ? number.GetValue<int>() : argument["char"] is JsonNode letter ? letter.GetValue<string>()[0]
                : argument["bool"]!.GetValue<bool>() ? 1 : 0;
            Com.Check(Com.Call(generic, Slot.GenericSetValue, &bytes), "ICorDebugGenericValue::SetValue");  // little-endian: the value's own bytes first
        }

        // The value inside a boxed one, held by a handle: valid until the debuggee runs again
        private IntPtr Unboxed(IntPtr handle)
        {
            var box = stop.Query(stop.Get(handle, Slot.ReferenceDereference, "ICorDebugReferenceValue::Dereference"), Iid.BoxValue);
            if (box == IntPtr.Zero) throw new InvalidOperationException("a made dec is not a boxed value");
            return stop.Get(box, Slot.BoxGetObject, "ICorDebugBoxValue::GetObject");
        }

        // System.Decimal's fields as it lays them out: flags, hi32, lo64 (Render reads them the same way)
        private void SetDecimal(IntPtr value, string text)
        {
            var bits = decimal.GetBits(decimal.Parse(text, NumberStyles.Float, CultureInfo.InvariantCulture));
            byte* raw = stackalloc byte[16];
            *(int*)raw = bits[3];
            *(uint*)(raw + 4) = (uint)bits[2];
            *(ulong*)(raw + 8) = (uint)bits[0] | ((ulong)(uint)bits[1] << 32);
            var generic = stop.Query(value, Iid.GenericValue);
            if (generic == IntPtr.Zero) throw new InvalidOperationException("a dec argument cannot be written");
            Com.Check(Com.Call(generic, Slot.GenericSetValue, raw), "ICorDebugGenericValue::SetValue");
        }

        private IntPtr CoreClass(string name)
        {
            var token = ModuleMetadata.Of(ModulePath(coreLibModule)).Type(name);
            IntPtr found;
            Com.Check(Com.Call(coreLibModule, Slot.ModuleGetClassFromToken, (uint)token, &found), "ICorDebugModule::GetClassFromToken");
            return stop.Keep(found);
        }

        // ---- the standard library's overloads: the one C# would pick for these arguments, as the program's call did

        // The overload of Kite.Std's `name` whose parameters take the arguments' exact types, with the type arguments
        // a generic one infers; zero when none does. Better matches win as C#'s overload resolution ranks them:
        // an exact type over an interface it implements (List<T> over IEnumerable<T>), both over object.
        private (IntPtr, IntPtr[]) Overloaded(string name, IntPtr[] values, int count)
        {
            var typeArguments = Array.Empty<IntPtr>();
            toBox.Clear();
            if (stdModule == IntPtr.Zero) throw new InvalidOperationException("the standard library is not loaded yet");
            var types = new IntPtr[count];
            for (int i = 0; i < count; i++)
            {
                var exact = stop.Query(values[i], Iid.Value2);
                types[i] = exact == IntPtr.Zero ? IntPtr.Zero : stop.GetOrZero(exact, Slot.Value2GetExactType);
                if (types[i] == IntPtr.Zero) throw new InvalidOperationException("an argument's type cannot be read");
            }
            int best = -1;
            Overload? chosen = null;
            foreach (var overload in Overload.Of(ModulePath(stdModule), "Kite.Std", name))
            {
                if (overload.Parameters.Length != count) continue;
                var bound = new IntPtr[overload.TypeParameters];
                int score = 0;
                for (int i = 0; i < count && score >= 0; i++)
                {
                    int one;
                    if (overload.Parameters[i].Code == Shape.Object)
                    {
                        // object takes any reference; a value type must come boxed (the caller asks again with a box)
                        one = stop.Query(values[i], Iid.ReferenceValue) != IntPtr.Zero ? 0 : -1;
                        if (one < 0) toBox.Add(i);
                    }
                    else
                    {
                        one = Match(overload.Parameters[i], types[i], bound);
                    }
                    score = one < 0 ? -1 : score + one;
                }
                if (score > best && bound.All(t => t != IntPtr.Zero))
                {
                    best = score;
                    chosen = overload;
                    typeArguments = bound;
                }
            }
            return chosen == null ? (IntPtr.Zero, typeArguments) : (Function(stdModule, (uint)chosen.Token), typeArguments);
        }

        private readonly SortedSet<int> toBox = new();  // arguments an overload takes as object, not yet boxed

        // How well a parameter's shape takes a value of `type`: -1 not at all, 0 as object, 1 through IEnumerable<T>,
        // 3 exactly; a method type parameter is bound to the first type it meets and must meet the same one after.
        private int Match(Shape shape, IntPtr type, IntPtr[] bound)
        {
            uint code;
            Com.Call(type, Slot.TypeGetType, &code);
            switch (shape.Code)
            {
                case Shape.Object:  // a reference (a value type at a parameter is boxed first: Overloaded)
                    return code is 0x0e or Shape.Class or Shape.Array ? 0 : -1;
                case Shape.MethodParameter:
                    if (bound[shape.Index] == IntPtr.Zero) bound[shape.Index] = type;
                    return TypeKey(bound[shape.Index]) == TypeKey(type) ? 3 : -1;
                case Shape.Array:
                    return code == Shape.Array && Match(shape.Arguments[0], stop.Get(type, Slot.TypeGetFirstTypeParameter, "ICorDebugType::GetFirstTypeParameter"), bound) >= 0 ? 3 : -1;
                case Shape.Class or Shape.ValueType:
                    if (code != Shape.Class && code != Shape.ValueType && code != Shape.Array) return -1;
                    var name = code == Shape.Array ? "[]" : ClassName(type);
                    var parameters = code == Shape.Array ? new List<IntPtr> { stop.Get(type, Slot.TypeGetFirstTypeParameter, "ICorDebugType::GetFirstTypeParameter") } : TypeParameters(type);
                    bool enumerable = shape.Name == "System.Collections.Generic.IEnumerable`1"
                        && name is "[]" or "System.Collections.Generic.List`1" or "System.Collections.Generic.HashSet`1";
                    if (!enumerable && (name != shape.Name || parameters.Count != shape.Arguments.Length)) return -1;
                    for (int i = 0; i < shape.Arguments.Length; i++)
                    {
                        if (Match(shape.Arguments[i], parameters[i], bound) < 0) return -1;
                    }
                    return enumerable ? 1 : 3;
                default:
                    return code == shape.Code ? 3 : -1;  // a primitive: bool, char, int, string, ...
            }
        }

        private string ClassName(IntPtr type)
        {
            var cls = stop.GetOrZero(type, Slot.TypeGetClass);
            if (cls == IntPtr.Zero) return "";
            uint token;
            Com.Call(cls, Slot.ClassGetToken, &token);
            return ModuleMetadata.Of(ModulePath(stop.Get(cls, Slot.ClassGetModule, "ICorDebugClass::GetModule"))).NameOf((int)token);
        }

        private List<IntPtr> TypeParameters(IntPtr type)
        {
            var found = new List<IntPtr>();
            var all = stop.Get(type, Slot.TypeEnumerateTypeParameters, "ICorDebugType::EnumerateTypeParameters");
            while (true)
            {
                IntPtr parameter;
                uint fetched;
                if (((delegate* unmanaged<IntPtr, uint, IntPtr*, uint*, int>)Com.Vt(all)[Slot.TypeEnumNext])(all, 1, &parameter, &fetched) < 0 || fetched == 0) break;
                found.Add(stop.Keep(parameter));
            }
            return found;
        }

        // A type as text, to tell two types apart: its element type, class and type arguments
        private string TypeKey(IntPtr type)
        {
            uint code;
            Com.Call(type, Slot.TypeGetType, &code);
            if (code == Shape.Array) return "[" + TypeKey(stop.Get(type, Slot.TypeGetFirstTypeParameter, "ICorDebugType::GetFirstTypeParameter")) + "]";
            if (code != Shape.Class && code != Shape.ValueType) return code.ToString(CultureInfo.InvariantCulture);
            return ClassName(type) + "<" + string.Join(",", TypeParameters(type).Select(TypeKey)) + ">";
        }

        // The debuggee ran: this stop's frames and values are stale (mscordbi neuters them), its thread and the eval are not
        private void Ran(IntPtr eval)
        {
            Com.AddRef(stoppedThread);
            Com.AddRef(eval);
            frames.Clear();
            expandable.Clear();
            referenceOf.Clear();
            stop.ReleaseAll();
            stop.Keep(stoppedThread);
            stop.Keep(eval);
        }

        // ---- exceptions

        private (string type, string message) CurrentException(IntPtr thread)
        {
            return ExceptionText(stop.GetOrZero(thread, Slot.ThreadGetCurrentException));
        }

        private (string type, string message) ExceptionText(IntPtr exception)
        {
            if (exception == IntPtr.Zero) return ("", "");
            var reference = stop.Query(exception, Iid.ReferenceValue);
            var target = reference == IntPtr.Zero ? exception : stop.GetOrZero(reference, Slot.ReferenceDereference);
            var obj = target == IntPtr.Zero ? IntPtr.Zero : stop.Query(target, Iid.ObjectValue);
            if (obj == IntPtr.Zero || coreLibModule == IntPtr.Zero) return ("", "");
            var (_, token, metadata) = ClassOf(obj, out _);
            var typeName = metadata.NameOf(token);
            var core = ModuleMetadata.Of(ModulePath(coreLibModule));
            int exceptionType = core.Type("System.Exception");
            IntPtr exceptionClass;
            if (Com.Call(coreLibModule, Slot.ModuleGetClassFromToken, (uint)exceptionType, &exceptionClass) < 0) return (typeName, "");
            stop.Keep(exceptionClass);
            var message = Field(obj, exceptionClass, core.Field(exceptionType, "_message"));
            if (message == IntPtr.Zero) return (typeName, "");
            var shown = Render(message, 0);
            return (typeName, shown["raw"]?.GetValue<string>() ?? "");
        }
    }

    // ICorDebugManagedCallback and ICorDebugManagedCallback2, as two hand-made COM objects sharing one
    // QueryInterface. Every event the engine does not act on continues the controller it came with.
    internal static unsafe class Callbacks
    {
        private static Engine? engine;
        private static IntPtr first, second;
        private const int FirstSlots = 29, SecondSlots = 11;

        public static IntPtr Create(Engine owner)
        {
            engine = owner;
            var v1 = (void**)NativeMemory.Alloc(FirstSlots, (nuint)sizeof(void*));
            var v2 = (void**)NativeMemory.Alloc(SecondSlots, (nuint)sizeof(void*));
            v1[0] = v2[0] = (delegate* unmanaged<IntPtr, Guid*, IntPtr*, int>)&QueryInterface;
            v1[1] = v2[1] = v1[2] = v2[2] = (delegate* unmanaged<IntPtr, uint>)&Count;
            for (int i = 3; i < FirstSlots; i++) v1[i] = (delegate* unmanaged<IntPtr, IntPtr, IntPtr, IntPtr, IntPtr, IntPtr, IntPtr, int>)&ContinueFirstArgument;
            v1[3] = (delegate* unmanaged<IntPtr, IntPtr, IntPtr, IntPtr, int>)&Breakpoint;
            v1[4] = (delegate* unmanaged<IntPtr, IntPtr, IntPtr, IntPtr, uint, int>)&StepComplete;
            v1[5] = (delegate* unmanaged<IntPtr, IntPtr, IntPtr, int>)&Break;
            v1[6] = (delegate* unmanaged<IntPtr, IntPtr, IntPtr, int, int>)&Exception;
            v1[7] = (delegate* unmanaged<IntPtr, IntPtr, IntPtr, IntPtr, int>)&EvalComplete;
            v1[8] = (delegate* unmanaged<IntPtr, IntPtr, IntPtr, IntPtr, int>)&EvalException;
            v1[9] = (delegate* unmanaged<IntPtr, IntPtr, int>)&CreateProcess;
            v1[10] = (delegate* unmanaged<IntPtr, IntPtr, int>)&ExitProcess;
            v1[13] = (delegate* unmanaged<IntPtr, IntPtr, IntPtr, int>)&LoadModule;
            v1[25] = (delegate* unmanaged<IntPtr, IntPtr, IntPtr, int>)&NameChange;
            for (int i = 3; i < SecondSlots; i++) v2[i] = (delegate* unmanaged<IntPtr, IntPtr, IntPtr, IntPtr, IntPtr, IntPtr, IntPtr, int>)&ContinueFirstArgument;
            first = (IntPtr)NativeMemory.Alloc((nuint)sizeof(void*));
            *(void***)first = v1;
            second = (IntPtr)NativeMemory.Alloc((nuint)sizeof(void*));
            *(void***)second = v2;
            return first;
        }

        public static IntPtr Process;  // from CreateProcess: what continues an event that names no app domain

        [UnmanagedCallersOnly]
        private static int QueryInterface(IntPtr self, Guid* iid, IntPtr* found)
        {
            if (*iid == Iid.IUnknown || *iid == Iid.ManagedCallback) { *found = first; return 0; }
            if (*iid == Iid.ManagedCallback2) { *found = second; return 0; }
            *found = IntPtr.Zero;
            return unchecked((int)0x80004002);  // E_NOINTERFACE
        }

        // Static objects that live as long as the engine: reference counts are not needed
        [UnmanagedCallersOnly]
        private static uint Count(IntPtr self) => 1;

        private static void Continue(IntPtr controller) => Com.Call(controller != IntPtr.Zero ? controller : Process, Slot.Continue, 0u);

        [UnmanagedCallersOnly]
        private static int ContinueFirstArgument(IntPtr self, IntPtr controller, IntPtr a, IntPtr b, IntPtr c, IntPtr d, IntPtr e)
        {
            Continue(controller);
            return 0;
        }

        [UnmanagedCallersOnly]
        private static int CreateProcess(IntPtr self, IntPtr process)
        {
            Process = process;
            Com.Call(process, Slot.Continue, 0u);
            return 0;
        }

        [UnmanagedCallersOnly]
        private static int ExitProcess(IntPtr self, IntPtr process)
        {
            engine!.OnExit();
            return 0;
        }

        [UnmanagedCallersOnly]
        private static int NameChange(IntPtr self, IntPtr appDomain, IntPtr thread)
        {
            Continue(appDomain);
            return 0;
        }

        [UnmanagedCallersOnly]
        private static int LoadModule(IntPtr self, IntPtr appDomain, IntPtr module)
        {
            engine!.OnLoadModule(appDomain, module);
            return 0;
        }

        // A call's end leaves the debuggee stopped, as a breakpoint does: the call request reads the result
        [UnmanagedCallersOnly]
        private static int EvalComplete(IntPtr self, IntPtr appDomain, IntPtr thread, IntPtr eval)
        {
            engine!.OnEvalDone(threw: false);
            return 0;
        }

        [UnmanagedCallersOnly]
        private static int EvalException(IntPtr self, IntPtr appDomain, IntPtr thread, IntPtr eval)
        {
            engine!.OnEvalDone(threw: true);
            return 0;
        }

        [UnmanagedCallersOnly]
        private static int Breakpoint(IntPtr self, IntPtr appDomain, IntPtr thread, IntPtr breakpoint)
        {
            if (engine!.Evaluating) Continue(appDomain);  // a breakpoint inside a called function: the call goes on
            else engine.OnStopped(thread, "breakpoint");
            return 0;
        }

        [UnmanagedCallersOnly]
        private static int StepComplete(IntPtr self, IntPtr appDomain, IntPtr thread, IntPtr stepper, uint reason)
        {
            engine!.OnStopped(thread, "step");
            return 0;
        }

        [UnmanagedCallersOnly]
        private static int Break(IntPtr self, IntPtr appDomain, IntPtr thread)
        {
            engine!.OnStopped(thread, "pause");
            return 0;
        }

        [UnmanagedCallersOnly]
        private static int Exception(IntPtr self, IntPtr appDomain, IntPtr thread, int unhandled)
        {
            if (engine!.Evaluating || !engine.OnException(thread)) Continue(appDomain);  // a call's exception ends it: EvalException
            return 0;
        }
    }
}
