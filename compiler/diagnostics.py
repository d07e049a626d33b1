"""The one diagnostic type every layer reports, its ordering, and the verdict it leads to."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from kite.display import visible


INTERNAL_ERROR_ID = "KT900"  # a bug in kite (C# reported on generated code), never in the program


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


class Layer(enum.IntEnum):
    """Where a diagnostic came from; the value is its place in the output order."""

    KITE = 0
    COMPILER = 1
    ANALYZERS = 2


@dataclass(frozen=True)
class Edit:
    """Replace the text from (line, column) up to (end_line, end_column) with `text`: 1-based, the end column just
    past the last character replaced (as Diagnostic's); an empty range inserts."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str

    def to_json(self) -> dict:
        return {"line": self.line, "column": self.column, "end_line": self.end_line, "end_column": self.end_column, "text": self.text}


@dataclass(frozen=True)
class Fix:
    """What to write instead, made by the rule that reports the diagnostic. Safe: it keeps what the code means, so
    `kite check --fix` applies it; not safe (a rename), only the language server offers it."""

    title: str  # "Replace 'var' with 'let'"
    edits: tuple[Edit, ...]
    safe: bool = True

    def to_json(self) -> dict:
        return {"title": self.title, "safe": self.safe, "edits": [edit.to_json() for edit in self.edits]}


@dataclass(frozen=True)
class Diagnostic:
    file: str
    line: int
    column: int  # 1-based; 0 when the layer only knows the line
    severity: Severity
    id: str
    message: str
    layer: Layer
    # Where it ends: 1-based, the end column is the one just past the last character (SARIF's convention).
    # Left out (0), the diagnostic is a point: it ends where it starts.
    end_line: int = 0
    end_column: int = 0
    fix: Fix | None = field(default=None, compare=False)  # what the diagnostic says, not which one it is

    def __post_init__(self):
        if not self.end_line:
            object.__setattr__(self, "end_line", self.line)
            object.__setattr__(self, "end_column", self.column)

    def render(self) -> str:
        # A message can quote the program (a test's description): it must not be able to start a line of its own.
        return f"{visible(self.file)}({self.line}): {self.severity.value} {self.id}: {visible(self.message)}"

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "severity": self.severity.value,
            "id": self.id,
            "message": self.message,
            "layer": self.layer.name.lower(),
            **({"fix": self.fix.to_json()} if self.fix is not None else {}),
        }


def sort_key(d: Diagnostic) -> tuple:
    # LANGUAGE.md section 10: by line, then layer, then column; the rest only makes ties deterministic.
    return (d.file, d.line, d.layer, d.column, d.id, d.message)


def ordered(diagnostics) -> list[Diagnostic]:
    """Sorted, with exact repeats dropped."""
    return sorted(set(diagnostics), key=sort_key)


class Verdict(str, enum.Enum):
    FAILED = "failed"
    COMPILED = "compiled"
    CLEAN = "clean"


def verdict(diagnostics) -> Verdict:
    severities = {d.severity for d in diagnostics}
    if Severity.ERROR in severities:
        return Verdict.FAILED
    if Severity.WARNING in severities:
        return Verdict.COMPILED
    return Verdict.CLEAN


def summary(diagnostics) -> str:
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for d in diagnostics if d.severity is Severity.WARNING)
    return f"{verdict(diagnostics).value}: {errors} errors, {warnings} warnings"
