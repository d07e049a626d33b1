"""KT000: the text is not Kite: bad indentation, a statement Kite doesn't have, anything that does not parse."""

from kite.diagnostics import Severity
from kite.rules.base import Rule

RULE = Rule(
    id="KT000",
    severity=Severity.ERROR,
    summary="syntax: bad indentation, a statement Kite doesn't have, anything that does not parse",
    rationale="Kite has one spelling for each construct; a program that does not parse cannot be graded further.",
    example="fn f()\n\tif x:\n        pass",
    fix="Indent with 4 spaces per level, write header lines without ':' and use only Kite statements.",
)


def check(module, facts, file):
    """The syntax problems only the analyzer sees (a parameter without a type, expect outside a test)."""
    for line, column, message in facts.misplaced:
        yield RULE.at(file, line, column, message)
