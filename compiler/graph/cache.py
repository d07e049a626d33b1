"""`kite graph --cache DIR`: each file's index (its symbols, names and locals) kept as JSON, so a warm graph skips both
the parse and the index and only resolves names across files.

An entry is named by the hash of the file's path and text and of everything that makes its index (kite's version, the
grammar, the syntax package, the index and what it calls): an edited file, a moved one, or another kite never reads
an old index. Entries live in the folder `kite find --cache` uses, under the same per-user HMAC key (kite.search.cache
says why), and are plain JSON: nothing in one is ever called or imported, and one that is planted, corrupted, cut
short or of another shape is ignored and replaced by the file's own index. A symbol read back carries no AST node
(`kite graph` prints none; the language server indexes without a cache).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence

from kite.graph.index import FileIndex, Local, Name, Range, Symbol
from kite.search.cache import PARSE_FILES, toolchain_fingerprint
from kite.signed_files import OwnFolder
from kite.source import SourceFile

INDEX_FILES = (*PARSE_FILES, "kite/graph/", "kite/analyze.py", "kite/callee.py", "kite/standard_library.py")


def _range(r: Range | None) -> list[int] | None:
    return None if r is None else [r.line, r.column, r.end_line, r.end_column]


def _unrange(r: list[int] | None) -> Range | None:
    return None if r is None else Range(*r)


class CachedLocals(Sequence[Local]):
    """A cached file's locals kept as the entry's lists until first read: a graph never reads them (the language
    server, which does, indexes without a cache), and making them was a fifth of a warm graph. Equal to the tuple of
    the same Locals, as a fresh index holds them."""

    def __init__(self, rows: list):
        self._rows = rows
        self._made: tuple[Local, ...] | None = None

    def _locals(self) -> tuple[Local, ...]:
        if self._made is None:
            self._made = tuple(Local(nm, k, Range(*r), tuple(Range(*u) for u in uses), Range(*sc)) for nm, k, r, uses, sc in self._rows)
        return self._made

    def __getitem__(self, at):  # an int or a slice, as a tuple's
        return self._locals()[at]

    def __len__(self) -> int:
        return len(self._rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self._locals() == tuple(other)

    def __hash__(self) -> int:
        return hash(self._locals())

    def __repr__(self) -> str:
        return repr(self._locals())


def to_data(file: FileIndex) -> list:
    return [
        file.module,
        file.group,
        [[s.id, s.name, s.kind, _range(s.range), _range(s.name_range), s.container] for s in file.symbols],
        [[m.name, _range(m.range), m.role, m.source, m.owner, _range(m.via)] for m in file.names],
        [[x.name, x.kind, _range(x.range), [_range(u) for u in x.uses], _range(x.scope)] for x in file.locals],
        list(file.skipped),
    ]


def from_data(path: str, data: list) -> FileIndex:
    """The FileIndex `to_data` wrote; any other shape raises (TypeError, ValueError, IndexError)."""
    module, group, symbols, names, locals_, skipped = data
    if not isinstance(module, str) or not isinstance(group, str) or not isinstance(locals_, list) \
            or not all(isinstance(why, str) for why in skipped):
        raise ValueError("not an index")
    return FileIndex(
        path, module, group,  # the group kept, not made again: group_of's Paths were a tenth of a warm graph
        tuple(Symbol(i, nm, k, path, Range(*r), Range(*nr), c) for i, nm, k, r, nr, c in symbols),
        tuple(Name(nm, Range(*r), role, src, owner, _unrange(via)) for nm, r, role, src, owner, via in names),
        CachedLocals(locals_),
        tuple(skipped),
    )


class IndexCache(OwnFolder):
    def indexed(self, source: SourceFile, index: Callable[[SourceFile], FileIndex]) -> FileIndex:
        """The file's cached index, else `index(source)`, kept for the next graph."""
        named = f"{source.path}\0{source.text}".encode()
        key = hashlib.sha256(toolchain_fingerprint(INDEX_FILES) + named).hexdigest()
        path = self.folder / f"{key}.index.json"
        payload = self.read(path)
        if payload is not None:
            try:
                entry = json.loads(payload)
                if entry[0] == key:
                    return from_data(source.path, entry[1])
            except (ValueError, TypeError, IndexError, KeyError):  # a payload of another shape: only ignored
                pass
        file = index(source)
        self.write(path, json.dumps([key, to_data(file)], separators=(",", ":")).encode())
        return file
