"""Kite's own files: its code and the data beside it that a verdict depends on (grammar, standard library, pinned
.NET packages, rule tables). What outlives a process is keyed by them: the warm server by their sizes and times (read
on every command), `kite score --cache` by their bytes. An editable install changes them without a new version."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

# Packages an install may put beside kite's folder rather than in it (pyproject's package-dir: an editable install
# reads cli/, grammar/ and stdlib/ from the checkout's top level).
PACKAGES = ("kite", "kite.cli", "kite.grammar", "kite.stdlib")
SUFFIXES = {".py", ".lark", ".cs", ".toml", ".json", ".csproj", ".txt"}


def own_files() -> list[tuple[str, Path]]:
    """(package/relative name, path) of every such file, each once, in a stable order."""
    seen, files = set(), []
    for package in PACKAGES:
        root = Path(str(resources.files(package))).resolve()
        for path in sorted(root.rglob("*")):
            if path.suffix in SUFFIXES and "__pycache__" not in path.parts and path not in seen and path.is_file():
                seen.add(path)
                files.append((f"{package}/{path.relative_to(root)}", path))
    return files


def cache_root() -> Path:
    """Kite's per-user cache folder: restored .NET packages, the warm server's socket, `kite find`'s key."""
    if "KITE_CACHE_DIR" in os.environ:
        return Path(os.environ["KITE_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kite"
