"""KT000 and KT004, the rules the syntax stage reports while it reads the text: declared here, below the rules
package, because the syntax stage makes their diagnostics (compiler/rules/kt000_syntax.py and kt004_csharp_leak.py
are still each rule's file: they add what the other stages report, and where the rule applies)."""

from kite.diagnostics import Rule, Severity, Stage
from kite.syntax import leaks

SYNTAX = Rule(
    id="KT000",
    severity=Severity.ERROR,
    summary="syntax: bad indentation, a statement Kite doesn't have, anything that does not parse",
    rationale="Kite has one spelling for each construct; a program that does not parse cannot be graded further.",
    example="fn f()\n\tif x:\n        pass",
    fix="Indent with 4 spaces per level, write header lines without ':' and use only Kite statements.",
    reported_by=frozenset({Stage.SYNTAX, Stage.AST, Stage.UNIT}),
)

CSHARP_LEAK = Rule(
    id="KT004",
    severity=Severity.ERROR,
    summary=f"another language written into Kite: {', '.join(leaks.leaked_tokens())}",
    rationale=(
        "The experiment measures whether a model writes Kite or falls back to a language it already knows. "
        "Every C# habit, and Python's spellings of Kite's words, is reported, even on lines that do not otherwise parse."
    ),
    example="var sum = a + b;",
    fix="let sum = a + b",
    reported_by=frozenset({Stage.SYNTAX}),
)


def leak_message(token: str) -> str:
    if token in leaks.PYTHON_SPELLINGS:
        return f"'{token}' is Python: write {leaks.PYTHON_SPELLINGS[token]}"
    return f"'{token}' is C#, not Kite"
