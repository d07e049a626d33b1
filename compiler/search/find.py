"""`kite find`: a pattern against files and folders, through the front end every command uses.

Each file is read (`kite.source.read`) and parsed by `kite.syntax.frontend.read_syntax`, with its line-level
recovery: a file with a syntax error is still searched, but no match is reported on a line recovery rewrote. A file
that does not parse at all, or cannot be read, is that file's one-line problem; the others are still searched.

Before parsing, a file is skipped when its text lacks one of the names and literals the pattern spells out (a match
holds each of them verbatim): most files of a batch cannot match a pattern that names something, and parsing is
most of the cost.

With `jobs` > 1, files are searched in worker processes (spawned: nothing of this process is shared), and the results
come back in file order, so the output is the same whatever the number of workers.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

from kite.errors import UnusableInput
from kite.pipeline import kite_files
from kite.search.match import find_matches
from kite.search.pattern import Pattern
from kite.search.spans import Spans
from kite.source import SourceFile, read
from kite.spawn import process_executor
from kite.syntax import nodes as n
from kite.syntax.frontend import read_syntax

COMPOUND = (n.Binary, n.Unary, n.Lambda)
# Files a worker process searches per request: enough to make the round trip cheap, few enough that the workers
# finish together.
FILES_PER_BATCH = 50
Span = tuple[int, int, int, int]  # line, column, end line, end column (just past the last character), 1-based


@dataclass(frozen=True)
class Bound:
    """What a metavariable captured: code with its place in the file, or a name (no span of its own)."""

    text: str
    span: Span | None
    compound: bool = False  # an operation or a lambda: spliced into other code, it may need parentheses


@dataclass(frozen=True)
class Found:
    span: Span
    text: str
    bindings: dict[str, Bound]


@dataclass(frozen=True)
class FileSearch:
    path: str
    found: tuple[Found, ...] = ()
    problem: str | None = None  # why the file was not searched
    source: SourceFile | None = None  # as read, for a rewrite


def default_jobs() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0))


def search(pattern: Pattern, paths: list[str], jobs: int = 1) -> list[FileSearch]:
    """Every file named, and every *.kite below every folder named, in that order; with `jobs` > 1 searched by that
    many worker processes, a batch of files at a time, and merged back in file order."""
    files = [str(path) for path in dict.fromkeys(kite_files(paths))]
    batches = [files[start:start + FILES_PER_BATCH] for start in range(0, len(files), FILES_PER_BATCH)]
    if jobs <= 1 or len(batches) <= 1:
        return search_files(pattern, files)
    with process_executor(min(jobs, len(batches))) as executor:
        return [searched for batch in executor.map(search_files, itertools.repeat(pattern), batches) for searched in batch]


def search_files(pattern: Pattern, files: list[str]) -> list[FileSearch]:
    return [search_file(pattern, path) for path in files]


def search_file(pattern: Pattern, path: str) -> FileSearch:
    try:
        source = read(path)
        return FileSearch(path, search_source(pattern, source), source=source)
    except UnusableInput as error:
        return FileSearch(path, problem=str(error))


def search_source(pattern: Pattern, source: SourceFile) -> tuple[Found, ...]:
    if not pattern.may_match(source.text):
        return ()
    syntax = read_syntax(source)
    if syntax.module is None:
        raise_unparsed(source.path, syntax)
    spans = Spans(source.text, syntax.parsed_lines)
    found = []
    for match in find_matches(pattern, syntax.module):
        span = spans.span(match.node)
        if span is None:
            continue  # on a line recovery rewrote: not the file's code
        bindings = {name: _bound(value, spans) for name, value in match.bindings.items()}
        found.append(Found(span, spans.text(span), bindings))
    return tuple(sorted(found, key=lambda f: f.span))


def raise_unparsed(path: str, syntax) -> None:
    first = next((d for d in syntax.diagnostics if d.id == "KT000"), None)
    where = f" (line {first.line}: {first.message})" if first is not None else ""
    raise UnusableInput(f"{path}: does not parse, not searched{where}")


def _bound(value, spans: Spans) -> Bound:
    if isinstance(value, str):
        return Bound(value, None)
    if isinstance(value, tuple) and not value:
        return Bound("", None)
    span = spans.span(value)
    text = spans.text(span) if span else ""
    return Bound(text, span, isinstance(value, COMPOUND))
