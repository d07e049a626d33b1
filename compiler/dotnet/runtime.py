"""Booting CoreCLR inside this Python process (pythonnet), once, on first use."""

from __future__ import annotations

import ctypes
import functools
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kite.atomic import write_atomically
from kite.dotnet.packages import DotnetPackages, dotnet_executable, restore
from kite.errors import ToolchainError

DOTNET_MAJOR = 10
RUNTIME_CONFIG = {
    "runtimeOptions": {
        "tfm": f"net{DOTNET_MAJOR}.0",
        # Pin the major version: Roslyn's net10.0 build needs it; newer minors and patches are fine.
        "rollForward": "LatestMinor",
        "framework": {"name": "Microsoft.NETCore.App", "version": f"{DOTNET_MAJOR}.0.0"},
    }
}


# Only for the runtime kite starts in its own process to compile (boot), never for programs or the test host: what
# each saves was measured on a cold check (benchmarks/cold_vs_csc.py; README.md, "How long things take").
COMPILER_PROPERTIES = {
    # Instrumenting hot precompiled code for a later rejit that a one-shot check ends before.
    "System.Runtime.TieredPGO": False,
    # ICU is never loaded; Roslyn's messages are read in the invariant culture (roslyn.py) and kite's own text is
    # ordinal everywhere, so no diagnostic depends on it (tests/test_dotnet.py).
    "System.Globalization.Invariant": True,
}


def write_runtime_config(path, properties: dict | None = None) -> None:
    """The runtimeconfig of every .NET process kite starts or writes: kite itself, built programs, the test host;
    `properties` added to its configProperties. The sandboxed test host reads it under a uid of its own."""
    config = RUNTIME_CONFIG
    if properties:
        options: dict = RUNTIME_CONFIG["runtimeOptions"]
        config = {**RUNTIME_CONFIG, "runtimeOptions": {**options, "configProperties": {**options.get("configProperties", {}), **properties}}}
    write_atomically(path, json.dumps(config, indent=1).encode(), 0o644)


def shared_frameworks() -> Path:
    """The folder of the installed shared frameworks, one subfolder per version (`10.0.1/`)."""
    return Path(dotnet_executable()).resolve().parent / "shared" / "Microsoft.NETCore.App"


@functools.cache
def framework_assembly_names() -> frozenset[str]:
    """The simple names (case-folded) of the assemblies the shared framework ships: a program's file of one of these
    names (`System.dll`, `netstandard.dll`) would lose to the framework's own when `dotnet` runs it."""
    return frozenset(image.stem.casefold() for image in shared_frameworks().glob("*/*.dll"))


def installed_runtimes() -> str:
    """`dotnet --list-runtimes`: what kite and the programs it runs may roll forward to (LatestMinor), so what a kept
    verdict depends on beside the pinned packages."""
    return subprocess.run([dotnet_executable(), "--list-runtimes"], capture_output=True, text=True, timeout=60, check=False).stdout


@dataclass(frozen=True, eq=False)  # one per process: identity is its hash (per-process caches key on it)
class DotnetRuntime:
    packages: DotnetPackages
    runtime_version: str
    runtime_dir: str  # where System.Private.CoreLib was loaded from


@functools.cache
def boot() -> DotnetRuntime:
    """Start CoreCLR and load the compiler. Every later call returns the same runtime."""
    packages = restore()
    config = packages.cache_dir / "kite-compiler.runtimeconfig.json"
    write_runtime_config(config, COMPILER_PROPERTIES)
    try:
        _load_pythonnet(_Host(config), packages)
    except (OSError, AttributeError, RuntimeError) as error:  # no library, a hostfxr without the call, an error code
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ToolchainError(
            f"cannot start the .NET {DOTNET_MAJOR} runtime ({first_line}); install the .NET {DOTNET_MAJOR} SDK"
        ) from None

    import System
    from System.Reflection import Assembly

    for path in packages.compiler_images:
        Assembly.LoadFrom(path)
    import clr

    clr.AddReference("Microsoft.CodeAnalysis")
    clr.AddReference("Microsoft.CodeAnalysis.CSharp")
    core_dir = System.IO.Path.GetDirectoryName(System.Object().GetType().Assembly.Location)
    return DotnetRuntime(packages, str(System.Environment.Version), str(core_dir))


# What kite uses of .NET's hosting API (hostfxr.h, coreclr_delegates.h), through ctypes: clr_loader, which pythonnet
# starts .NET with otherwise, declares it with cffi, whose C parser ran at every start (a tenth of starting .NET).
class _InitializeParameters(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("host_path", ctypes.c_char_p), ("dotnet_root", ctypes.c_char_p)]


