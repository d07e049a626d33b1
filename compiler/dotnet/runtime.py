"""Booting CoreCLR inside this Python process (pythonnet), once, on first use."""

from __future__ import annotations

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
# each saves was measured on a cold check (benchmarks/cold_vs_csc.py, docs/cli.md "Cold start").
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
        options = RUNTIME_CONFIG["runtimeOptions"]
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
        import pythonnet
        from clr_loader import get_coreclr

        runtime = get_coreclr(runtime_config=str(config))
        pythonnet.set_runtime(runtime)
        _load_pythonnet(runtime, packages)
        import clr  # starts the runtime, unless _load_pythonnet did
    except Exception as error:  # clr_loader raises bare RuntimeError/OSError with long texts
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


def _load_pythonnet(runtime, packages: DotnetPackages) -> None:
    """pythonnet.load with a ReadyToRun copy of its Python.Runtime.dll where crossgen2 is there: JIT-compiling it
    was a fifth of starting .NET and Roslyn (benchmarks/cold_check.py). Elsewhere `import clr` loads the IL DLL."""
    import atexit

    import pythonnet

    from kite.dotnet.own_images import ready_to_run_file

    image = ready_to_run_file(packages, "Python.Runtime", python_runtime_dll().read_bytes(), {})
    if image is None:
        return
    assembly = runtime.get_assembly(str(image))
    if assembly.get_function("Python.Runtime.Loader.Initialize")(b"") != 0:
        raise RuntimeError("Python.Runtime.Loader.Initialize failed")
    pythonnet._LOADER_ASSEMBLY, pythonnet._LOADED = assembly, True  # what pythonnet.load sets, so `import clr` is a no-op
    atexit.register(pythonnet.unload)


def python_runtime_dll() -> Path:
    """pythonnet's own assembly, as pythonnet.load finds it."""
    import pythonnet

    return Path(pythonnet.__file__).parent / "runtime" / "Python.Runtime.dll"
