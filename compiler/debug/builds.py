"""Debug builds kept on disk for the next launch of an unchanged program: it skips the static layers and Roslyn,
most of launch-to-first-stop (benchmarks/debug.py). A build is keyed by its generated C#, which holds every Kite
file's absolute path (#line) and the SHA-256 of its bytes (#pragma checksum), by the standard library's image it
references, and by the packages' folder it lives in (itself keyed by the pinned Roslyn and reference assemblies).
The newest DEBUG_BUILDS_KEPT are kept."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kite.defaults import DEBUG_BUILDS_KEPT

SYMBOLS = "symbols.json"


@dataclass(frozen=True)
class KeptBuild:
    folder: Path
    assembly_name: str

    @property
    def assembly(self) -> Path:
        return self.folder / f"{self.assembly_name}.dll"

    @property
    def pdb(self) -> Path:
        return self.folder / f"{self.assembly_name}.pdb"

    def symbols(self) -> dict:
        return json.loads((self.folder / SYMBOLS).read_text(encoding="utf-8"))


def build_key(sources: list[tuple[str, str]], stdlib: bytes) -> str:
    digest = hashlib.sha256(hashlib.sha256(stdlib).digest())
    for name, text in sources:
        digest.update(b"\0" + name.encode("utf-8") + b"\0" + text.encode("utf-8"))
    return digest.hexdigest()[:40]


def kept(cache: Path, key: str, assembly_name: str) -> KeptBuild | None:
    """The build kept under `key`, whole, or None."""
    found = KeptBuild(cache / key, assembly_name)
    if not all(path.is_file() for path in (found.assembly, found.pdb, found.folder / SYMBOLS)):
        return None
    os.utime(found.folder)  # the newest kept: pruned last
    return found


def keep(cache: Path, key: str, assembly: Path, pdb: Path, symbols: dict) -> None:
    """Keep a build: written beside, then renamed into place (a reader never sees half of one), then the oldest
    beyond DEBUG_BUILDS_KEPT are removed. A cache that cannot be written costs only the next launch's time."""
    staging = None
    try:
        cache.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".kept-", dir=cache))
        shutil.copyfile(assembly, staging / assembly.name)
        shutil.copyfile(pdb, staging / pdb.name)
        (staging / SYMBOLS).write_text(json.dumps(symbols), encoding="utf-8")
        staging.rename(cache / key)  # fails when another launch kept the same build first: the rest is the same
        staging = None
        builds = sorted((p for p in cache.iterdir() if p.is_dir() and not p.name.startswith(".")), key=lambda p: p.stat().st_mtime_ns)
        for old in builds[:-DEBUG_BUILDS_KEPT]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
