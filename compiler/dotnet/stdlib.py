"""Kite's standard library: C# source in stdlib/, compiled once per process into an assembly every program references."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

from kite import standard_library
from kite.dotnet.own_images import own_image
from kite.dotnet.roslyn import RoslynService
from kite.errors import ToolchainError

STDLIB_FILE = "KiteStd.cs"
# Dotted: no Kite module can be called so, so no program's assembly (or build output) ever takes the stdlib's name.
ASSEMBLY_NAME = "Kite.Std"
STDLIB_DLL = f"{ASSEMBLY_NAME}.dll"


@dataclass(frozen=True, eq=False)
class StdlibAssembly:
    image: bytes
    reference: object  # a Roslyn MetadataReference to `image`, under the extern alias generated code names


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


def compile_own_source(service: RoslynService, assembly_name: str, name: str, text: str, executable: bool = False) -> bytes:
    """An assembly of kite's own C# (the stdlib, the test host). Failing to compile is kite's bug: a clear error."""
    emitted = service.emit(assembly_name, [(name, text)], executable=executable)
    if emitted.image is None:
        raise does_not_compile(name, emitted.diagnostics)
    return emitted.image


def does_not_compile(name: str, diagnostics) -> ToolchainError:
    """Kite's own C# failing to compile is kite's bug, reported as a clear error with its first diagnostic."""
    first = diagnostics[0].render() if diagnostics else "no diagnostics"
    return ToolchainError(f"Kite's {name} does not compile: {first}")


@functools.cache
def compile_stdlib(service: RoslynService) -> StdlibAssembly:
    source = stdlib_source()
    image = own_image(service.runtime.packages, ASSEMBLY_NAME, [source], lambda: compile_own_source(service, ASSEMBLY_NAME, STDLIB_FILE, source))
    return StdlibAssembly(image, service.reference_from_image(image, (standard_library.CSHARP_ALIAS,)))
