"""The `format` key: an answer that must be nothing but one kind of text (seed 003). Valid scores 10, anything else 0.

The whole output must be that kind of text: prose around it, or a Markdown fence, is a syntax failure. Each check
returns why it failed ("" when valid) and, for C#, what Roslyn and the analyzers said."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

FORMATS = ("kite", "csharp", "json", "python", "regex")
REGEX_FLAVORS = ("dotnet", "python")
FULL_SCORE = 10.0
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class FormatVerdict:
    reason: str  # "" when the text is exactly a valid instance of the format
    diagnostics: tuple = field(default=())  # C#: Roslyn's and the analyzers' findings

    @property
    def valid(self) -> bool:
        return not self.reason


def check_format(session, fmt: str, text: str, regex_flavor: str = "dotnet") -> FormatVerdict:
    if not text.strip():
        return FormatVerdict("the answer is empty")
    if FENCE.match(text):
        return FormatVerdict(f"the answer is fenced: a {fmt} answer must be only {fmt}, with no Markdown around it")
    if fmt == "json":
        return FormatVerdict(json_problem(text))
    if fmt == "python":
        return FormatVerdict(python_problem(text))
    if fmt == "regex":
        return FormatVerdict(regex_problem(text, regex_flavor))
    if fmt == "csharp":
        return csharp_verdict(session, text)
    raise ValueError(f"no format check for {fmt!r}")


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def json_problem(text: str) -> str:
    """Strict JSON: one value, nothing after it, no NaN or Infinity."""
    try:
        json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        return f"not JSON: {error}"
    return ""


def python_problem(text: str) -> str:
    try:
        ast.parse(text)
    except SyntaxError as error:
        return f"not Python: {error.msg} (line {error.lineno})"
    except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes, nesting too deep for the parser
        return f"not Python: {type(error).__name__}: {error}"
    return ""


def regex_problem(text: str, flavor: str) -> str:
    """One line (a final line end allowed) that the engine compiles; a second line is prose or a fence."""
    pattern = text.removesuffix("\n").removesuffix("\r")
    if "\n" in pattern or "\r" in pattern:
        return "more than one line: a regex answer is the pattern alone"
    if flavor == "python":
        try:
            re.compile(pattern)
        except (re.error, RecursionError, OverflowError) as error:
            return f"not a Python regex: {error}"
        return ""
    from kite.dotnet.runtime import boot

    boot()
    import clr

    clr.AddReference("System.Text.RegularExpressions")
    from System import ArgumentException
    from System.Text.RegularExpressions import Regex

    try:
        Regex(pattern)
    except ArgumentException as error:
        return f"not a .NET regex: {error.Message}"
    return ""


def csharp_verdict(session, text: str) -> FormatVerdict:
    """Roslyn and the analyzers on the raw C#, as a library; an error anywhere is a failure."""
    from kite.diagnostics import Severity

    found = session.roslyn.check([("answer.cs", text)])
    errors = [d for d in found if d.severity is Severity.ERROR]
    reason = f"does not compile as C#: {errors[0].id}: {errors[0].message}" if errors else ""
    return FormatVerdict(reason, tuple(found))