LOAD_ASSEMBLY_AND_GET_FUNCTION_POINTER = 5  # hostfxr_delegate_type hdt_load_assembly_and_get_function_pointer
_LoadAssemblyAndGetFunctionPointer = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                                      ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_ComponentEntryPoint = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32)


class _Host:
    """The .NET runtime of `config` in this process (started by the first function fetched), as clr_loader's
    DotnetCoreRuntime is to pythonnet: assemblies by path, their `int F(IntPtr, int)` functions by name."""

    def __init__(self, config: Path):
        root = Path(dotnet_executable()).resolve().parent
        versions = [(folder_version(library.parent.name), library) for library in (root / "host" / "fxr").glob("*/libhostfxr.so")]
        if not versions:
            raise OSError(f"no libhostfxr.so under {root / 'host' / 'fxr'}")
        self._hostfxr = ctypes.CDLL(str(max(versions)[1]))
        parameters = _InitializeParameters(ctypes.sizeof(_InitializeParameters), None, str(root).encode())
        self._handle = ctypes.c_void_p()
        _check("hostfxr_initialize_for_runtime_config", self._hostfxr.hostfxr_initialize_for_runtime_config(
            str(config).encode(), ctypes.byref(parameters), ctypes.byref(self._handle)))
        delegate = ctypes.c_void_p()
        _check("hostfxr_get_runtime_delegate", self._hostfxr.hostfxr_get_runtime_delegate(
            self._handle, LOAD_ASSEMBLY_AND_GET_FUNCTION_POINTER, ctypes.byref(delegate)))
        self._load = _LoadAssemblyAndGetFunctionPointer(_address(delegate))

    def get_assembly(self, path: Path) -> _Assembly:
        return _Assembly(self, path)

    def function(self, path: Path, name: str):
        type_name, method = name.rsplit(".", 1)
        found = ctypes.c_void_p()
        _check(f"loading {name}", self._load(str(path).encode(), f"{type_name}, {path.stem}".encode(), method.encode(),
                                             None, None, ctypes.byref(found)))
        entry = _ComponentEntryPoint(_address(found))
        return lambda argument: entry(ctypes.cast(ctypes.c_char_p(argument), ctypes.c_void_p), len(argument))


@dataclass(frozen=True)
class _Assembly:
    host: _Host
    path: Path

    def get_function(self, name: str):
        """What pythonnet.unload calls on the assembly pythonnet.load kept."""
        return self.host.function(self.path, name)


def _check(what: str, code: int) -> None:
    if code < 0:  # 0, 1 and 2 are kinds of success (hostfxr's status codes)
        raise RuntimeError(f"{what} failed with 0x{code & 0xFFFFFFFF:08x}")


def _address(pointer: ctypes.c_void_p) -> int:
    if not pointer.value:
        raise RuntimeError("the .NET host returned no function")
    return pointer.value


def folder_version(folder_name: str) -> tuple[int, ...]:
    """The version a folder of the .NET installation is named by: `10.0.1` -> (10, 0, 1), a preview's `10.0.0-rc.1` as
    its release; () for a name that is no version."""
    parts = folder_name.split("-")[0].split(".")
    return tuple(int(part) for part in parts) if all(part.isdigit() for part in parts) else ()


def _load_pythonnet(host: _Host, packages: DotnetPackages) -> None:
    """pythonnet.load on `host`, with a ReadyToRun copy of its Python.Runtime.dll where crossgen2 is there:
    JIT-compiling it was a fifth of starting .NET and Roslyn (benchmarks/cold_check.py)."""
    import atexit

    import pythonnet

    from kite.dotnet.own_images import ready_to_run_file

    image = ready_to_run_file(packages, "Python.Runtime", python_runtime_dll().read_bytes(), {}) or python_runtime_dll()
    assembly = host.get_assembly(image)
    if assembly.get_function("Python.Runtime.Loader.Initialize")(b"") != 0:
        raise RuntimeError("Python.Runtime.Loader.Initialize failed")
    pythonnet._LOADER_ASSEMBLY, pythonnet._LOADED = assembly, True  # what pythonnet.load sets: `import clr` is a no-op
    atexit.register(pythonnet.unload)


def python_runtime_dll() -> Path:
    """pythonnet's own assembly, as pythonnet.load finds it."""
    import pythonnet

    return Path(pythonnet.__file__).parent / "runtime" / "Python.Runtime.dll"
