"""KT006: a result thrown away, such as upper(name) on a line by itself."""

from kite import standard_library
from kite.callee import constructs
from kite.diagnostics import Rule, Severity, Stage
from kite.rules.applicability import has
from kite.syntax import nodes as n

RULE = Rule(
    id="KT006",
    severity=Severity.WARNING,
    summary="a call whose result is the whole point, or a bare value, used as a statement",
    rationale="Kite's standard library is pure: upper(name) alone changes nothing, so the line is a mistake or dead code.",
    example='upper(name)',
    fix='let shout = upper(name)',
    reported_by=frozenset({Stage.AST}),
    same_as=frozenset({"CA1806", "CS0201"}),
)

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = False  # a teaching snippet's `upper(name)` shows a call, it does not throw a result away


def check(module, facts, file):
    for statement in facts.discarded:
        expr = statement.expr
        if isinstance(expr, n.Call) and isinstance(expr.func, n.Name):
            if _result_thrown_away(expr.func.name, statement.callee, facts):
                yield RULE.on(file, expr, f"the result of {expr.func.name}() is not used")
        elif not isinstance(expr, n.Call):
            yield RULE.on(file, expr, "the value of this expression is not used")


def _result_thrown_away(name, callee, facts) -> bool:
    """By what the name is: a pure standard-library function, a let-bound lambda that gives a value, a function with a
    result, or a construction. A lambda's body decides whether it gives one: `fn(x) => print(x)` gives nothing."""
    if name in standard_library.FUNCTIONS:
        return name in standard_library.PURE
    if callee is not None:
        return isinstance(callee.value, n.Lambda) and _gives_value(callee.value.body, facts)
    user_fn = facts.functions.get(name)
    if user_fn is not None:
        return user_fn.returns is not None
    return constructs(name, is_value=False, functions=facts.functions, types=facts.records)


def _gives_value(body, facts) -> bool:
    """A lambda body that is not a call gives a value; a call gives one when its own callee does (a name the lambda
    cannot see resolved is given the benefit of the doubt)."""
    if not isinstance(body, n.Call):
        return True
    if not isinstance(body.func, n.Name):
        return False
    name = body.func.name
    known = name in standard_library.FUNCTIONS or name in facts.functions or name in facts.records
    return known and _result_thrown_away(name, None, facts)


def applies(module):
    """A call or a value on a line by itself."""
    return has(module, n.ExprStmt)
