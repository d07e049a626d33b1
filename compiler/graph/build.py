"""`kite graph`: the index of the files named (kite.graph.index) as symbols and edges, and the queries over it.

Each file is read and parsed by the front end every command uses and indexed, or its index read from `--cache`
(kite.graph.cache); a file that cannot be read is that file's one-line problem, a file recovery had to cut is indexed for what
parsed and says which lines it left out.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
from dataclasses import dataclass

from kite import spawn
from kite.errors import UnusableInput
from kite.graph.cache import IndexCache, from_lines, to_lines
from kite.graph.index import STD, FileIndex, Symbol, Workspace, read_file
from kite.search.cache import parse
from kite.source import SourceFile, read
from kite.standard_library import FUNCTIONS
from kite.units import UnitSource, kite_files

QUERIES = ("callers", "callees", "impact")
FILES_PER_ROUND = 2_000


@dataclass(frozen=True)
class Graph:
    workspace: Workspace
    problems: tuple[str, ...]  # files that could not be read
    skipped: tuple[str, ...]  # "file: line L: why": what recovery left out of a file


def index_source(source: SourceFile) -> FileIndex:
    parsed = parse(source)
    return read_file(source.path, source.text, parsed.module, parsed.parsed_lines, parsed.skipped)


def build(paths: list[str], cache: str | None = None, jobs: int = 1) -> Graph:
    """`cache`: a folder keeping each file's index and its module's references (kite.graph.cache), so an unchanged
    file is neither parsed nor indexed, and an unchanged module not resolved. `jobs` > 1: the files to index are
    indexed by that many forked worker processes (kite.spawn), which hand back each index as the cache's entry lines,
    a file at a time in order: the graph is the same whatever the number of workers."""
    known = IndexCache(cache) if cache else None
    unusable_paths: list[UnitSource] = []  # a folder without .kite files is one problem, and the other paths are still indexed
    listed = list(dict.fromkeys(str(p) for p in kite_files(paths, unusable_paths)))
    indexed: dict[str, FileIndex] = {}
    problems = []
    with contextlib.ExitStack() as workers:
        executor = None
        for start in range(0, len(listed), FILES_PER_ROUND):  # a round's texts in memory at a time, not every file's
            sources = []
            for path in listed[start:start + FILES_PER_ROUND]:
                try:
                    source = read(path)
                except UnusableInput as error:
                    problems.append(str(error))
                    continue
                found = known.lookup(source) if known is not None else None
                if found is None:
                    sources.append(source)
                else:
                    indexed[path] = found
            if jobs > 1 and len(sources) > spawn.ITEMS_PER_REQUEST and executor is None:
                executor = workers.enter_context(spawn.process_executor(jobs, forked=True))
            for source, file in zip(sources, _index_all(sources, executor)):
                indexed[source.path] = file
                if known is not None:
                    known.add(source, file)
    files = [indexed[path] for path in listed if path in indexed]
    problems.extend(unit.problem for unit in unusable_paths)
    skipped = tuple(f"{file.path}: {why}" for file in files for why in file.skipped)
    return Graph(Workspace(files, known), tuple(problems), skipped)


def _index_all(sources: list[SourceFile], executor: concurrent.futures.Executor | None) -> list[FileIndex]:
    if executor is None or len(sources) <= spawn.ITEMS_PER_REQUEST:
        return [index_source(source) for source in sources]
    return [from_lines(source.path, "", lines) for source, lines in zip(sources, spawn.in_batches(executor, _entry_lines, sources))]


def _entry_lines(sources: list[SourceFile]) -> list[list[bytes]]:
    """In a worker: each file's index as a cache entry's lines (kite.graph.cache), which pickle far faster than the
    index with its AST nodes; its symbols come back without their nodes, as a cached index's do."""
    return [to_lines("", index_source(source)) for source in sources]


def std_symbol(target: str) -> Symbol | None:
    """A standard-library function as an edge's end: no file, no range."""
    return None if target.removeprefix(STD) not in FUNCTIONS else Symbol(target, target.removeprefix(STD), "fn", "", None, None)  # type: ignore[arg-type]


class Ambiguous(UnusableInput):
    pass


def resolve_name(workspace: Workspace, name: str) -> list[Symbol]:
    """The symbols NAME means: one id (two modules may share it), else every symbol of that plain name; none is exit
    2 with one line, several plain-name matches of different ids list the candidates, exit 2."""
    found = workspace.lookup(name)
    if not found:
        raise UnusableInput(f"no symbol named '{name}' in the files given")
    if len({s.id for s in found}) > 1:
        candidates = ", ".join(sorted({s.id for s in found}))
        raise Ambiguous(f"'{name}' is ambiguous: {candidates}; name one by its id")
    return found


def query(graph: Graph, kind: str, name: str) -> list[Symbol]:
    """callers: the symbols that call or construct NAME; callees: what NAME calls or constructs (the standard
    library's functions as `std.NAME`); impact: everything that depends on NAME, transitively (callers of callers,
    the tests that reach it, the types whose fields use it). Sorted by file and position, the stdlib last."""
    workspace = graph.workspace
    ids = {s.id for s in resolve_name(workspace, name)}
    edges = workspace.edges()
    if kind == "callers":
        found = {a for a, b, k in edges if b in ids and k in ("calls", "constructs")}
    elif kind == "callees":
        found = {b for a, b, k in edges if a in ids and k in ("calls", "constructs")}
    elif kind == "impact":
        found = _impact(workspace, ids, edges)
    else:
        raise ValueError(kind)
    by_id: dict[str, list[Symbol]] = {}
    for symbol in workspace.symbols:
        by_id.setdefault(symbol.id, []).append(symbol)
    symbols = [s for target in found for s in by_id.get(target, [std_symbol(target)]) if s is not None]
    return sorted(symbols, key=lambda s: (not s.file, s.file, s.range or (0, 0), s.id))  # the stdlib last


def _impact(workspace: Workspace, ids: set[str], edges) -> set[str]:
    dependents: dict[str, set[str]] = {}
    for a, b, _kind in edges:
        dependents.setdefault(b, set()).add(a)
    for symbol in workspace.symbols:
        if symbol.container is not None:  # a type or enum changes with its fields and members
            dependents.setdefault(symbol.id, set()).add(symbol.container)
    found: set[str] = set()
    pending = list(ids)
    while pending:
        for dependent in dependents.get(pending.pop(), ()):
            if dependent not in found and dependent not in ids:
                found.add(dependent)
                pending.append(dependent)
    return found
