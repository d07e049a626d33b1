"""What to write instead of each C# habit the leak scan finds (KT004), as an edit of the line it was found on.

A fix is safe when the Kite it writes means what the C# meant, which is what recovery read the line as (leaks.py):
`kite check --fix` applies those. Where the Kite spelling could mean something else (`!a == b` is `(!a) == b` in C#,
`not a == b` is `not (a == b)` in Kite) the fix is offered by the language server only. Habits with no Kite spelling
of their own (`public`, `void`, `object`) have no fix.
"""

from __future__ import annotations

import re

from kite.diagnostics import Edit, Fix
from kite.syntax import leaks
from kite.syntax.layout import code_only

# Habits fixed by more than writing the Kite that recovery reads them as (leaks.kite_spelling).
OPERATORS = ("&&", "||")  # a word in Kite: blanks around it
STEP = {"++": "+=", "--": "-="}
DECIDED = {"var", "new", "!", "++", "--", ";", "{", "}", "foreach", "nameof", *OPERATORS}
TARGET = r"[A-Za-z_][\w.]*(?:\[[^\]]*\])?"
STEPPED = re.compile(rf"\s*(?:(?P<target>{TARGET})\s*(?P<after>\+\+|--)|(?P<before>\+\+|--)\s*(?P<prefixed>{TARGET}))\s*;?\s*$")
FOREACH_HEADER = re.compile(r"\s*(?:var\s+|[A-Za-z_][\w<>,? ]*?\s+)?([A-Za-z_]\w*)\s+in\s+(.+?)\s*$")
DOTTED = re.compile(r"\s*[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*\s*$")
# After the operand of `!`: an operator that binds tighter than Kite's `not` but looser than C#'s `!`.
LOOSER_THAN_NOT = re.compile(r"\s*(?:==|!=|<|>|\+|-|\*|/|%|in\b)")


def _replace(leak: leaks.Leak, start: int, end: int, text: str, title: str, safe: bool = True) -> Fix:
    """Columns are 0-based here, [start, end) of the leak's line."""
    return Fix(title, (Edit(leak.line, start + 1, leak.line, end + 1, text),), safe)


def _delete_line(leak: leaks.Leak, what: str) -> Fix:
    return Fix(f"Remove the line with '{what}'", (Edit(leak.line, 1, leak.line + 1, 1, ""),))


def _matching(code: str, opening: int) -> int | None:
    """Index of the bracket that closes the one at `opening` in `code` (literals blanked)."""
    depth = 0
    for index in range(opening, len(code)):
        if code[index] in "([{":
            depth += 1
        elif code[index] in ")]}":
            depth -= 1
            if not depth:
                return index
    return None


def fix(leak: leaks.Leak, line: str, assigned_again: bool = True) -> Fix | None:
    """The fix for `leak` on `line`, the line as written. `assigned_again`: for `var`, whether the variable is
    assigned after it is declared (`let mut`, as C#'s var is mutable) or never (`let`)."""
    token = leak.token
    start, end = leak.column - 1, leak.end_column - 1
    written = line[start:end]
    code = code_only(line, keep_columns=True)  # literals blanked, the comment cut
    code = code[:code.find("//")] if "//" in code else code  # C#'s comment, fixed on its own
    before, after = code[:start], code[end:]
    if token == "var":
        kite = "let mut" if assigned_again else "let"
        return _replace(leak, start, end, kite, f"Replace 'var' with '{kite}'")
    kite = leaks.kite_spelling(token) or ""
    if token not in DECIDED:
        return _replace(leak, start, end, kite, f"Replace '{written}' with '{kite}'") if kite else None
    if token == "new":
        spaces = len(after) - len(after.lstrip())
        return _replace(leak, start, end + spaces, "", "Remove 'new': calling a type makes one")
    if token in OPERATORS:
        text = ("" if before.endswith((" ", "\t")) else " ") + kite + ("" if after.startswith((" ", "\t")) else " ")
        return _replace(leak, start, end, text, f"Replace '{token}' with '{kite}'")
    if token == "!":
        previous, following = line[start - 1:start], after[:1]
        if (previous.isalnum() or previous in ("_", ")", "]")) and previous and not (following.isalnum() or following in ("_", "(")):
            return _replace(leak, start, end, "", "Remove '!'")  # C#'s x! (not none): Kite checks none itself
        length = _operand_length(after)
        if not after[:length].strip() or after.lstrip().startswith("!"):
            return None
        safe = LOOSER_THAN_NOT.match(after[length:]) is None
        return _replace(leak, start, end + len(after) - len(after.lstrip()), "not ", "Replace '!' with 'not'", safe)
    if token in STEP:
        stepped = STEPPED.match(code)
        if stepped is None:
            return None
        target = stepped.group("target") or stepped.group("prefixed")
        at = code.index(target, len(code) - len(code.lstrip()))
        return _replace(leak, min(start, at), max(end, at + len(target)), f"{target} {STEP[token]} 1", f"Replace '{token}' with '{STEP[token]} 1'")
    if token == ";":
        if not after.strip():
            return _replace(leak, len(before.rstrip()), end, "", "Remove ';'")
        if code[:start].count("(") + code[:start].count("[") > code[:start].count(")") + code[:start].count("]"):
            return None  # inside brackets: C#'s for (;;), which has no Kite spelling
        indent = line[: len(line) - len(line.lstrip())]
        next_code = end + len(after) - len(after.lstrip())
        return _replace(leak, len(before.rstrip()), next_code, "\n" + indent, "Put the statement after ';' on a line of its own")
    if token in ("{", "}"):
        if line.strip() == token:
            return _delete_line(leak, token)
        if not after.strip():  # the last code on its line: a header's brace, or a block's end after a statement
            return _replace(leak, len(before.rstrip()), end, "", f"Remove '{token}': blocks are indented")
        if token == "}" and not before.strip():  # the first: `} else {`
            spaces = len(after) - len(after.lstrip())
            return _replace(leak, start, end + spaces, "", "Remove '}': blocks are indented")
        return None
    if token == "foreach":
        opening = code.find("(", end)
        closing = _matching(code, opening) if opening >= 0 and not code[end:opening].strip() else None
        header = FOREACH_HEADER.match(line[opening + 1:closing]) if closing is not None else None
        if closing is None or header is None:
            return None
        kite = f"for {header.group(1)} in {header.group(2)}"
        return _replace(leak, start, closing + 1, kite, "Write the loop as Kite's for")
    if token == "nameof":
        opening = code.find("(", end)
        closing = _matching(code, opening) if opening >= 0 else None
        argument = line[opening + 1:closing] if closing is not None else ""
        if closing is None or not DOTTED.match(argument):
            return None
        name = argument.split(".")[-1].strip()
        return _replace(leak, start, closing + 1, f'"{name}"', f"Replace 'nameof({argument.strip()})' with \"{name}\"")
    return None


def _operand_length(text: str) -> int:
    """How much of `text` (code after a `!`) the `!` applies to in C#: a bracketed expression or a name or number,
    with the calls, indexes and members after it."""
    index = len(text) - len(text.lstrip())
    word = re.match(r"[A-Za-z_0-9]\w*", text[index:])
    if word:
        index += word.end()
    elif text[index:index + 1] in ("(", "["):
        closing = _matching(text, index)
        if closing is None:
            return len(text)
        index = closing + 1
    while index < len(text):
        if text[index] in "([":
            closing = _matching(text, index)
            if closing is None:
                return len(text)
            index = closing + 1
        elif text[index] == ".":
            member = re.match(r"\.\s*[A-Za-z_]\w*", text[index:])
            index += member.end() if member else 1
        else:
            break
    return index
