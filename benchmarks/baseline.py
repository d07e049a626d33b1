"""The baseline every benchmark compares with: `dotnet build` of C# files in a minimal net10.0 project."""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

PROJECT = (
    '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework>'
    "<Nullable>enable</Nullable><OutputType>Library</OutputType></PropertyGroup></Project>"
)


def without_stdlib_alias(csharp: str) -> str:
    """Generated C# with the stdlib reached directly: the baseline compiles the stdlib's source into the project, so
    there is no assembly for kite's extern alias to name (CS0430 otherwise)."""
    from kite.standard_library import CSHARP_ALIAS

    return csharp.replace(f"extern alias {CSHARP_ALIAS};", "").replace(f"{CSHARP_ALIAS}::", "global::")


def dotnet_build_seconds(files: dict[str, str], cold: bool = False) -> float:
    """Seconds for `dotnet build --no-restore` (restore done first, so only the build is timed).

    cold: shut the SDK's build servers (MSBuild nodes, the VBCSCompiler server) down first, as on a fresh
    machine; otherwise they are warm from the restore and earlier builds, as on a developer's machine."""
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / "Bench.csproj").write_text(PROJECT)
        for name, text in files.items():
            (project / name).write_text(without_stdlib_alias(text))
        subprocess.run(["dotnet", "restore", "-v", "q"], cwd=project, check=True, capture_output=True)
        if cold:
            subprocess.run(["dotnet", "build-server", "shutdown"], check=True, capture_output=True)
        start = time.perf_counter()
        subprocess.run(["dotnet", "build", "--no-restore", "-v", "q", "-nologo"], cwd=project, check=True, capture_output=True)
        return time.perf_counter() - start
