"""Where a string, char or f-string literal ends on a line: one reading for the leak scan, layout and parser.

An f-string hole may hold string and char literals (`f"{join(names, ", ")}"`, `f"{'{'}"`), so their quotes and
braces do not end the f-string or the hole. This reads exactly what grammar/kite.lark's FSTRING reads: a hole is
`{`, then string or char literals or anything but `"`, `'`, `{`, `}`, then `}`; a brace that opens no such hole is
text (the parser reports it).
"""

from __future__ import annotations


def quoted_end(line: str, start: int, quote: str) -> int:
    """Index just past the literal that opens at `start` (or the end of the line if it never closes)."""
    index = start + 1
    while index < len(line):
        if line[index] == "\\":
            index += 2
        elif line[index] == quote:
            return index + 1
        else:
            index += 1
    return len(line)


def hole_end(text: str, start: int) -> int | None:
    """Index of the `}` closing the hole whose `{` is at `start`, or None when it opens no hole."""
    index = start + 1
    while index < len(text):
        char = text[index]
        if char in "\"'":
            index = quoted_end(text, index, char)  # one never closed runs to the end: no hole
        elif char in "{\n":
            return None
        elif char == "}":
            return index
        else:
            index += 1
    return None


def fstring_end(line: str, start: int) -> int:
    """Index just past the f-string whose `f` is at `start` (or the end of the line if it never closes)."""
    index = start + 2
    while index < len(line):
        char = line[index]
        if char == "\\":
            index += 2
        elif char == '"':
            return index + 1
        elif char == "{":
            end = hole_end(line, index)
            index = index + 1 if end is None else end + 1
        else:
            index += 1
    return len(line)
