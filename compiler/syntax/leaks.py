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
    "class": "",  # a declaration word only before a name (`class Point`), not `let class`
    "struct": "",
    "interface": "",
    "using": "use",
}
# C#'s (and .NET's) type words, read as the Kite type each stands for, so nothing cascades from one (LANGUAGE.md
# section 12). A leak only where a type is written (`x: string`, `-> decimal`, `list<long>`): as a name, `string` or
# `object` is the program's. `object` and `dynamic` stand for no Kite type: read as C#'s, with no fix.
CSHARP_TYPES = {
    "string": "str", "String": "str", "decimal": "dec", "Decimal": "dec", "double": "dec", "Double": "dec",
    "float": "dec", "Single": "dec", "long": "int", "Int64": "int", "Int32": "int", "short": "int", "Int16": "int",
    "byte": "int", "sbyte": "int", "uint": "int", "ulong": "int", "ushort": "int", "Boolean": "bool", "Char": "char",
    "object": "System.Object", "dynamic": "dynamic",
}
# What each of Kite's own types is, for a message naming the one a C# type word stands for.
KITE_TYPES = {"int": "integer", "dec": "decimal", "str": "string", "bool": "boolean", "char": "character"}
# C#'s delegate types, a leak where a type is written: Kite's function types are fn(int) -> int and fn(str).
DELEGATES = ("Func", "Action")
TYPE_OPENER = re.compile(r"\b(?:list|map|set|Func|Action)[ \t]*<$|\bfn[ \t]*\($")
# What to write instead of each C# word or symbol: the end of its KT004 message (LANGUAGE.md section 12).
ADVICE = {
    "&&": "write and", "||": "write or", "++": "write += 1", "--": "write -= 1", "//": "write # for a comment",
    ";": "a statement ends with its line", "{": "a block is its indentation", "}": "a block is its indentation",
    "else if": "write elif", '$"': 'write f"..."', "!": "write not", "var": "write let (let mut if it changes)",
    "new": "call the type: Item(...)", "null": "write none", "foreach": "write for x in xs",
    "public": "Kite has no access modifiers: leave it out", "private": "Kite has no access modifiers: leave it out",
    "protected": "Kite has no access modifiers: leave it out", "internal": "Kite has no access modifiers: leave it out",
    "static": "every fn is a module function: leave it out", "void": "a fn without -> T returns nothing: leave it out",
    "class": "write type Name with a field on each line", "struct": "write type Name with a field on each line",
    "interface": "Kite has no interfaces: write type Name with a field on each line", "using": "write use",
    "object": "Kite has no type of every value: write the value's own type",
    "dynamic": "Kite has no dynamic: write the value's own type", "nameof": 'write the name as a string: "price"',
}
# C#'s modifiers are a leak only as modifiers, before another word (`private int count`): as a name
# (`let private = 1`, `repo.private`, `private: bool`) they are the program's.
MODIFIERS = {"public", "private", "protected", "internal", "static"}
# Words that are a leak only before another word: the modifiers, and the declarations (`class Point`, not `let class`).
BEFORE_A_WORD = MODIFIERS | {"class", "struct", "interface"}
MODIFYING = re.compile(r"[ \t]+(?!(?:and|or|in)\b)[A-Za-z_]")
DECLARATION_WORDS = BEFORE_A_WORD | {"void"}
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
# Each alternative starts with one literal character, so the regex engine tries a match only where the character is
# one of their first characters; a class such as [;{}&|$] among them made it try every position (a search cost half
# again as much).
SUSPECT_SYMBOLS = r";|\{|\}|&|\||\$|!(?!=)|\+\+|--|//"
SUSPECT_WORDS = (*LEAKED_WORDS, *CSHARP_TYPES, *DELEGATES, *LEAKED_CALLS, *PYTHON_WORDS, r"else[ \t]+if")


def _at_word_starts(words) -> str:
    """`\b(?:word|...)\b`, written as each first letter, then the word start checked behind it, then the rest: the
    same matches, but the regex engine skips a position whose character starts no word (the search over every text
    was a twentieth of a cold parse)."""
    by_first: dict[str, list[str]] = {}
    for word in words:
        by_first.setdefault(word[0], []).append(word[1:])
    return "|".join(f"{re.escape(first)}(?<!\\w.)(?:{'|'.join(rests)})\\b" for first, rests in by_first.items())


# A line without any of these cannot leak: most lines skip the character scan. Not `!=` nor an `else` without `if`
# (scan_line reports neither): they were three quarters of the lines scanned in answers.
SUSPECT = re.compile(f"{SUSPECT_SYMBOLS}|{_at_word_starts(SUSPECT_WORDS)}")
SUSPECT_SYMBOL = re.compile(SUSPECT_SYMBOLS)
SUSPECT_NAMES = frozenset(word for word in SUSPECT_WORDS if word.isidentifier())  # all but `else if`
# Each ASCII character that is no word character, as a space: the split() of an ASCII text is then its words.
WORD_SEPARATORS = str.maketrans({chr(code): " " for code in range(128) if not re.match(r"\w", chr(code))})
CALLED = re.compile(r"[ \t]*\(")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ELSE_IF = re.compile(r"else[ \t]+if\b")
FOREACH_HEADER = re.compile(r"for\s*\(\s*(?:let\s+|[A-Za-z_][\w<>,? ]*\s+)?([A-Za-z_]\w*)\s+in\s+(.*)\)\s*$")


