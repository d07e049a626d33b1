"""Slop phrases in prose, by category of the slop taxonomy, from a list kept as data (data/slop.toml).

Run on the prose of an answer (code blanked), every hit's span points into the answer. A clean result means no
known phrase was found; it does not mean the prose has no slop.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from kite.scoring.matching import data, fold, word_matches

# What may stand between the start of a sentence and an opener: white space and markdown's markers.
SENTENCE_START = re.compile(r"(?:^|[.!?:]|\n)[\s>*_#+-]*\Z")
OPENER_LOOKBACK = 40
# What a clean result means, said wherever one is shown (the seed's own caveat).
CLEAN_MEANS = "a clean result means no known phrase was found, not that the text has no slop"


@dataclass(frozen=True)
class SlopHit:
    category: str  # filler opener, fake importance, hedging, wrap-up, rhythm trick
    phrase: str
    start: int
    end: int


@dataclass(frozen=True)
class Category:
    name: str
    sentence_start: bool
    pattern: re.Pattern


def phrase_pattern(phrase: str) -> str:
    """A lower-case phrase as a regular expression: any white space between words, either apostrophe, a word boundary
    after a last word character (the start of a word is checked by word_matches)."""
    words = [re.escape(word).replace("'", "['’]") for word in phrase.lower().split()]
    return r"\s+".join(words) + (r"\b" if phrase[-1].isalnum() else "")


@functools.cache
def categories() -> tuple[Category, ...]:
    found = []
    for entry in data("slop.toml")["category"]:
        # Longest first: where two phrases start at the same place, the hit is the longer one.
        alternatives = [phrase_pattern(p) for p in sorted(entry["phrases"], key=len, reverse=True)] + entry["patterns"]
        found.append(Category(entry["name"], entry["sentence_start"], re.compile("|".join(f"(?:{a})" for a in alternatives))))
    return tuple(found)


def slop(prose: str) -> list[SlopHit]:
    hits: list[SlopHit] = []
    folded = fold(prose)
    for category in categories():
        spans: list[list[int]] = []
        for start, end, _ in word_matches(category.pattern, folded, overlapping=True):
            if category.sentence_start and not SENTENCE_START.search(prose, max(0, start - OPENER_LOOKBACK), start):
                continue
            if spans and start < spans[-1][1]:  # "I hope this" and "hope this helps": one stretch of slop
                spans[-1][1] = max(spans[-1][1], end)
            else:
                spans.append([start, end])
        hits += [SlopHit(category.name, prose[start:end], start, end) for start, end in spans]
    hits.sort(key=lambda hit: (hit.start, -hit.end))
    kept: list[SlopHit] = []
    reach = 0  # the end of the furthest-reaching hit kept: a hit ending before it lies inside one already counted
    for hit in hits:
        if hit.end > reach:
            kept.append(hit)
            reach = hit.end
    return kept


@dataclass(frozen=True)
class ProseReport:
    """`kite prose` on one file: its text (line ends read as LF) and the slop hits in its prose."""

    path: str
    text: str
    hits: tuple[SlopHit, ...]

    def line_column(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) of an offset into the text."""
        line_start = self.text.rfind("\n", 0, offset) + 1
        return self.text.count("\n", 0, offset) + 1, offset - line_start + 1

    def by_category(self) -> dict[str, int]:
        counts = {category.name: 0 for category in categories()}
        for hit in self.hits:
            counts[hit.category] += 1
        return counts
