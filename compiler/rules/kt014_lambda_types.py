"""KT014: a lambda whose parameter types nothing tells, said in Kite's words instead of C#'s CS8917 / CS0748."""

from kite.diagnostics import Rule, Severity, Stage
from kite.rules.applicability import has
from kite.syntax import nodes as n

RULE = Rule(
    id="KT014",
    severity=Severity.ERROR,
    summary="a lambda with some parameters typed and some not, or an untyped parameter where nothing gives its type",
    rationale=(
        "A lambda passed to a method gets its parameter types from that method; one stored in a let has nothing to "
        "get them from, and a lambda cannot mix typed and untyped parameters. C# says both only in its own words "
        "(CS8917 'delegate type could not be inferred', CS0748 'inconsistent lambda parameter usage')."
    ),
    example="let add = fn(a: int, b) => a + b",
    fix="let add = fn(a: int, b: int) => a + b",
    reported_by=frozenset({Stage.AST}),
    same_as=frozenset({"CS8917", "CS0748"}),
)


def check(module, facts, file):
    stored = {id(value) for value in _let_values(module) if isinstance(value, n.Lambda)}
    for lambda_, _ in facts.lambdas:
        untyped = [p for p in lambda_.params if p.type is None]
        if untyped and len(untyped) < len(lambda_.params):
            yield RULE.on(file, lambda_, "give every parameter of this lambda a type, or none of them")
        elif untyped and id(lambda_) in stored:
            names = ", ".join(f"'{p.name}'" for p in untyped)
            typed = ", ".join(f"{p.name}: T" for p in lambda_.params)
            yield RULE.on(file, lambda_, f"nothing tells the type of {names} in a lambda stored in a let: write fn({typed}) => ...")


def _let_values(module):
    """The values of the lets without a declared type in functions and tests (an untyped module constant is already
    KT000: its type cannot be told)."""
    for item in module.items:
        if isinstance(item, (n.FnDecl, n.TestDecl)):
            yield from (s.value for s in n.walk_statements(item.body) if isinstance(s, n.Let) and s.type is None)


judges_fragments = True


def applies(module):
    return has(module, n.Lambda)
