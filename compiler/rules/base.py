"""What every Kite rule declares, Ruff-style: id, severity, summary, rationale, in one place."""

from __future__ import annotations

from dataclasses import dataclass, field

from kite.diagnostics import Diagnostic, Fix, Layer, Severity
from kite.syntax.nodes import Node, Span


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
        """At a point: where only the start is known (a budget that ran out, a file with nothing in it)."""
        return Diagnostic(file, line, column, self.severity, self.id, message, Layer.KITE)

    def on(self, file: str, where: Node | Span, message: str, fix: Fix | None = None) -> Diagnostic:
        """Covering `where`: a node, or the Span of a name or token; `fix`, what to write instead where the rule knows."""
        return Diagnostic(file, where.line, where.column, self.severity, self.id, message, Layer.KITE, where.end_line, where.end_column, fix)
