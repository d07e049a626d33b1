// The one table of ICorDebug interface slots the engine calls (cordebug.idl order, IUnknown's three first), and the
// COM references it holds. A wrong slot crashes instead of failing, so every slot is named here once, and
// tests/test_debug_engine.py drives each call the engine makes. Raw vtable calls: no COM interop exists on Linux.
#nullable enable
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Kite.Debugging
{
    internal static class Slot
    {
        public const int QueryInterface = 0, AddRef = 1, Release = 2;

        // ICorDebug
        public const int Initialize = 3, SetManagedHandler = 5, DebugActiveProcess = 8;
        // ICorDebugController (ICorDebugProcess, ICorDebugAppDomain)
        public const int Stop = 3, Continue = 4, EnumerateThreads = 7;
        // ICorDebugThreadEnum
        public const int ThreadEnumNext = 7;
        // ICorDebugModule
        public const int ModuleGetBaseAddress = 4, ModuleGetName = 6, ModuleGetFunctionFromToken = 9, ModuleGetClassFromToken = 11;
        // ICorDebugFunction
        public const int FunctionGetModule = 3, FunctionGetILCode = 6;
        // ICorDebugCode
        public const int CodeCreateBreakpoint = 7;
        // ICorDebugBreakpoint
        public const int BreakpointActivate = 3;
        // ICorDebugThread
        public const int ThreadGetID = 4, ThreadGetCurrentException = 10, ThreadCreateStepper = 12, ThreadGetActiveFrame = 15,
            ThreadCreateEval = 17;
        // ICorDebugEval, ICorDebugEval2
        public const int EvalNewObjectNoConstructor = 5, EvalAbort = 9, EvalGetResult = 10, EvalCreateValue = 12;
        public const int Eval2CallParameterizedFunction = 3, Eval2NewStringWithLength = 8;
        // ICorDebugFrame, ICorDebugILFrame
        public const int FrameGetFunction = 5, FrameGetFunctionToken = 6, FrameGetCaller = 8;
        public const int ILFrameGetIP = 11, ILFrameGetLocalVariable = 14, ILFrameGetArgument = 16;
        // ICorDebugStepper
        public const int StepperSetInterceptMask = 5, StepperSetUnmappedStopMask = 6, StepperStep = 7, StepperStepRange = 8,
            StepperStepOut = 9;
        // ICorDebugValue and what derives from it
        public const int ValueGetType = 3;
        public const int Value2GetExactType = 3;
        public const int HeapValue2CreateHandle = 3;
        public const int HandleDispose = 13;
        public const int GenericGetValue = 7, GenericSetValue = 8;
        public const int ReferenceIsNull = 7, ReferenceDereference = 10;
        public const int StringGetLength = 9, StringGetString = 10;
        public const int BoxGetObject = 9;
        public const int ObjectGetClass = 7, ObjectGetFieldValue = 8;
        public const int ArrayGetElementAtPosition = 16;
        // ICorDebugClass
        public const int ClassGetModule = 3, ClassGetToken = 4;
        // ICorDebugType, ICorDebugTypeEnum
        public const int TypeGetType = 3, TypeGetClass = 4, TypeEnumerateTypeParameters = 5, TypeGetFirstTypeParameter = 6;
        public const int TypeEnumNext = 7;
    }

    internal static class Iid
    {
        public static readonly Guid IUnknown = new("00000000-0000-0000-C000-000000000046");
        public static readonly Guid ICorDebug = new("3d6f5f61-7538-11d3-8d5b-00104b35e7ef");
        public static readonly Guid ManagedCallback = new("3d6f5f60-7538-11d3-8d5b-00104b35e7ef");
        public static readonly Guid ManagedCallback2 = new("250E5EEA-DB5C-4C76-B6F3-8C46F12E3203");
        public static readonly Guid ILFrame = new("03E26311-4F76-11d3-88C6-006097945418");
        public static readonly Guid GenericValue = new("CC7BCAF8-8A68-11d2-983C-0000F808342D");
        public static readonly Guid ReferenceValue = new("CC7BCAF9-8A68-11d2-983C-0000F808342D");
        public static readonly Guid BoxValue = new("CC7BCAFC-8A68-11d2-983C-0000F808342D");
        public static readonly Guid StringValue = new("CC7BCAFD-8A68-11d2-983C-0000F808342D");
        public static readonly Guid ObjectValue = new("18AD3D6E-B7D2-11d2-BD04-0000F80849BD");
        public static readonly Guid ArrayValue = new("0405B0DF-A660-11d2-BD02-0000F80849BD");
        public static readonly Guid Value2 = new("5E0B54E7-D88A-4626-9420-A691E0A78B49");
        public static readonly Guid HeapValue2 = new("E3AC4D6C-9CB7-43e6-96CC-B21540E5083C");
        public static readonly Guid Eval2 = new("FB0D9CE7-BE66-4683-9D32-A42A04E2FD91");
    }

    /// <summary>A failed ICorDebug call: its name and HRESULT.</summary>
    internal sealed class ComFailure : Exception
    {
        public ComFailure(string what, int hr) : base($"{what} failed (0x{hr:X8})") { }
    }

    /// <summary>Calls by slot. Every pointer a call returns is owned by the caller (COM's rule): it goes into a
    /// Scope, which releases it, or is released by hand.</summary>
    internal static unsafe class Com
    {
        public static void** Vt(IntPtr o) => *(void***)o;

        public static void Check(int hr, string what)
        {
            if (hr < 0) throw new ComFailure(what, hr);
        }

        public static uint AddRef(IntPtr o) => ((delegate* unmanaged<IntPtr, uint>)Vt(o)[Slot.AddRef])(o);
        public static uint Release(IntPtr o) => ((delegate* unmanaged<IntPtr, uint>)Vt(o)[Slot.Release])(o);

        public static int TryQuery(IntPtr o, Guid iid, out IntPtr found)
        {
            IntPtr p;
            int hr = ((delegate* unmanaged<IntPtr, Guid*, IntPtr*, int>)Vt(o)[Slot.QueryInterface])(o, &iid, &p);
            found = hr >= 0 ? p : IntPtr.Zero;
            return hr;
        }

        public static int Call(IntPtr o, int slot) => ((delegate* unmanaged<IntPtr, int>)Vt(o)[slot])(o);
        public static int Call(IntPtr o, int slot, uint a) => ((delegate* unmanaged<IntPtr, uint, int>)Vt(o)[slot])(o, a);
        public static int Call(IntPtr o, int slot, void* a) => ((delegate* unmanaged<IntPtr, void*, int>)Vt(o)[slot])(o, a);
        public static int Call(IntPtr o, int slot, void* a, void* b) => ((delegate* unmanaged<IntPtr, void*, void*, int>)Vt(o)[slot])(o, a, b);
        public static int Call(IntPtr o, int slot, uint a, void* b) => ((delegate* unmanaged<IntPtr, uint, void*, int>)Vt(o)[slot])(o, a, b);
        public static int Call(IntPtr o, int slot, uint a, void* b, void* c) => ((delegate* unmanaged<IntPtr, uint, void*, void*, int>)Vt(o)[slot])(o, a, b, c);
        public static int Call(IntPtr o, int slot, uint a, int b, void* c) => ((delegate* unmanaged<IntPtr, uint, int, void*, int>)Vt(o)[slot])(o, a, b, c);
        public static int Call(IntPtr o, int slot, int a, void* b, uint c) => ((delegate* unmanaged<IntPtr, int, void*, uint, int>)Vt(o)[slot])(o, a, b, c);
        public static int Call(IntPtr o, int slot, uint a, IntPtr b, void* c) => ((delegate* unmanaged<IntPtr, uint, IntPtr, void*, int>)Vt(o)[slot])(o, a, b, c);
        public static int Call(IntPtr o, int slot, IntPtr a, uint b, void* c) => ((delegate* unmanaged<IntPtr, IntPtr, uint, void*, int>)Vt(o)[slot])(o, a, b, c);
        public static int Call(IntPtr o, int slot, void* a, uint b) => ((delegate* unmanaged<IntPtr, void*, uint, int>)Vt(o)[slot])(o, a, b);
        public static int Call(IntPtr o, int slot, IntPtr a, uint b, void* c, uint d, void* e) =>
            ((delegate* unmanaged<IntPtr, IntPtr, uint, void*, uint, void*, int>)Vt(o)[slot])(o, a, b, c, d, e);
    }

    /// <summary>The references obtained while the debuggee is stopped: all released when it resumes, since
    /// frames and values are only valid until then.</summary>
    internal sealed class Scope
    {
        private readonly List<IntPtr> held = new();

        public int Count => held.Count;

        public IntPtr Keep(IntPtr p)
        {
            if (p != IntPtr.Zero) held.Add(p);
            return p;
        }

        public unsafe IntPtr Get(IntPtr o, int slot, string what)
        {
            IntPtr r;
            Com.Check(Com.Call(o, slot, &r), what);
            return Keep(r);
        }

        public unsafe IntPtr GetOrZero(IntPtr o, int slot)
        {
            IntPtr r = IntPtr.Zero;
            return Com.Call(o, slot, &r) >= 0 ? Keep(r) : IntPtr.Zero;
        }

        public IntPtr Query(IntPtr o, Guid iid) => Com.TryQuery(o, iid, out var r) >= 0 ? Keep(r) : IntPtr.Zero;

        public int ReleaseAll()
        {
            int n = held.Count;
            foreach (var p in held) Com.Release(p);
            held.Clear();
            return n;
        }
    }
}
