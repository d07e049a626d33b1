"""Other languages' statement words, in one place: the layout pass and the parser's messages read them from here.
(C#'s own words that leak into Kite are in leaks.py, with how recovery reads each; C#'s reserved words, which a
Kite name is escaped from, in codegen/types.py.)"""

from __future__ import annotations

import re

# A statement of another language at the start of a line: whose habit it is, and what to write in Kite instead. The
# message is "'def' is Python: write fn" (LANGUAGE.md section 12: messages say what to write). rules.HABITS lists
# these with KT004's leaks; docs/rules.md prints them, and tests/habits/ holds a fixture for each.
STATEMENT_HABITS: dict[str, tuple[str, str]] = {
    "def": ("Python", "write fn"),
    "function": ("JavaScript", "write fn"),
    "func": ("Go", "write fn"),
    "lambda": ("Python", "write a lambda as fn(x) => x * 2"),
    "elsif": ("Ruby", "write elif"),
    "elseif": ("PHP", "write elif"),
    "const": ("C#", "write let"),
    "switch": ("C#", "Kite has no switch: write if and elif"),
    "match": ("Python", "Kite has no match: write if and elif"),
    "case": ("C#", "Kite has no case: write if and elif"),
    "default": ("C#", "Kite has no switch default: write else"),
    "try": ("C#", "Kite has no exceptions: test the value before you use it"),
    "catch": ("C#", "Kite has no exceptions: test the value before you use it"),
    "finally": ("C#", "Kite has no exceptions: write the statements after the block"),
    "throw": ("C#", "Kite has no exceptions: return a value that says what went wrong (an int? can be none)"),
    "raise": ("Python", "Kite has no exceptions: return a value that says what went wrong (an int? can be none)"),
    "except": ("Python", "Kite has no exceptions: test the value before you use it"),
    "assert": ("Python", "write expect inside a test block"),
    "do": ("C#", "write while cond"),
    "repeat": ("Swift", "write while cond"),
    "loop": ("Rust", "write while true"),
    "until": ("Ruby", "write while not cond"),
    "unless": ("Ruby", "write if not cond"),
    "with": ("Python", "Kite has no with: write the statements as they are"),
    "import": ("Python", "the standard library is always in scope; write use System.Text for a .NET namespace"),
    "from": ("Python", "the standard library is always in scope; write use System.Text for a .NET namespace"),
    "goto": ("C#", "Kite has no goto: write while, break or continue"),
    "end": ("Ruby", "a block ends where its indentation does: remove the line"),
    "then": ("Lua", "write the condition alone on the if line"),
    "yield": ("Python", "Kite has no generators: build a list and return it"),
    "async": ("C#", "Kite has no async: write a plain fn"),
    "await": ("C#", "Kite has no async: call the function"),
    "del": ("Python", "Kite has no del: remove from a list or map with its .NET method (xs.RemoveAt(0))"),
    "global": ("Python", "Kite has no global: pass the value as a parameter or read a module constant"),
    "nonlocal": ("Python", "Kite has no nonlocal: return the new value"),
}
# Statements of other languages that open a block of their own: the deeper lines after one are its body, so only
# the statement is reported (by the parser), not an "unexpected indent". C#'s `class`, `struct` and `interface` leak
# in (KT004, leaks.py), read as `type`.
BLOCK_STATEMENTS = frozenset({
    "switch", "try", "catch", "finally", "except", "do", "match", "loop", "def", "with", "case", "default", "repeat",
    "unless", "until", "function", "func", "elsif", "elseif",
})
NOT_KITE_STATEMENTS = frozenset(STATEMENT_HABITS)
# Another language's operator where the parser finds it unexpected inside an expression (C#'s ternary, a lambda
# without fn), with what to write: "'?' is C#: Kite has no ternary ?: ...".
EXPRESSION_HABITS: dict[str, tuple[str, str]] = {
    "?": ("C#", "Kite has no ternary ?:, write if cond with a return (or an assignment) in each branch"),
    "=>": ("C#", "write a lambda as fn(x) => x * 2"),
}
# Those with a Kite spelling of their own: the fix writes it (and drops the ':' its header may end with).
KITE_SPELLINGS = {"def": "fn", "function": "fn", "func": "fn", "elsif": "elif", "elseif": "elif", "const": "let"}
BLOCK_STATEMENT = re.compile(r"(?:" + "|".join(sorted(BLOCK_STATEMENTS)) + r")\b")


def statement_message(word: str) -> str:
    language, advice = {**STATEMENT_HABITS, **EXPRESSION_HABITS}[word]
    return f"'{word}' is {language}: {advice}"
