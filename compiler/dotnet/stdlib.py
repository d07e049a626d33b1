"""Kite's standard library: C# source in stdlib/, compiled once per process into an assembly every program references."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

from kite.dotnet.roslyn import RoslynService
from kite.errors import ToolchainError

STDLIB_FILE = "KiteStd.cs"
ASSEMBLY_NAME = "KiteStd"


@dataclass(frozen=True, eq=False)
class StdlibAssembly:
    image: bytes
    reference: object  # a Roslyn MetadataReference to `image`


def stdlib_text_of(name: str) -> str:
    """A C# file of stdlib/. Missing or empty is an error, never a silent empty library (the article's trap 2)."""
    try:
        text = (resources.files("kite.stdlib") / name).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        text = ""
    if not text.strip():
        raise ToolchainError(f"Kite's standard library file {name} is missing or empty: reinstall kite")
    return text


def stdlib_source() -> str:
    text = stdlib_text_of(STDLIB_FILE)
    if "public static class Std" not in text:
        raise ToolchainError(f"Kite's standard library ({STDLIB_FILE}) is missing or empty: reinstall kite")
    return text


@functools.cache
def compile_stdlib(service: RoslynService) -> StdlibAssembly:
    emitted = service.emit(ASSEMBLY_NAME, [(STDLIB_FILE, stdlib_source())])
    if emitted.image is None:
        first = emitted.diagnostics[0].render() if emitted.diagnostics else "no diagnostics"
        raise ToolchainError(f"Kite's standard library does not compile: {first}")
    return StdlibAssembly(emitted.image, service.reference_from_image(emitted.image))
