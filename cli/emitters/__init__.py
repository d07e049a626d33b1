"""Output formats, one module each: `check(reports)` and/or `test(reports)` turn unit reports into the text printed.

A command offers exactly the formats whose module has its function; a new format is a new module here, found by
its file: its name is the module's (or its FORMAT, where that would shadow a library). text, the default, comes
first in every list; the others by name.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def _found() -> dict[str, ModuleType]:
    modules = [importlib.import_module(f"{__name__}.{module.name}") for module in pkgutil.iter_modules(__path__)]
    named = {getattr(module, "FORMAT", module.__name__.rsplit(".", 1)[-1]): module for module in modules}
    return {name: named[name] for name in sorted(named, key=lambda name: (name != "text", name))}


_FORMATS = _found()


def emitter(name: str) -> ModuleType:
    return _FORMATS[name]


def formats_for(command: str) -> list[str]:
    """The formats that can print this command's reports."""
    return [name for name, module in _FORMATS.items() if hasattr(module, command)]
