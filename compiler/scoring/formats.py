"""The `format` key: an answer that must be nothing but one kind of text (seed 003). Valid scores 10, anything else 0.

The whole output must be that kind of text: prose around it, or a Markdown fence, is a syntax failure. Each check
returns why it failed ("" when valid) and, for C#, what Roslyn and the analyzers said."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from kite.diagnostics import Severity
from kite.dotnet.compile_worker import CompileOutOfMemory, CompileTimeout
from kite.rules.kt010_compile_budget import took_too_long, took_too_much_memory

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
    """Every parse or compile of the text runs in the session's compile process, under its compile budget."""
    if not text.strip():
        return FormatVerdict("the answer is empty")
    if FENCE.match(text):
        return FormatVerdict(f"the answer is fenced: a {fmt} answer must be only {fmt}, with no Markdown around it")
    try:
        if fmt == "csharp":
            return csharp_verdict(session, text)
        if fmt == "regex":
            text = text.removesuffix("\n").removesuffix("\r")
            if "\n" in text or "\r" in text:
                return FormatVerdict("more than one line: a regex answer is the pattern alone")
            fmt = f"{regex_flavor} regex"
        return FormatVerdict(session.compiler.text_problem(fmt, text, session.compile_timeout, memory_mb=session.compile_memory_mb))
    except CompileOutOfMemory as error:  # a verdict that met the budget: KT010 keeps it out of the cache
        stopped = took_too_much_memory("answer", 1, 1, error.megabytes)
        if fmt != "csharp":
            stopped = replace(stopped, message=f"took more than {error.megabytes} MB of memory to read as {fmt}: it was stopped")
        return FormatVerdict(stopped.message, (stopped,))
    except CompileTimeout:
        stopped = took_too_long("answer", 1, 1, session.compile_timeout)
        if fmt != "csharp":
            stopped = replace(stopped, message=f"took longer than {session.compile_timeout:g} s to read as {fmt}: it was stopped")
        return FormatVerdict(stopped.message, (stopped,))


def csharp_verdict(session, text: str) -> FormatVerdict:
    """Roslyn and the analyzers on the raw C#, as a library; an error anywhere is a failure."""
    found = session.compiler.check([("answer.cs", text)], session.compile_timeout, with_stdlib=False, memory_mb=session.compile_memory_mb)
    errors = [d for d in found if d.severity is Severity.ERROR]
    reason = f"does not compile as C#: {errors[0].id}: {errors[0].message}" if errors else ""
    return FormatVerdict(reason, tuple(found))
