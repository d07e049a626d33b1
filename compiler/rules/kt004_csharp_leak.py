"""KT004: another language (C#, or Python's spellings of Kite's words) written into Kite."""

from kite.diagnostics import Severity
from kite.rules.base import Rule
from kite.syntax import leaks

RULE = Rule(
    id="KT004",
    severity=Severity.ERROR,
    summary=f"another language written into Kite: {', '.join(leaks.leaked_tokens())}",
    rationale=(
        "The experiment measures whether a model writes Kite or falls back to a language it already knows. "
        "Every C# habit, and Python's spellings of Kite's words, is reported, even on lines that do not otherwise parse."
    ),
    example="var sum = a + b;",
    fix="let sum = a + b",
)

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = True


def message(token: str) -> str:
    if token in leaks.PYTHON_SPELLINGS:
        return f"'{token}' is Python: write {leaks.PYTHON_SPELLINGS[token]}"
    return f"'{token}' is C#, not Kite"


def applies(module):
    return True  # any code at all can be written in C#
