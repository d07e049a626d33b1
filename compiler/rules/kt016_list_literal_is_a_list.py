"""KT016: a list literal with items where a set or a map is wanted.

Implemented as a Roslyn analyzer (compiler/dotnet/KiteText.cs, ListLiteralAnalyzer) because what a `[...]` becomes
is the compiler's to tell; this file is its id, severity and documentation.
"""

from kite.diagnostics import Rule, Severity, Stage
from kite.rules.applicability import nodes_of
from kite.syntax import nodes as n

RULE = Rule(
    id="KT016",
    severity=Severity.ERROR,
    summary="a list literal is a list: `[...]` with items where a set or a map is wanted is an error",
    rationale=(
        "C# would make the literal a set, which drops its repeats and its order: a hidden test's "
        "`expect evens(xs) == [4, 2, 4]` beside an answer's `fn evens(xs: list<int>) -> set<int>` compared two sets, "
        "and an answer that loses the order and the repeats passed. A literal means what it says, whatever the code "
        "around it declares. The empty `[]` is empty as a set too, and stays allowed."
    ),
    example="let seen: set<int> = [1, 2, 2]",
    fix="let seen = set<int>()\nseen.Add(1)\nseen.Add(2)",
    reported_by=frozenset({Stage.ANALYZER}),
)


judges_fragments = True


def applies(module):
    """A list literal with items: only it can lose them."""
    return any(isinstance(node, n.ListLiteral) and node.items for node in nodes_of(module))
