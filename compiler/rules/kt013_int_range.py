"""KT013: an int literal outside int's range."""

from dataclasses import fields, is_dataclass

from kite.diagnostics import Severity
from kite.rules.base import Rule
from kite.syntax import nodes as n
from kite.rules.applicability import nodes_of

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
    same_as=frozenset({"CS1021", "CS0029", "CS0266"}),
)

SMALLEST = -(2**31)
LARGEST = 2**31 - 1


def check(module, facts, file):
    # Every node of the module, statements and expressions alike; iterative, as nesting can be deep.
    pending = [(module, False)]
    while pending:
        node, negated = pending.pop()
        if isinstance(node, n.Literal) and node.kind == "int":
            value = int(node.text.replace("_", ""))
            if not SMALLEST <= (-value if negated else value) <= LARGEST:
                written = "-" + node.text if negated else node.text
                yield RULE.at(file, node.line, node.column, f"{written} is outside int's range ({SMALLEST} to {LARGEST}): Kite has no long")
        elif is_dataclass(node):
            operand_negated = isinstance(node, n.Unary) and node.op == "-"
            pending.extend((getattr(node, field.name), operand_negated) for field in fields(node))
        elif isinstance(node, (tuple, list)):
            pending.extend((item, False) for item in node)


judges_fragments = True


def applies(module):
    """An int literal: only it can be outside int's range."""
    return any(isinstance(node, n.Literal) and node.kind == "int" for node in nodes_of(module))
