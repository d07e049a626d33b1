"""`kite check --fix`: the safe fixes that Kite's diagnostics carry, applied to one file's text.

All of a file's fixes are applied together, then the file is read again: a fix after which its line (or the nearest
fixed line above an error that was not there before) is a syntax error is dropped, and said. A fix can show the next
one (`if x is None:` loses its `is None`, then its ':'), so this goes round again, a few times at most. The caller
writes the text, all of it or none.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from kite.diagnostics import Diagnostic, Edit, Fix
from kite.pipeline import kite_layer
from kite.source import SourceFile
from kite.syntax.frontend import read_syntax

ROUNDS = 4


@dataclass(frozen=True)
class FixedLine:
    line: int  # in the file as it was given
    rules: tuple[str, ...]
    before: str
    after: tuple[str, ...]  # what it became: one line, several (a statement split at ';') or none (removed)


@dataclass(frozen=True)
class NotFixed:
    line: int  # in the file as it was given
    rule: str
    title: str
    reason: str


@dataclass(frozen=True)
class FileFixes:
    path: str
    text: str  # with every fix that was kept
    fixed: tuple[FixedLine, ...]
    not_fixed: tuple[NotFixed, ...]


def _line_edits(edits) -> bool:
    """Edits this applies: within one line (a line break may be written), or the removal of whole lines."""
    return all(e.line == e.end_line or (e.column == 1 and e.end_column == 1 and not e.text) for e in edits)


def _spans(fix) -> list[tuple[int, int, int, int]]:
    return [(e.line, e.column, e.end_line, e.end_column) for e in fix.edits]


def _overlaps(a: tuple, b: tuple) -> bool:
    """Two edits' ranges share a character (or insert at the same place)."""
    start_a, end_a, start_b, end_b = (a[0], a[1]), (a[2], a[3]), (b[0], b[1]), (b[2], b[3])
    return (start_a < end_b and start_b < end_a) or start_a == start_b


def choose(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The safe fixes to apply together: from the first in the file on, each that edits nothing an earlier one edits.
    One left out this time is there again on the next round, on the text the others made."""
    chosen: list[Diagnostic] = []
    taken: list[tuple] = []
    candidates = [d for d in diagnostics if d.fix is not None and d.fix.safe and _line_edits(d.fix.edits)]
    for d in sorted(candidates, key=lambda d: min(_spans(d.fix))):
        spans = _spans(d.fix)
        if not any(_overlaps(span, other) for span in spans for other in taken):
            chosen.append(d)
            taken.extend(spans)
    return chosen


def _fix(d: Diagnostic) -> Fix:
    """The fix of a diagnostic chosen to be fixed: only those that carry one are."""
    if d.fix is None:
        raise ValueError(f"{d.id} at {d.line}:{d.column} carries no fix")
    return d.fix


def _key(d: Diagnostic, origin: list[int]) -> tuple:
    """A fix as the same fix on a later round, whose text has moved: its rule, title and line as given."""
    return (d.id, origin[d.line - 1], _fix(d).title)


def apply(lines: list[str], edits: list[Edit]) -> list[tuple[int, str]]:
    """The lines after `edits` (which do not overlap), each with the number of the line it comes from."""
    by_line: dict[int, list[Edit]] = defaultdict(list)
    removed: set[int] = set()
    for edit in edits:
        if edit.line == edit.end_line:
            by_line[edit.line].append(edit)
        else:
            removed.update(range(edit.line, edit.end_line))
    out: list[tuple[int, str]] = []
    for number, text in enumerate(lines, start=1):
        if number in removed:
            continue
        for edit in sorted(by_line[number], key=lambda e: e.column, reverse=True):
            text = text[: edit.column - 1] + edit.text + text[edit.end_column - 1:]
        out.extend((number, piece) for piece in text.split("\n"))
    return out


def fix_file(source: SourceFile) -> FileFixes:
    path, text = source.path, source.text
    origin = list(range(1, text.count("\n") + 2))  # each line's number in the file as given
    rules: dict[int, list[str]] = defaultdict(list)
    not_fixed: list[NotFixed] = []
    refused: set = set()
    for _ in range(ROUNDS):
        syntax, found = kite_layer(SourceFile(path, text))
        chosen = choose([d for d in found if d.file == path and d.fix is not None and _key(d, origin) not in refused])
        if not chosen:
            break
        errors_before = {d.line for d in syntax.diagnostics if d.id == "KT000"}
        lines = text.split("\n")
        while chosen:
            result = apply(lines, [edit for d in chosen for edit in _fix(d).edits])
            culprits = _breaking(path, result, chosen, errors_before)
            if not culprits:
                break
            for d, message in culprits:
                chosen.remove(d)
                refused.add(_key(d, origin))
                not_fixed.append(NotFixed(origin[d.line - 1], d.id, _fix(d).title, f"the fix would be a syntax error: {message}"))
        if not chosen:
            continue
        for d in chosen:
            rules[origin[d.line - 1]].append(d.id)
        text = "\n".join(piece for _, piece in result)
        origin = [origin[number - 1] for number, _ in result]
    given = source.text.split("\n")
    became: dict[int, list[str]] = defaultdict(list)
    for number, line in zip(origin, text.split("\n")):
        became[number].append(line)
    fixed = tuple(
        FixedLine(number, tuple(dict.fromkeys(rules[number])), given[number - 1], tuple(became[number])) for number in sorted(rules)
    )
    return FileFixes(path, text, fixed, tuple(not_fixed))


def _breaking(path: str, result: list[tuple[int, str]], chosen: list[Diagnostic], errors_before: set[int]) -> list[tuple[Diagnostic, str]]:
    """The fixes to drop: for each syntax error the fixed text has on a line that had none before, the fixes on that
    line, else those on the nearest fixed line above it (or below)."""
    syntax = read_syntax(SourceFile(path, "\n".join(piece for _, piece in result)))
    fixed_lines = sorted({d.line for d in chosen})
    culprits: dict[int, tuple[Diagnostic, str]] = {}
    for error in syntax.diagnostics:
        if error.id != "KT000":
            continue
        line = result[min(error.line, len(result)) - 1][0]  # in the text before the fixes
        if line in errors_before and line not in fixed_lines:
            continue
        above = [number for number in fixed_lines if number <= line]
        blamed = above[-1] if above else fixed_lines[0]
        for d in chosen:
            if d.line == blamed:
                culprits.setdefault(id(d), (d, error.message))
    return list(culprits.values())
