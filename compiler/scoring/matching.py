"""Patterns kept as data, matched fast on prose that cannot hide words from them.

Python's `re` scans quickly for a pattern that begins with a literal or a small set of first characters, but not for
one that begins with `\\b` or that is compiled case-insensitive: then it tries the whole pattern at every position,
which costs tenfold. So the prose is folded once (lower case), the patterns are written in lower case without a
leading `\\b`, and a match that begins inside a word is skipped here.

Folding also undoes what would hide a phrase from a pattern while a reader still sees it: emphasis inside it
(`passes **all** the tests`), fullwidth letters, Cyrillic and Greek letters that look Latin, and invisible characters
inside a word (`com\\u200bpiles`). Every match is given back as a span of the prose as written.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import resources

_LOOK_LATIN = {  # Cyrillic and Greek letters drawn like Latin ones
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y",
    "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w",
    "А": "a", "В": "b", "Е": "e", "К": "k", "М": "m", "Н": "h", "О": "o", "Р": "p", "С": "c", "Т": "t", "У": "y",
    "Х": "x", "І": "i", "Ј": "j", "Ѕ": "s",
    "ο": "o", "ι": "i", "κ": "k", "ν": "v", "ρ": "p", "υ": "u", "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h",
    "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x",
}
_FOLDED = str.maketrans({
    **{chr(code): chr(code).lower() for code in range(ord("A"), ord("Z") + 1)},
    **{chr(0xFF01 + i): chr(0x21 + i).lower() for i in range(94)},  # fullwidth ASCII
    **_LOOK_LATIN,
    "*": " ",  # emphasis reads as space
})
# Characters no one sees, so none may split a word: every format character (Unicode category Cf: zero-width space
# and joiners, direction marks, invisible operators, the BOM, tags), every default-ignorable code point (the soft
# hyphen, the combining grapheme joiner, Hangul fillers, variation selectors, Mongolian selectors, the tag and
# variation-selector planes), and the controls that are no line end or tab. tests/test_scoring_claims.py holds this
# class to Python's unicodedata and to Unicode's Default_Ignorable_Code_Point list.
INVISIBLE = re.compile(
    "[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff"
    "\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)


@dataclass(frozen=True)
class Folded:
    text: str  # the prose folded, invisible characters taken out
    positions: tuple[int, ...] | None  # where each character of `text` is in the prose; None when nothing was taken out

    def span(self, start: int, end: int) -> tuple[int, int]:
        """A span of `text` as a span of the prose."""
        if self.positions is None:
            return start, end
        return self.positions[start], self.positions[end - 1] + 1


def fold(prose: str) -> Folded:
    folded = prose.translate(_FOLDED)
    if not INVISIBLE.search(folded):
        return Folded(folded, None)
    positions = tuple(index for index, character in enumerate(folded) if not INVISIBLE.match(character))
    return Folded(INVISIBLE.sub("", folded), positions)


def data(name: str) -> dict:
    return tomllib.loads((resources.files("kite.scoring") / "data" / name).read_text(encoding="utf-8"))


def word_matches(pattern: re.Pattern, folded: Folded, overlapping: bool = False):
    """(start, end, match) in the prose for every match of `pattern` in the folded text that begins at the start of a
    word (or on a non-word character); with `overlapping`, also those that begin inside an earlier match."""
    text, position = folded.text, 0
    while (match := pattern.search(text, position)) is not None:
        start = match.start()
        inside_word = start > 0 and _is_word(text[start]) and _is_word(text[start - 1])
        if inside_word or match.end() == start:
            position = start + 1
            continue
        yield (*folded.span(start, match.end()), match)
        position = start + 1 if overlapping else match.end()


def _is_word(character: str) -> bool:
    return character.isalnum() or character == "_"
