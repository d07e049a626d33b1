"""The one diagnostic type every layer reports, its ordering, the verdict it leads to, and what declares a Kite
rule (a KT id): below the syntax, so every stage that reports a rule can make its diagnostics."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Protocol

from kite.display import visible

INTERNAL_ERROR_ID = "KT900"  # a bug in kite (C# reported on generated code), never in the program


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


class Layer(enum.StrEnum):
    """The four layers every answer goes through, in order, by the one name each has everywhere (JSON, results,
    `Session.analyze(through=...)`). A diagnostic comes from one of the first three; the tests give outcomes."""

    KITE = "kite"
    COMPILER = "compiler"
    ANALYZERS = "analyzers"
    TESTS = "tests"

    @property
    def order(self) -> int:
        return _LAYER_ORDER[self]


_LAYER_ORDER = {layer: index for index, layer in enumerate(Layer)}
STATIC_LAYERS = (Layer.KITE, Layer.COMPILER, Layer.ANALYZERS)  # what a check runs; the tests come after


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

    @classmethod
    def from_json(cls, data: dict) -> Fix:
        return cls(data["title"], tuple(Edit(**edit) for edit in data["edits"]), data["safe"])


@dataclass(frozen=True)
class Related:
    """A place the diagnostic's cause involves (the earlier declaration a second one meets): SARIF's
    relatedLocations, LSP's relatedInformation. Positions live here, never in the message, so a diagnostic that
    only moved keeps its key (kite.new_only: severity, code, message)."""

    file: str
    line: int
    column: int  # 1-based; 0 when only the line is known
    message: str  # "the earlier let 'n'"

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.column, "message": self.message}

    def render(self) -> str:
        return f"{visible(self.file)}({self.line}): {visible(self.message)}"


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
    related: tuple[Related, ...] = field(default=(), compare=False)  # where else its cause is (never in the message)

    def __post_init__(self):
        if not self.end_line:
            object.__setattr__(self, "end_line", self.line)
            object.__setattr__(self, "end_column", self.column)

    def render(self) -> str:
        # A message can quote the program (a test's description): it must not be able to start a line of its own.
        # Related places follow on the same line: one line per diagnostic (LANGUAGE.md section 10).
        where = "".join(f" [see {related.render()}]" for related in self.related)
        return f"{visible(self.file)}({self.line}): {self.severity.value} {self.id}: {visible(self.message)}{where}"

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
            "layer": self.layer.value,
            **({"fix": self.fix.to_json()} if self.fix is not None else {}),
            **({"related": [related.to_json() for related in self.related]} if self.related else {}),
        }

    @classmethod
    def from_json(cls, data: dict) -> Diagnostic:
        """The diagnostic `to_json` gave (the compile worker's replies carry them so)."""
        fix = data.get("fix")
        return cls(**{**data, "severity": Severity(data["severity"]), "layer": Layer(data["layer"]),
                      "fix": None if fix is None else Fix.from_json(fix),
                      "related": tuple(Related(**related) for related in data.get("related", ()))})


def sort_key(d: Diagnostic) -> tuple:
    # LANGUAGE.md section 10: by line, then layer, then column; the rest only makes ties deterministic.
    return (d.file, d.line, d.layer.order, d.column, d.id, d.message)


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


class Stage(enum.Enum):
    """Where a Kite rule's diagnostics are made; each rule names every stage that reports it (docs/architecture.md)."""

    SYNTAX = "syntax"  # kite.syntax.frontend, while it reads the text: declared there, since syntax is below the rules
    AST = "ast"  # the rule module's check(module, facts, file), over each file that parsed
    UNIT = "unit"  # kite.pipeline.front_end, over a program and its test files together
    ANALYZER = "analyzer"  # a Roslyn analyzer of kite's own (compiler/dotnet/*.cs), run with the C# layers
    SESSION = "session"  # kite.session, about compiling a unit (its time budget)


class Ranged(Protocol):
    """Anything a diagnostic can cover: a syntax node, or the Span of a name or token (read only: frozen ones too)."""

    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def end_column(self) -> int: ...


@dataclass(frozen=True)
class Rule:
    """What every Kite rule declares, Ruff-style: id, severity, summary, rationale, in one place."""

    id: str
    severity: Severity
    summary: str  # one line: what the rule flags
    rationale: str  # why it matters for Kite code
    example: str  # a snippet that triggers it
    fix: str  # what to write instead
    reported_by: frozenset[Stage]  # every stage that makes its diagnostics
    # Compiler/analyzer ids that report the same problem on the same line: Kite's line wins.
    same_as: frozenset[str] = field(default_factory=frozenset)

    def at(self, file: str, line: int, column: int, message: str) -> Diagnostic:
        """At a point: where only the start is known (a budget that ran out, a file with nothing in it)."""
        return Diagnostic(file, line, column, self.severity, self.id, message, Layer.KITE)

    def on(self, file: str, where: Ranged, message: str, fix: Fix | None = None, related: tuple[Related, ...] = ()) -> Diagnostic:
        """Covering `where`: a node, or the Span of a name or token; `fix`, what to write instead where the rule knows;
        `related`, the other places its cause involves (a line number never goes into `message`)."""
        return Diagnostic(file, where.line, where.column, self.severity, self.id, message, Layer.KITE, where.end_line, where.end_column, fix, related)
