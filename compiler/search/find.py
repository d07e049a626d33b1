"""`kite find`: a pattern against files and folders, through the front end every command uses.

Each file is read (`kite.source.read`) and parsed by `kite.syntax.frontend.read_syntax`, with its line-level
recovery: a file with a syntax error is still searched, but no match is reported on a line recovery rewrote. A file
that does not parse at all, or cannot be read, is that file's one-line problem; the others are still searched.

Before parsing, a file is skipped when its text lacks one of the names and literals the pattern spells out (a match
holds each of them verbatim): most files of a batch cannot match a pattern that names something, and parsing is
most of the cost.

With `jobs` > 1, files are searched in worker processes (forked from a process of one thread: kite.spawn), and the results
come back in file order, so the output is the same whatever the number of workers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from kite import spawn
from kite.errors import UnusableInput
from kite.search.cache import ParseCache, parse
from kite.search.match import find_matches
from kite.search.pattern import Pattern
from kite.search.spans import Spans
from kite.source import SourceFile, read
from kite.syntax import nodes as n
from kite.units import kite_files

COMPOUND = (n.Binary, n.Unary, n.Lambda)
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


def search(pattern: Pattern, paths: list[str], jobs: int = 1, cache: str | None = None) -> list[FileSearch]:
    """Every file named, and every *.kite below every folder named, in that order; with `jobs` > 1 searched by that
    many worker processes, a batch of files at a time, and merged back in file order. `cache`: a folder of parses
    kept across searches (kite.search.cache)."""
    problems: list = []
    files = [str(path) for path in dict.fromkeys(kite_files(paths, problems))]
    unreadable = [FileSearch(problem.program, problem=problem.problem) for problem in problems]
    if cache:
        ParseCache(cache)  # refuses a folder others can write, and makes the user's key, before any worker starts
    if jobs <= 1 or len(files) <= spawn.ITEMS_PER_REQUEST:
        return search_files(pattern, files, cache) + unreadable
    with spawn.process_executor(jobs, forked=True) as executor:
        return spawn.in_batches(executor, functools.partial(search_files, pattern, cache=cache), files) + unreadable


def search_files(pattern: Pattern, files: list[str], cache: str | None = None) -> list[FileSearch]:
    parse_file = ParseCache(cache).parsed if cache else parse
    return [search_file(pattern, path, parse_file) for path in files]


def search_file(pattern: Pattern, path: str, parse_file=parse) -> FileSearch:
    try:
        source = read(path)
        return FileSearch(path, search_source(pattern, source, parse_file), source=source)
    except UnusableInput as error:
        return FileSearch(path, problem=str(error))


def search_source(pattern: Pattern, source: SourceFile, parse_file=parse) -> tuple[Found, ...]:
    if not pattern.may_match(source.text):
        return ()
    parsed = parse_file(source)
    if parsed.module is None:
        raise UnusableInput(f"{source.path}: does not parse, not searched{f' ({parsed.unparsed})' if parsed.unparsed else ''}")
    spans = Spans(source.text, parsed.parsed_lines)
    found = []
    for match in find_matches(pattern, parsed.module):
        span = spans.span(match.node)
        if span is None:
            continue  # on a line recovery rewrote: not the file's code
        bindings = {name: _bound(value, spans) for name, value in match.bindings.items()}
        found.append(Found(span, spans.text(span), bindings))
    return tuple(sorted(found, key=lambda f: f.span))


def _bound(value, spans: Spans) -> Bound:
    if isinstance(value, str):
        return Bound(value, None)
    if isinstance(value, tuple) and not value:
        return Bound("", None)
    span = spans.span(value)
    text = spans.text(span) if span else ""
    return Bound(text, span, isinstance(value, COMPOUND))
