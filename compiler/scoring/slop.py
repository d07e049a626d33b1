"""Slop phrases in prose, by category of the slop taxonomy, from a list kept as data (data/slop.toml).

Run on the prose of an answer (code blanked), every hit's span points into the answer. A clean result means no
known phrase was found; it does not mean the prose has no slop.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources

# What may stand between the start of a sentence and an opener: white space and markdown's markers.
SENTENCE_START = re.compile(r"(?:^|[.!?:]|\n)[\s>*_#+-]*\Z")
OPENER_LOOKBACK = 40


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
    """A phrase as a regular expression: word boundaries at word edges, any white space, either apostrophe."""
    words = [re.escape(word).replace("'", "['’]") for word in phrase.split()]
    body = r"\s+".join(words)
    head = r"\b" if phrase[0].isalnum() else ""
    tail = r"\b" if phrase[-1].isalnum() else ""
    return head + body + tail


@functools.cache
def categories() -> tuple[Category, ...]:
    data = tomllib.loads((resources.files("kite.scoring") / "data" / "slop.toml").read_text(encoding="utf-8"))
    found = []
    for entry in data["category"]:
        # Longest first: where two phrases start at the same place, the hit is the longer one.
        alternatives = [phrase_pattern(p) for p in sorted(entry["phrases"], key=len, reverse=True)] + entry["patterns"]
        found.append(Category(entry["name"], entry["sentence_start"], re.compile("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE)))
    return tuple(found)


def slop(prose: str) -> list[SlopHit]:
    hits: list[SlopHit] = []
    for category in categories():
        for match in category.pattern.finditer(prose):
            if match.start() == match.end():
                continue
            if category.sentence_start and not SENTENCE_START.search(prose, max(0, match.start() - OPENER_LOOKBACK), match.start()):
                continue
            hits.append(SlopHit(category.name, match.group(), match.start(), match.end()))
    hits.sort(key=lambda hit: (hit.start, -hit.end))
    kept: list[SlopHit] = []
    reach = 0  # the end of the furthest-reaching hit kept: a hit ending before it lies inside one already counted
    for hit in hits:
        if hit.end > reach:
            kept.append(hit)
            reach = hit.end
    return kept
