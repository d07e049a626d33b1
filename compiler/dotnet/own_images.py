"""Assemblies of kite's own C# (the standard library, the KT007/KT012 analyzers, the test host), kept on disk.

Compiling them is most of a cold start's CPU (benchmarks/cold_check.py: about 1.8 of 4.5 s). An image is keyed by
the C# it was compiled from and lives in the restored packages' folder, which is itself keyed by the pinned Roslyn
and reference assemblies; so a new kite, a changed source or other pinned packages never meet an old image.
"""

from __future__ import annotations

import hashlib
import platform
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from kite.atomic import write_atomically
from kite.dotnet.packages import DotnetPackages, crossgen2
from kite.dotnet.runtime import DOTNET_MAJOR, folder_version, shared_frameworks

CROSSGEN_SECONDS = 120.0
TARGET_ARCHITECTURES = {"x86_64": "x64", "aarch64": "arm64"}  # platform.machine() -> crossgen2's --targetarch


def own_image(packages: DotnetPackages, name: str, sources: Iterable[str], compile_image: Callable[[], bytes]) -> bytes:
    """The image compiled from `sources`, from the disk when an earlier process compiled it, else compiled now."""
    digest = hashlib.sha256("\0".join(sources).encode("utf-8")).hexdigest()[:32]
    folder = packages.cache_dir / "own-images"
    path = folder / f"{name}-{digest}.dll"
    try:
        return path.read_bytes()
    except OSError:
        pass
    image = compile_image()
    folder.mkdir(exist_ok=True)
    write_atomically(path, image)
    return image


def ready_to_run(packages: DotnetPackages, name: str, image: bytes, references: dict[str, bytes]) -> bytes:
    """`image` with its code precompiled for this machine by crossgen2 (the same IL and metadata beside it), kept on
    disk like the IL images; `references`: the other assemblies (by file name) it calls beside the framework. A
    sandboxed test host starts once per answer, and JIT-compiling the host and the stdlib was a tenth of its CPU
    (benchmarks/score.py --breakdown). `image` itself where crossgen2 is not there or fails: only speed differs."""
    path = ready_to_run_file(packages, name, image, references)
    return image if path is None else path.read_bytes()


def ready_to_run_file(packages: DotnetPackages, name: str, image: bytes, references: dict[str, bytes]) -> Path | None:
    """Where ready_to_run keeps its image (made now if it is not there yet), or None where crossgen2 is not there or
    fails. The file is named as its assembly (a folder per version): a loader by path takes the name from it."""
    tool = crossgen2(packages)
    framework = _newest_framework()
    architecture = TARGET_ARCHITECTURES.get(platform.machine())
    if tool is None or framework is None or architecture is None:
        return None
    digest = hashlib.sha256(b"\0".join([str(tool).encode(), str(framework).encode(), image, *references.values()])).hexdigest()[:32]
    path = packages.cache_dir / "own-images" / f"{name}-{digest}.r2r" / f"{name}.dll"
    if path.is_file():
        return path
    with tempfile.TemporaryDirectory(prefix="kite-crossgen-") as work:
        folder = Path(work)
        (folder / f"{name}.dll").write_bytes(image)
        for file_name, referenced in references.items():
            (folder / "references").mkdir(exist_ok=True)
            (folder / "references" / file_name).write_bytes(referenced)
        command = [str(tool), str(folder / f"{name}.dll"), "-o", str(folder / "out.dll"), "-r", str(framework / "*.dll"),
                   *(["-r", str(folder / "references" / "*.dll")] if references else []),
                   "--targetos", "linux", "--targetarch", architecture, "-O"]
        try:
            done = subprocess.run(command, capture_output=True, timeout=CROSSGEN_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode != 0:
            return None
        made = (folder / "out.dll").read_bytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, made)
    return path


def _newest_framework() -> Path | None:
    """The shared framework a test host rolls forward to (LatestMinor): the newest of kite's major version."""
    versions = [(folder_version(folder.name), folder) for folder in shared_frameworks().glob(f"{DOTNET_MAJOR}.*") if folder_version(folder.name)]
    return max(versions)[1] if versions else None
