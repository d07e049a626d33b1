"""KT004: C# written into Kite, found on raw lines (so it works where nothing parses), then recovered.

The scan skips strings, char literals and comments. Every leaked token is reported once, in column
order; the recovered text reads it as the Kite the writer meant (`var` as `let`, `&&` as `and`, ...)
so that the rest of the file parses and nothing cascades from the leak.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from kite.syntax.literals import fstring_end, hole_end, quoted_end

# C# words that are not Kite, and what recovery reads them as ("" drops the word).
LEAKED_WORDS = {
    "var": "let mut",  # C#'s var is mutable; KT002 is not reported on a leaked line
    "new": "",
    "null": "none",
    "foreach": "for",
    "public": "",
    "private": "",
    "protected": "",
    "internal": "",
    "static": "",
    "void": "",
    "class": "",
    "using": "use",
    # LANGUAGE.md section 11: C#'s type words (Kite's are str and dec; object and dynamic have none).
    "string": "str",
    "decimal": "dec",
    "object": "object",
    "dynamic": "dynamic",
}
# C#'s modifiers are a leak only as modifiers, before another word (`private int count`): as a name
# (`let private = 1`, `repo.private`, `private: bool`) they are the program's.
MODIFIERS = {"public", "private", "protected", "internal", "static"}
MODIFYING = re.compile(r"[ \t]+(?!(?:and|or|in)\b)[A-Za-z_]")
DECLARATION_WORDS = MODIFIERS | {"void", "class"}
# C# operators spelled as a call: a leak only when called (a variable may be named nameof), read as to_str.
LEAKED_CALLS = {"nameof": "to_str"}
# C# punctuation, longest first, with its recovery.
LEAKED_SYMBOLS = (
    ("&&", " and "),
    ("||", " or "),
    ("++", " += 1"),
    ("--", " -= 1"),
    ("//", "#"),
    (";", " "),
    ("{", " "),
    ("}", " "),
)
# Found by scan_line's own checks (they need more than a word or a symbol: what follows, what is around), and the
# Kite they are read as (`!` is `not`, or nothing after a value: decided there).
CHECKED_LEAKS = {"else if": "elif", '$"': 'f"', "!": "not"}
# Python's spellings of Kite's words (LANGUAGE.md section 12): a leak where a value is written, not where a name is
# declared (`enum Filter` may have a member `None`; `type True` is a type's name).
PYTHON_SPELLINGS = {"True": "true", "False": "false", "None": "none", "is None": "== none", "is not None": "!= none"}
PYTHON_WORDS = frozenset(word for word in PYTHON_SPELLINGS if " " not in word)
IS_NONE = re.compile(r"is[ \t]+(not[ \t]+)?None\b")
DECLARING = re.compile(r"(?:\b(?:type|enum|fn|let|mut|for)|\.)[ \t]*$")
# A line without any of these cannot leak: most lines skip the character scan.
SUSPECT = re.compile(r"[;{}&|!$]|\+\+|--|//|\b(?:" + "|".join([*LEAKED_WORDS, *LEAKED_CALLS, *PYTHON_WORDS]) + r"|else)\b")
CALLED = re.compile(r"[ \t]*\(")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ELSE_IF = re.compile(r"else[ \t]+if\b")
FOREACH_HEADER = re.compile(r"for\s*\(\s*(?:let\s+|[A-Za-z_][\w<>,? ]*\s+)?([A-Za-z_]\w*)\s+in\s+(.*)\)\s*$")


def leaked_tokens() -> list[str]:
    """Everything the scan reports, as KT004 names it."""
    symbols = [symbol for symbol, _ in LEAKED_SYMBOLS]
    return [*symbols, *CHECKED_LEAKS, *LEAKED_WORDS, *(f"{call}(...)" for call in LEAKED_CALLS), *PYTHON_SPELLINGS]


def kite_spelling(token: str) -> str | None:
    """What a leaked word or symbol is in Kite, where recovery reads it as one Kite word or symbol (not `public`,
    which recovery drops, nor `object`, which it keeps)."""
    spelled = {**LEAKED_WORDS, **dict(LEAKED_SYMBOLS), **CHECKED_LEAKS, **PYTHON_SPELLINGS}.get(token, "").strip()
    return spelled if spelled and spelled != token else None


def _python_word(line: str, index: int, word: str) -> bool:
    """`True`, `False` or `None` written as a value: not a whole line (an enum's member), not a name being declared
    or a member (`Answer.None`), not a parameter's or field's name."""
    return (
        word in PYTHON_WORDS and line.strip() != word and DECLARING.search(line, 0, index) is None
        and not line[index + len(word):].lstrip().startswith(":")
    )


@dataclass(frozen=True)
class Leak:
    line: int
    column: int  # 1-based
    token: str  # as reported: "else if" whatever the spaces between the words
    end_column: int  # just past the leaked text as written

    @property
    def end_line(self) -> int:
        return self.line


@dataclass(frozen=True)
class LeakScan:
    leaks: tuple[Leak, ...]
    recovered_text: str

    @property
    def leaked_lines(self) -> frozenset[int]:
        return frozenset(leak.line for leak in self.leaks)

    @property
    def declaration_lines(self) -> frozenset[int]:
        """Lines with a C# declaration word: the deeper lines after one are its body, not an unexpected indent."""
        return frozenset(leak.line for leak in self.leaks if leak.token in DECLARATION_WORDS)


def _modifies(line: str, index: int, word: str) -> bool:
    """The modifier at `index` modifies something (it is not a member's or a variable's name)."""
    return not line[:index].rstrip().endswith(".") and MODIFYING.match(line, index + len(word)) is not None


def scan_line(number: int, line: str) -> tuple[list[Leak], str]:
    leaks: list[Leak] = []
    out: list[str] = []
    index = 0
    while index < len(line):
        char = line[index]
        if char == "#":
            out.append(line[index:])
            break
        if char == '"' or (char in "f$" and line.startswith('"', index + 1)):
            if char == '"':
                end = quoted_end(line, index, '"')
                out.append(line[index:end])
                index = end
                continue
            end = fstring_end(line, index)
            if char == "$":  # C# interpolation: the same string as a Kite f-string
                leaks.append(Leak(number, index + 1, '$"', index + 3))
            hole_leaks, recovered = _scan_holes(number, line, index + 2, end)
            leaks.extend(hole_leaks)
            out.append('f"' + recovered)
            index = end
            continue
        if char == "'":
            end = quoted_end(line, index, "'")
            out.append(line[index:end])
            index = end
            continue
        word_match = WORD.match(line, index)
        if word_match:
            word = word_match.group()
            else_if = ELSE_IF.match(line, index) if word == "else" else None
            if else_if:
                leaks.append(Leak(number, index + 1, "else if", else_if.end() + 1))
                out.append("elif")
                index = else_if.end()
            elif word == "is" and (python_test := IS_NONE.match(line, index)):
                token = "is not None" if python_test.group(1) else "is None"
                leaks.append(Leak(number, index + 1, token, python_test.end() + 1))
                out.append(PYTHON_SPELLINGS[token])
                index = python_test.end()
            elif _python_word(line, index, word):
                leaks.append(Leak(number, index + 1, word, index + len(word) + 1))
                out.append(PYTHON_SPELLINGS[word])
                index += len(word)
            elif word in LEAKED_CALLS and CALLED.match(line, index + len(word)):
                leaks.append(Leak(number, index + 1, word, index + len(word) + 1))
                out.append(LEAKED_CALLS[word])
                index += len(word)
            elif word in MODIFIERS and not _modifies(line, index, word):
                out.append(word)
                index += len(word)
            elif word in LEAKED_WORDS:
                leaks.append(Leak(number, index + 1, word, index + len(word) + 1))
                out.append(LEAKED_WORDS[word])
                index += len(word)
            else:
                out.append(word)
                index += len(word)
            continue
        if char in "0123456789":
            # A number such as 1.5 or 1_000: copied whole so no word inside it is read as a leak.
            end = index
            while end < len(line) and (line[end].isalnum() or line[end] in "._"):
                end += 1
            out.append(line[index:end])
            index = end
            continue
        for symbol, replacement in LEAKED_SYMBOLS:
            if line.startswith(symbol, index):
                leaks.append(Leak(number, index + 1, symbol, index + len(symbol) + 1))
                if symbol == "//":
                    out.append("#" + line[index + 2:])
                    index = len(line)
                else:
                    out.append(replacement)
                    index += len(symbol)
                break
        else:
            if char == "!" and not line.startswith("!=", index):
                leaks.append(Leak(number, index + 1, "!", index + 2))
                # `!x` is `not x`; a trailing `!` (C#'s null-forgiving `x!`) just goes.
                follows = line[index + 1:index + 2]
                out.append("not " if (follows.isalnum() or follows in "_(") else "")
            else:
                out.append(char)
            index += 1
    recovered = "".join(out)
    if any(leak.token == "foreach" for leak in leaks):
        # foreach (var x in xs) -> for x in xs
        indent = recovered[: len(recovered) - len(recovered.lstrip())]
        header = FOREACH_HEADER.match(recovered.strip())
        if header:
            recovered = f"{indent}for {header.group(1)} in {header.group(2).strip()}"
    return leaks, recovered


def _scan_holes(number: int, line: str, start: int, end: int) -> tuple[list[Leak], str]:
    """The body of the f-string in line[start:end] with the code in its holes scanned and recovered like a line."""
    leaks: list[Leak] = []
    out: list[str] = []
    index = start
    while index < end:
        closing = hole_end(line, index) if line[index] == "{" else None
        if line[index] == "\\":
            out.append(line[index:index + 2])
            index += 2
        elif closing is None:
            out.append(line[index])
            index += 1
        else:
            found, recovered = scan_line(number, line[index + 1:closing])
            leaks.extend(dataclasses.replace(leak, column=leak.column + index + 1, end_column=leak.end_column + index + 1) for leak in found)
            out.append("{" + recovered + "}")
            index = closing + 1
    return leaks, "".join(out)


def scan(text: str) -> LeakScan:
    leaks: list[Leak] = []
    lines = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not SUSPECT.search(line):
            lines.append(line)
            continue
        found, recovered = scan_line(number, line)
        leaks.extend(found)
        lines.append(recovered.rstrip() if found else line)
    return LeakScan(tuple(leaks), "\n".join(lines))
