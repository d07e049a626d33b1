"""Which characters of a source line a diagnostic underlines: the same answer for the terminal's code frames and
the review page.

A diagnostic is a range (line, column to end_line, end_column; the end column just past the last character), a
point when its layer knows only where it starts, or a line when it knows no column. A point underlines the word (or
the one character) at its column. Every layer's columns are the Kite file's (the generated C#'s span #line markers
map Roslyn's and the analyzers')."""

from __future__ import annotations

import re
from dataclasses import dataclass

WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Underline:
    line: int  # 1-based
    start: int  # 0-based characters into the line
    end: int  # just past the last; start == end only on an empty line


def whole_line(text: str) -> tuple[int, int]:
    stripped = text.strip()
    if not stripped:
        return 0, 0
    start = len(text) - len(text.lstrip())
    return start, start + len(stripped)


def at_point(text: str, column: int) -> tuple[int, int]:
    """The word, or the one character, at a 1-based column; one past the end for a point after the line."""
    index = column - 1
    if index >= len(text):
        return len(text), len(text) + 1
    word = WORD.match(text, index)
    if word:
        return index, word.end()
    return index, index + 1


def underlines(lines: list[str], line: int, column: int, end_line: int, end_column: int) -> list[Underline]:
    """One underline per source line the diagnostic covers (lines: the file's lines, LF split)."""
    if not 1 <= line <= len(lines):
        return []
    text = lines[line - 1]
    if column <= 0:
        return [Underline(line, *whole_line(text))]
    if (end_line, end_column) <= (line, column):
        return [Underline(line, *at_point(text, column))]
    if end_line == line:
        return [Underline(line, column - 1, min(max(end_column - 1, column), len(text) + 1))]
    covered = [Underline(line, column - 1, max(len(text), column))]
    for number in range(line + 1, min(end_line, len(lines)) + 1):
        text = lines[number - 1]
        start = len(text) - len(text.lstrip())
        end = len(text) if number < end_line else min(end_column - 1, len(text))
        if end > start:
            covered.append(Underline(number, start, end))
    return covered
