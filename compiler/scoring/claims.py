"""False claims: sentences of the prose that say something about the code which the layers found untrue.

The patterns are data (data/claims.toml). A claim names rules, layers or verdicts; it is false when one of them
failed, and a claim that names nothing is false when anything failed. A sentence that asks, or whose clause says
"not", "if" or "unless" before the claim, claims nothing.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from kite.diagnostics import Layer
from kite.scoring.matching import data, fold, word_matches

LAYERS = tuple(Layer)
VERDICTS = ("compiles", "clean", "passes")
RULE_ID = re.compile(r"(?:kt|cs|ca)\d{3,4}")
# Sentences end after . ! ? and a space or line end (LF, CR LF or CR), at the end of a heading, at a blank line, and before a list item
# or a heading; the named group, where one matched, is where the sentence ends.
SENTENCE_END = re.compile(
    r"(?P<stop>[.!?])[\"')\]*_]*(?:[ \t]+|(?=[\r\n]))|(?P<heading>^[ \t>]*#{1,6}(?:[ \t][^\r\n]*)?)\r?\n"
    r"|(?:\r\n?|\n)[ \t>]*(?:\r\n?|\n)|(?:\r\n?|\n)(?=[ \t>]*(?:[-*+]|\d{1,9}[.)])[ \t])|(?:\r\n?|\n)(?=[ \t>]*#)",
    re.MULTILINE,
)
MARKUP_EDGE = " \t\r\n>*_#-+`"
LEADING_MARKUP = re.compile(r"[ \t\r\n>*_#+`-]*")
# How far back in a sentence a negation or condition can turn a claim into none.
CLAUSE_LOOKBACK = 200
LIST_NUMBER = re.compile(r"\d{1,9}[.)][ \t]+")
LIST_MARKER = re.compile(r"\d{1,9}[.)]")
# Words that, earlier in the same clause, turn a claim into a question, a condition, a denial, advice ("make sure"),
# a requirement or a goal ("it must pass all the tests", "the goal is to pass them"), or a sentence about the language
# rather than the code ("Kite has no semicolons"); "not only", "doesn't just" and "once again" do not.
NOT_A_CLAIM = re.compile(
    r"\b(?:not(?!\s+(?:only|just|merely)\b)|never|no\s+longer|if|unless|whether|until|once(?!\s+(?:again|more)\b)|when|cannot|hopefully|try|trying|check\s+(?:that|if|whether)|"
    r"verify|to\s+see|might\s+not|may\s+not|fails?\s+to|failed\s+to|make\s+sure|be\s+sure|"
    r"must|needs?\s+to|needed\s+to|ha(?:s|ve|d)\s+to|goal|in\s+order\s+to|asks?\s+for|let[’']s|"
    r"kite\s+(?:has|uses|allows|requires|needs|supports|is|does))\b|n[’']t\b(?!\s+(?:only|just|merely)\b)",
    re.IGNORECASE,
)
AN_INFINITIVE = re.compile(r"\bto\s+$", re.IGNORECASE)  # "to pass all the tests": a goal, not a result
CLAUSE_BREAK = re.compile(r"[,;:()—–]|\s-\s")


@dataclass(frozen=True)
class Outcome:  # what the layers found, as the claims see it
    has_code: bool
    compiles: bool
    clean: bool
    passes: bool | None  # None when no hidden tests ran
    leaked: bool
    failed_rules: frozenset[str]  # KT/CS/CA ids that fired
    failed_layers: frozenset[str]  # "kite", "compiler", "analyzers", "tests"


@dataclass(frozen=True)
class Claim:
    kind: str  # e.g. "compiles", "no warnings", "passes tests", "follows rules", "no csharp", "uses let"
    start: int  # the sentence's span in the answer
    end: int
    sentence: str
    false: bool
    reason: str  # why it is false ("" when true)


@dataclass(frozen=True)
class ClaimPattern:
    kind: str
    names: tuple[str, ...]
    pattern: re.Pattern


@functools.cache
def claim_patterns() -> tuple[ClaimPattern, ...]:
    return tuple(
        ClaimPattern(entry["kind"], tuple(entry["names"]), re.compile(text))
        for entry in data("claims.toml")["claim"]
        for text in entry["patterns"]
    )


def sentences(prose: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, markdown's list markers, quote markers and emphasis trimmed off its edges."""
    spans, start = [], 0
    for boundary in [*SENTENCE_END.finditer(prose), None]:
        if boundary is None:
            end = len(prose)
        else:
            end = boundary.end(boundary.lastgroup) if boundary.lastgroup else boundary.start()
        markup = LEADING_MARKUP.match(prose, start, end)
        assert markup is not None, "LEADING_MARKUP matches the empty text too"
        start = markup.end()
        number = LIST_NUMBER.match(prose, start, end)
        if number:
            start = number.end()
        stop = start + len(prose[start:end].rstrip(MARKUP_EDGE))
        if stop > start and not LIST_MARKER.fullmatch(prose, start, stop):  # "1." is a list item's number, not a sentence
            spans.append((start, stop))
        start = boundary.end() if boundary else len(prose)
    return spans


