"""KT009: module constants whose values read each other in a cycle."""

from kite.constants import order_constants
from kite.diagnostics import Rule, Severity, Stage
from kite.syntax import nodes as n

RULE = Rule(
    id="KT009",
    severity=Severity.ERROR,
    summary="module constants whose values read each other in a cycle (directly or through functions they call)",
    rationale=(
        "Constants are evaluated once, each after the constants it reads. In a cycle one of them would be read before "
        "it has a value (0 or none in the generated C#), and the program would compute something else than it says."
    ),
    example="let width = height * 2\nlet height = width / 2",
    fix="let height = 10\nlet width = height * 2",
    reported_by=frozenset({Stage.AST}),
)


def check(module, facts, file):
    constants = [item for item in module.items if isinstance(item, n.Let)]
    by_name = {c.name: c for c in constants}
    for cycle in order_constants(constants, facts.functions).cycles:
        first = by_name[cycle[0]]
        yield RULE.on(file, n.Span.of_name(first.line, first.column, first.name), f"module constants read each other in a cycle: {spelled(cycle)}")


def spelled(cycle, longest: int = 8) -> str:
    """a -> f() -> b -> a; a long cycle keeps its ends, so the message stays one readable line."""
    steps = list(cycle)
    if len(steps) > longest:
        steps = [*steps[: longest // 2], f"... {len(steps) - longest + 1} more ...", *steps[-(longest // 2) + 1:]]
    return " -> ".join(steps)


judges_fragments = True


def applies(module):
    """Module constants: only they can read each other in a cycle."""
    return any(isinstance(item, n.Let) for item in module.items)
