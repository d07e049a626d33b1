"""KT000 and KT004, the rules the syntax stage reports while it reads the text: declared here, below the rules
package, because the syntax stage makes their diagnostics (compiler/rules/kt000_syntax.py and kt004_csharp_leak.py
are still each rule's file: they add what the other stages report, and where the rule applies)."""

import re
from dataclasses import dataclass

from kite.diagnostics import Rule, Severity, Stage
from kite.syntax import foreign, leaks

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
    if token.startswith(leaks.DELEGATES):
        return f"'{token}' is C#: write {leaks.function_type(token)}"
    kite_type = leaks.CSHARP_TYPES.get(token)
    if kite_type in leaks.KITE_TYPES:
        return f"'{token}' is C#: Kite's {leaks.KITE_TYPES[kite_type]} type is {kite_type}"
    if token in leaks.PYTHON_SPELLINGS:
        return f"'{token}' is Python: write {leaks.PYTHON_SPELLINGS[token]}"
    return f"'{token}' is C#, not Kite"


@dataclass(frozen=True)
class Habit:
    """A habit of another language that Kite names (LANGUAGE.md section 12): a row of docs/rules.md's table, with a
    fixture `tests/habits/<slug>.kite` whose check says `message`."""

    rule: str
    written: str
    language: str
    message: str
    write: str  # what to write instead: in the message, or (C#'s words, whose message is the seed's) beside it

    @property
    def slug(self) -> str:
        spelled = "".join(SYMBOL_NAMES.get(char, char) for char in self.written.replace("<...>", "").replace("(...)", ""))
        return "_".join(re.findall(r"\w+", spelled))


# C#'s words keep the seed's message (`'var' is C#, not Kite`, LANGUAGE.md section 9); the table says what to write.
# A leak the table names by its shape, and the one its fixture writes.
HABIT_EXAMPLES = {"Func<...>": "Func<int, bool>", "Action<...>": "Action<string>", "nameof(...)": "nameof"}
SYMBOL_NAMES = {"&": "and ", "|": "or ", "+": "plus ", "-": "minus ", "/": "slash ", ";": "semicolon", "{": "open brace",
                "}": "close brace", "$": "dollar ", '"': "string", "!": "bang", " ": " ", "?": "ternary", "=": "lambda ", ">": "arrow"}


def habits() -> list[Habit]:
    """Every habit of Python, C# and their neighbours that Kite reports, with the message it gets."""
    found = [Habit(SYNTAX.id, word, language, foreign.statement_message(word), advice)
             for word, (language, advice) in {**foreign.STATEMENT_HABITS, **foreign.EXPRESSION_HABITS}.items()]
    for token in leaks.leaked_tokens():
        message = leak_message(HABIT_EXAMPLES.get(token, token))
        advice = leaks.ADVICE.get(token.removesuffix("(...)")) or message.split(": ", 1)[-1]
        found.append(Habit(CSHARP_LEAK.id, token, "Python" if token in leaks.PYTHON_SPELLINGS else "C#", message, advice))
    return found
