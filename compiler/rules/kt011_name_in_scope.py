"""KT011: declaring a name that is still in scope."""

from kite.diagnostics import Related, Rule, Severity, Stage
from kite.rules.applicability import has
from kite.syntax import nodes as n

RULE = Rule(
    id="KT011",
    severity=Severity.ERROR,
    summary="a let or for variable named like a parameter or local that is still in scope",
    rationale=(
        "A name is free again when its block ends, but while it is in scope a second declaration would leave the "
        "reader guessing which one a line means. Use another name, or let mut and assign."
    ),
    example="let total = 0\nfor x in xs\n    let total = x",
    fix="let mut total = 0\nfor x in xs\n    total = x",
    # C#'s words for the same problem (a local declared twice in one scope or in a nested one).
    reported_by=frozenset({Stage.AST}),
    same_as=frozenset({"CS0128", "CS0136"}),
)

WHAT = {"let": "a let", "mut": "a let mut", "param": "a parameter", "loop": "a for loop variable", "lambda": "a lambda parameter"}


def check(module, facts, file):
    for binding, earlier in facts.redeclared:
        # Where the earlier one is goes in a related location: a line number in the message would make a
        # diagnostic that only moved a new one (kite.new_only keys by message).
        message = f"'{binding.name}' is already {WHAT[earlier.kind]}, still in scope: choose another name"
        yield RULE.on(file, binding.span, message, related=(Related(file, earlier.line, earlier.column, f"{WHAT[earlier.kind]} '{earlier.name}' is declared here"),))


judges_fragments = True


def applies(module):
    """Code that declares a local: a let, a for variable or a parameter can be declared again while still in scope."""
    return has(module, n.Let) or has(module, n.For) or has(module, n.FnDecl)
