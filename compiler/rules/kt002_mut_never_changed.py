"""KT002: a let mut that is never changed."""

from kite.diagnostics import Edit, Fix, Rule, Severity, Stage
from kite.rules.applicability import nodes_of
from kite.syntax import nodes as n

RULE = Rule(
    id="KT002",
    severity=Severity.WARNING,
    summary="a let mut that is never assigned again",
    rationale="let mut tells the reader to watch for changes; when none come, it misleads. Sloppy, not wrong: a warning.",
    example="let mut count = len(xs)\nreturn count",
    fix="let count = len(xs)",
    reported_by=frozenset({Stage.AST}),
)

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = False  # a snippet's let mut may be changed by code the answer left out


def check(module, facts, file):
    mut_columns = {(node.line, node.column): node.mut_column for node in nodes_of(module) if isinstance(node, n.Let) and node.mutable}
    for binding in facts.bindings:
        if binding.kind == "mut" and not binding.changed:
            yield RULE.on(file, binding.span, f"'{binding.name}' is never changed: declare it with let, not let mut",
                          _without_mut(binding, mut_columns.get((binding.line, binding.column), 0)))


def _without_mut(binding, mut_column: int) -> Fix | None:
    """`let mut x` -> `let x`: `mut` and the blanks after it go."""
    if not mut_column:
        return None
    return Fix("Declare it with let", (Edit(binding.line, mut_column, binding.line, binding.column, ""),))


def applies(module):
    return any(isinstance(node, n.Let) and node.mutable for node in nodes_of(module))
