"""`kite graph`: the index of the files named (kite.graph.index) as symbols and edges, and the queries over it.

Each file is read and parsed by the front end every command uses and indexed, or its index read from `--cache`
(kite.graph.cache); a file that cannot be read is that file's one-line problem, a file recovery had to cut is indexed for what
parsed and says which lines it left out.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from kite.errors import UnusableInput
from kite.graph.cache import IndexCache
from kite.graph.index import STD, FileIndex, Symbol, Workspace, read_file
from kite.pipeline import UnitSource, kite_files
from kite.search.cache import parse
from kite.source import SourceFile, read
from kite.standard_library import FUNCTIONS

QUERIES = ("callers", "callees", "impact")


@dataclass(frozen=True)
class Graph:
    workspace: Workspace
    problems: tuple[str, ...]  # files that could not be read
    skipped: tuple[str, ...]  # "file: line L: why": what recovery left out of a file


def index_source(source: SourceFile) -> FileIndex:
    parsed = parse(source)
    return read_file(source.path, source.text, parsed.module, parsed.parsed_lines, parsed.skipped)


def build(paths: list[str], cache: str | None = None) -> Graph:
    """`cache`: a folder keeping each file's index and its module's references (kite.graph.cache), so an unchanged
    file is neither parsed nor indexed, and an unchanged module not resolved."""
    known = IndexCache(cache) if cache else None
    index_file = functools.partial(known.indexed, index=index_source) if known is not None else index_source
    files, problems = [], []
    unusable_paths: list[UnitSource] = []  # a folder without .kite files is one problem, and the other paths are still indexed
    for path in dict.fromkeys(str(p) for p in kite_files(paths, unusable_paths)):
        try:
            files.append(index_file(read(path)))
        except UnusableInput as error:
            problems.append(str(error))
    problems.extend(unit.problem for unit in unusable_paths)
    skipped = tuple(f"{file.path}: {why}" for file in files for why in file.skipped)
    return Graph(Workspace(files, known), tuple(problems), skipped)


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
