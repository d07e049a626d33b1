"""Output formats, one module each: `check(reports)` and/or `test(reports)` turn unit reports into the text printed.

A command offers exactly the formats whose module has its function; a new format is a new module here.
"""

from __future__ import annotations

import importlib

FORMATS = ("text", "full", "json", "sarif", "junit", "github")
_MODULES = {"text": "text", "full": "full", "json": "json_document", "sarif": "sarif", "junit": "junit", "github": "github"}


def emitter(name: str):
    return importlib.import_module(f"{__name__}.{_MODULES[name]}")


def formats_for(command: str) -> list[str]:
    """The formats that can print this command's reports."""
    return [name for name in FORMATS if hasattr(emitter(name), command)]
