"""KT006: a result thrown away, such as upper(name) on a line by itself."""

from kite import standard_library
from kite.diagnostics import Severity
from kite.rules.base import Rule
from kite.syntax import nodes as n

RULE = Rule(
    id="KT006",
    severity=Severity.WARNING,
    summary="a call whose result is the whole point, or a bare value, used as a statement",
    rationale="Kite's standard library is pure: upper(name) alone changes nothing, so the line is a mistake or dead code.",
    example='upper(name)',
    fix='let shout = upper(name)',
    same_as=frozenset({"CA1806", "CS0201"}),
)



def check(module, facts, file):
    for statement in facts.discarded:
        expr = statement.expr
        if isinstance(expr, n.Call) and isinstance(expr.func, n.Name):
            name = expr.func.name
            user_fn = facts.functions.get(name)
            if user_fn is not None:
                thrown_away = user_fn.returns is not None
            else:
                thrown_away = name in standard_library.PURE or name in facts.records or name[:1].isupper()
            if thrown_away:
                yield RULE.at(file, statement.line, statement.column, f"the result of {name}() is not used")
        elif not isinstance(expr, n.Call):
            yield RULE.at(file, statement.line, statement.column, "the value of this expression is not used")
