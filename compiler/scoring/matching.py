"""Patterns kept as data, matched fast on prose: ASCII lower-cased text, and a word start checked in Python.

Python's `re` scans quickly for a pattern that begins with a literal or a small set of first characters, but not for
one that begins with `\\b` or that is compiled case-insensitive: then it tries the whole pattern at every position,
which costs tenfold. So the prose is folded once (ASCII lower case; the length, and so every offset, is kept), the
patterns are written in lower case without a leading `\\b`, and a match that begins inside a word is skipped here.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources

# Emphasis (`**all**`) reads as space, so "passes **all** the tests" is still "passes all the tests".
_FOLDED = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ*", "abcdefghijklmnopqrstuvwxyz ")


def fold(text: str) -> str:
    """ASCII lower case, emphasis as space: same length as `text`, so a span in one is the same span in the other."""
    return text.translate(_FOLDED)


def data(name: str) -> dict:
    return tomllib.loads((resources.files("kite.scoring") / "data" / name).read_text(encoding="utf-8"))


def word_matches(pattern: re.Pattern, folded: str, overlapping: bool = False):
    """Every match of `pattern` in `folded` that begins at the start of a word (or on a non-word character); with
    `overlapping`, also those that begin inside an earlier match."""
    position = 0
    while (match := pattern.search(folded, position)) is not None:
        start = match.start()
        inside_word = start > 0 and _is_word(folded[start]) and _is_word(folded[start - 1])
        if inside_word or match.end() == start:
            position = start + 1
            continue
        yield match
        position = start + 1 if overlapping else match.end()


def _is_word(character: str) -> bool:
    return character.isalnum() or character == "_"
