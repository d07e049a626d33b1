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


def write_runtime_config(path) -> None:
    """The runtimeconfig of every .NET process kite starts or writes: kite itself, built programs, the test host.
    The sandboxed test host reads it under a uid of its own."""
    write_atomically(path, json.dumps(RUNTIME_CONFIG, indent=1).encode(), 0o644)


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
    config = packages.cache_dir / "kite.runtimeconfig.json"
    write_runtime_config(config)
    try:
        import pythonnet
        from clr_loader import get_coreclr

        pythonnet.set_runtime(get_coreclr(runtime_config=str(config)))
        import clr  # starts the runtime
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
