"""KT001: changing a let, a parameter, a for loop variable or a field."""

from kite.diagnostics import Rule, Severity, Stage
from kite.rules.applicability import has
from kite.syntax import nodes as n

RULE = Rule(
    id="KT001",
    severity=Severity.ERROR,
    summary="assigning a let, a parameter, a for loop variable or a record field",
    rationale="A let promises the value never changes; readers and the grader rely on it. Mutation is declared with let mut.",
    example="let total = sum(xs)\ntotal = total + 1",
    fix="let mut total = sum(xs)",
    # C#'s own words for the same problem (readonly locals, init-only record properties).
    reported_by=frozenset({Stage.AST}),
    same_as=frozenset({"CS1656", "CS0191", "CS0198", "CS0200", "CS8852", "CS0131"}),
)

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = True

MESSAGES = {
    "let": "'{name}' cannot be changed: declare it with let mut",
    "const": "'{name}' is a module constant and cannot be changed",
    "param": "'{name}' is a parameter and cannot be changed: copy it into a let mut",
    "loop": "'{name}' is a for loop variable and cannot be changed: copy it into a let mut",
    "lambda": "'{name}' is a lambda parameter and cannot be changed",
    "field": "'{name}' is a field of {owner} and cannot be changed: make a new {owner}",
}


def check(module, facts, file):
    for assignment in facts.illegal_assignments:
        message = MESSAGES[assignment.kind].format(name=assignment.name, owner=assignment.owner)
        yield RULE.on(file, assignment.target, message)


def applies(module):
    """Only code that assigns something can assign what it must not."""
    return has(module, n.Assign)
