"""KT006: a result thrown away, such as upper(name) on a line by itself."""

from kite.diagnostics import Severity
from kite.rules.applicability import has
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

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = False  # a teaching snippet's `upper(name)` shows a call, it does not throw a result away

# LANGUAGE.md section 7: everything but print is pure.
PURE_BUILTINS = frozenset(
    "len sum min max abs round upper lower trim split join contains starts_with ends_with replace range "
    "sorted reversed keys values to_str parse_int parse_dec".split()
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
                thrown_away = name in PURE_BUILTINS or name in facts.records or name[:1].isupper()
            if thrown_away:
                yield RULE.at(file, statement.line, statement.column, f"the result of {name}() is not used")
        elif not isinstance(expr, n.Call):
            yield RULE.at(file, statement.line, statement.column, "the value of this expression is not used")


def applies(module):
    """A call or a value on a line by itself."""
    return has(module, n.ExprStmt)
