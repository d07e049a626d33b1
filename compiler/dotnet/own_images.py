"""Assemblies of kite's own C# (the standard library, the KT007/KT012 analyzers, the test host), kept on disk.

Compiling them is most of a cold start's CPU (benchmarks/cold_check.py: about 1.8 of 4.5 s). An image is keyed by
the C# it was compiled from and lives in the restored packages' folder, which is itself keyed by the pinned Roslyn
and reference assemblies; so a new kite, a changed source or other pinned packages never meet an old image.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

from kite.atomic import write_atomically
from kite.dotnet.packages import DotnetPackages


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
