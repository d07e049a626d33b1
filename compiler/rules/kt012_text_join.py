"""KT012: `+` with a str on one side and anything but a str on the other.

Implemented as a Roslyn analyzer (compiler/dotnet/KiteText.cs) because it needs the compiler's types; this file is
its id, severity and documentation.
"""

from kite.diagnostics import Rule, Severity, Stage
from kite.rules.applicability import nodes_of
from kite.syntax import nodes as n

RULE = Rule(
    id="KT012",
    severity=Severity.ERROR,
    summary="`+` on str joins two strings only: a number, bool, none, list or record on the other side is an error",
    rationale=(
        "C# would spell the other value its own way: `\"done: \" + true` gives `True`, `+ none` nothing and "
        "`+ [1, 2]` a .NET type name, where Kite spells them true, none and [1, 2]. The answer would look right and be "
        "wrong, so the join is refused, on the compiler's types, for every expression and for `+=`."
    ),
    example='print("done: " + finished)',
    fix='print(f"done: {finished}")',
    reported_by=frozenset({Stage.ANALYZER}),
)


judges_fragments = True


def applies(module):
    """A `+` or `+=`: only they can join a string to something else."""
    return any(
        (isinstance(node, n.Binary) and node.op == "+") or (isinstance(node, n.Assign) and node.op == "+=")
        for node in nodes_of(module)
    )
