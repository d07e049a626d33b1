"""KT013: an int literal outside int's range."""

from kite.diagnostics import Rule, Severity, Stage
from kite.rules.applicability import nodes_of
from kite.syntax import nodes as n

RULE = Rule(
    id="KT013",
    severity=Severity.ERROR,
    summary="an int literal outside int's range (-2147483648 to 2147483647)",
    rationale=(
        "Kite's int is 32 bits and Kite has no long: C# would quietly make 3000000000 a long (or uint), so arithmetic "
        "and equality would no longer be int's. A literal that does not fit is a mistake (LANGUAGE.md section 11)."
    ),
    example="let population = 8000000000",
    fix="let population = 8000000000.0  (a dec), or keep the count in range",
    # The compiler's words for the same literal: too large for any integer, or a long or uint where an int goes.
    reported_by=frozenset({Stage.AST}),
    same_as=frozenset({"CS1021", "CS0029", "CS0266", "CS0652"}),  # CS0652: a comparison with the literal is "useless"
)

SMALLEST = -(2**31)
LARGEST = 2**31 - 1


def check(module, facts, file):
    negated = {id(node.operand): node for node in nodes_of(module) if isinstance(node, n.Unary) and node.op == "-"}
    for node in nodes_of(module):
        if isinstance(node, n.Literal) and node.kind == "int":
            value = node.int_value()
            minus = negated.get(id(node))  # -2147483648 fits: the minus is part of the number
            if value is None or not SMALLEST <= (-value if minus else value) <= LARGEST:
                written = "-" + node.text if minus else node.text
                yield RULE.on(file, minus or node, f"{written} is outside int's range ({SMALLEST} to {LARGEST}): Kite has no long")


judges_fragments = True


def applies(module):
    """An int literal: only it can be outside int's range."""
    return any(isinstance(node, n.Literal) and node.kind == "int" for node in nodes_of(module))