def why_false(names: tuple[str, ...], outcome: Outcome) -> str:
    """Why a claim naming `names` is false for this outcome, or "" when it holds (or cannot be judged)."""
    if not outcome.has_code:
        return "the answer has no Kite code"
    reasons = [reason for name in names if (reason := _failure(name, outcome))]
    if not names:
        reasons = [reason for name in (*VERDICTS, *LAYERS) if (reason := _failure(name, outcome))]
        reasons += [f"{rule} fired" for rule in sorted(outcome.failed_rules)]
        reasons += ["KT004: C# leaked into the Kite code"] if outcome.leaked else []
    return "; ".join(dict.fromkeys(reasons))


def _failure(name: str, outcome: Outcome) -> str:
    if name == "compiles":
        return "" if outcome.compiles else "the code does not compile"
    if name == "clean":
        return "" if outcome.clean else "the code has warnings or errors"
    if name == "passes":
        if outcome.passes is None:
            return "" if outcome.compiles else "the code does not compile, so no test can pass"
        return "" if outcome.passes else "the hidden tests do not pass"
    if name in LAYERS:
        return f"the {name} layer failed" if name in outcome.failed_layers else ""
    rule = name.upper()
    if rule in outcome.failed_rules or (rule == "KT004" and outcome.leaked):
        return f"{rule} fired"
    return ""


def _is_claim(prose: str, sentence_start: int, match_start: int, sentence_end: int) -> bool:
    if prose[sentence_end - 1] == "?":
        return False
    before = prose[max(sentence_start, match_start - CLAUSE_LOOKBACK):match_start]
    clause = CLAUSE_BREAK.split(before)[-1]
    return not NOT_A_CLAIM.search(clause) and not AN_INFINITIVE.search(clause)


def claims(prose: str, outcome: Outcome) -> list[Claim]:
    spans = sentences(prose)
    folded = fold(prose)
    starts = [start for start, _ in spans]
    taken: dict[int, list[tuple[int, int]]] = {}  # sentence index -> words already claimed in it
    found: dict[tuple[int, str], Claim] = {}
    for claim_pattern in claim_patterns():
        for match_start, match_end, match in word_matches(claim_pattern.pattern, folded):
            index = bisect.bisect_right(starts, match_start) - 1
            if index < 0:
                continue
            start, end = spans[index]
            if match_end > end or (index, claim_pattern.kind) in found:
                continue
            if any(match_start < e and s < match_end for s, e in taken.get(index, [])):
                continue
            if not _is_claim(prose, start, match_start, end):
                continue
            names = claim_pattern.names
            if "rules" in claim_pattern.pattern.groupindex:
                names = tuple(rule.upper() for rule in RULE_ID.findall(match.group("rules")))
            reason = why_false(names, outcome)
            taken.setdefault(index, []).append((match_start, match_end))
            found[(index, claim_pattern.kind)] = Claim(claim_pattern.kind, start, end, prose[start:end], bool(reason), reason)
    return sorted(found.values(), key=lambda claim: (claim.start, claim.kind))
