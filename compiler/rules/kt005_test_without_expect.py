"""KT005: a test with no expect can never fail."""

from kite.diagnostics import Rule, Severity, Stage
from kite.rules.applicability import has
from kite.syntax import nodes as n

RULE = Rule(
    id="KT005",
    severity=Severity.WARNING,
    summary="a test block with no expect",
    rationale="A test that asserts nothing always passes, so it proves nothing: a grader must not count it.",
    example='test "adds numbers"\n    add(1, 2)',
    fix='test "adds numbers"\n    expect add(1, 2) == 3',
    reported_by=frozenset({Stage.AST}),
)

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = True


def check(module, facts, file):
    for item in module.items:
        if isinstance(item, n.TestDecl) and not any(isinstance(s, n.Expect) for s in n.walk_statements(item.body)):
            yield RULE.on(file, item, f"test '{item.description}' checks nothing: add an expect")


def applies(module):
    return has(module, n.TestDecl)
