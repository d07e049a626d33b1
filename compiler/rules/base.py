"""What every Kite rule declares, Ruff-style: id, severity, summary, rationale, in one place."""

from __future__ import annotations

from dataclasses import dataclass, field

from kite.diagnostics import Diagnostic, Layer, Severity


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    summary: str  # one line: what the rule flags
    rationale: str  # why it matters for Kite code
    example: str  # a snippet that triggers it
    fix: str  # what to write instead
    # Compiler/analyzer ids that report the same problem on the same line: Kite's line wins.
    same_as: frozenset[str] = field(default_factory=frozenset)

    def at(self, file: str, line: int, column: int, message: str) -> Diagnostic:
        return Diagnostic(file, line, column, self.severity, self.id, message, Layer.KITE)