def leaked_tokens() -> list[str]:
    """Everything the scan reports, as KT004 names it."""
    symbols = [symbol for symbol, _ in LEAKED_SYMBOLS]
    return [*symbols, *CHECKED_LEAKS, *LEAKED_WORDS, *CSHARP_TYPES, *(f"{name}<...>" for name in DELEGATES),
            *(f"{call}(...)" for call in LEAKED_CALLS), *PYTHON_SPELLINGS]


def kite_spelling(token: str) -> str | None:
    """What a leaked word or symbol is in Kite, where recovery reads it as one Kite word or symbol (not `public`,
    which recovery drops, nor `object`, which it keeps)."""
    if token.startswith(DELEGATES):
        return function_type(token)
    if token in CSHARP_TYPES:
        return CSHARP_TYPES[token] if CSHARP_TYPES[token] in KITE_TYPES else None
    spelled = {**LEAKED_WORDS, **CSHARP_TYPES, **dict(LEAKED_SYMBOLS), **CHECKED_LEAKS, **PYTHON_SPELLINGS}.get(token, "").strip()
    return spelled if spelled and spelled != token else None


def function_type(delegate: str) -> str:
    """Kite's spelling of a C# delegate type as written (`Func<int, string>` is `fn(int) -> str`)."""
    name, _, inside = delegate.partition("<")
    parts = [
        function_type(part) if part.startswith(DELEGATES) else WORD.sub(lambda m: CSHARP_TYPES.get(m.group(), m.group()), part)
        for part in _top_level_parts(inside[:-1])
    ]
    if name == "Func" and parts:
        return f"fn({', '.join(parts[:-1])}) -> {parts[-1]}"
    return f"fn({', '.join(parts)})"


def _top_level_parts(text: str) -> list[str]:
    """`text` split at the commas outside its brackets."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(text):
        if char in "<(":
            depth += 1
        elif (char == ">" and text[at - 1:at] != "-") or char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:at].strip())
            start = at + 1
    return [part for part in (*parts, text[start:].strip()) if part]


def _closing_angle(line: str, opening: int) -> int | None:
    """Index of the `>` that closes the `<` at `opening` (`->` is no bracket)."""
    depth = 0
    for at in range(opening, len(line)):
        char = line[at]
        if char in "<(":
            depth += 1
        elif (char == ">" and line[at - 1] != "-") or char == ")":
            depth -= 1
            if depth == 0:
                return at if char == ">" else None
    return None


def in_type_position(line: str, index: int) -> bool:
    """Whether a word at `index` is where a type is written: after `:` or `->`, or directly inside the brackets of a
    type (`list<`, `map<str, `, `Func<`, a function type's `fn(`), not where a name or a value is."""
    before = line[:index].rstrip(" \t")
    if before.endswith("->") or (before.endswith(":") and not before.endswith("::")):
        return True
    if not before.endswith(("<", "(", ",")):
        return False
    depth = 0
    for at in range(len(before) - 1, -1, -1):
        char = before[at]
        if (char == ">" and before[at - 1:at] != "-") or char in ")]":
            depth += 1
        elif char in "<([":
            if depth:
                depth -= 1
                continue
            opener = TYPE_OPENER.search(before, 0, at + 1)
            return opener is not None and (char == "<" or in_type_position(line, opener.start()))
    return False


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
            elif word in CSHARP_TYPES and in_type_position(line, index):
                leaks.append(Leak(number, index + 1, word, index + len(word) + 1))
                out.append(CSHARP_TYPES[word])
                index += len(word)
            elif word in DELEGATES and in_type_position(line, index):
                opening = line.find("<", index + len(word))
                closing = _closing_angle(line, opening) if opening >= 0 and not line[index + len(word):opening].strip() else None
                end = closing + 1 if closing is not None else index + len(word)
                written = " ".join(line[index:end].split()).replace("< ", "<").replace(" >", ">")
                leaks.append(Leak(number, index + 1, written, end + 1))
                out.append(function_type(written))  # one leak: the spelling it names writes its parameters' types too
                index = end
            elif word in LEAKED_CALLS and CALLED.match(line, index + len(word)):
                leaks.append(Leak(number, index + 1, word, index + len(word) + 1))
                out.append(LEAKED_CALLS[word])
                index += len(word)
            elif word in BEFORE_A_WORD and not _modifies(line, index, word):
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


def _suspect_search(text: str):
    """SUSPECT's search, or, for an ASCII text none of whose words is one of SUSPECT's (most texts), the search for
    its symbols alone: the same matches, for a fraction of the cost (the words' alternatives are tried at most letters).
    Not for other text: a non-ASCII character may stand between words where the split sees none."""
    if text.isascii() and SUSPECT_NAMES.isdisjoint(text.translate(WORD_SEPARATORS).split()) and ELSE_IF.search(text) is None:
        return SUSPECT_SYMBOL.search
    return SUSPECT.search


def scan(text: str) -> LeakScan:
    """Only the lines SUSPECT finds something on are scanned; it is searched for over the whole text (no match runs
    over a line end), so a file without one, most of them, costs one search."""
    leaks: list[Leak] = []
    pieces: list[str] = []
    done, number = 0, 1  # text[:done] is in pieces; `number` is the line at `done`
    search = _suspect_search(text)
    while (suspect := search(text, done)) is not None:
        start = text.rfind("\n", done, suspect.start()) + 1 or done
        end = text.find("\n", suspect.start())
        end = len(text) if end < 0 else end
        number += text.count("\n", done, start)
        line = text[start:end]
        found, recovered = scan_line(number, line)
        leaks.extend(found)
        pieces.append(text[done:start])
        pieces.append(recovered.rstrip() if found else line)
        done = end
    pieces.append(text[done:])
    return LeakScan(tuple(leaks), "".join(pieces))
