"""`kite graph --cache DIR`: each file's index (its symbols, names and locals) kept as JSON, and beside it the file's
references as resolved within its module, so a warm graph neither parses, nor indexes, nor resolves an unchanged module.

An entry is named by the hash of the file's path and text and of everything that makes its index (kite's version, the
grammar, the syntax package, the index and what it calls): an edited file, a moved one, or another kite never reads
an old index. Its references are believed only for the module they were resolved in: they carry the hash of the
entry names of all the module's files, in order (a test file's calls change meaning when its program changes), and
are resolved and kept again when that differs. Entries live in the folder `kite find --cache` uses, under the same
per-user HMAC key (kite.search.cache says why), and are plain JSON: nothing in one is ever called or imported, and
one that is planted, corrupted, cut short or of another shape is ignored and replaced by the file's own index. A
symbol read back carries no AST node (`kite graph` prints none; the language server indexes without a cache).

An entry is five JSON lines: [key, module, group, symbols, skipped], the names, the locals, [module key, edges], the
references. A graph decodes the first and the fourth; the others stay bytes until read (CachedRows): a graph prints
no name, no local, no reference, only symbols and edges.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from kite.graph.index import Edge, FileIndex, Local, Name, Range, Reference, Symbol
from kite.search.cache import PARSE_FILES, toolchain_fingerprint
from kite.signed_files import OwnFolder
from kite.source import SourceFile

INDEX_FILES = (*PARSE_FILES, "kite/graph/", "kite/analyze.py", "kite/callee.py", "kite/standard_library.py")
LINES = 5  # header, names, locals, module key and edges, references
Item = TypeVar("Item")


def _range(r: Range | None) -> list[int] | None:
    return None if r is None else [r.line, r.column, r.end_line, r.end_column]


def _unrange(r: list[int] | None) -> Range | None:
    return None if r is None else Range(*r)


def _line(data) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()  # no line break: JSON escapes those inside strings


class CachedRows(Sequence[Item], Generic[Item]):
    """A cached file's names, locals or references kept as the entry's JSON line until first read, then made by
    `make` from each row: a graph reads none of them (the language server, which does, indexes without a cache), and
    making them was most of a warm graph. Equal to the tuple of the same items, as a fresh index holds them."""

    def __init__(self, line: bytes, make: Callable[[list], Item]):
        self._line, self._make = line, make
        self._made: tuple[Item, ...] | None = None

    def _items(self) -> tuple[Item, ...]:
        if self._made is None:
            self._made = tuple(map(self._make, json.loads(self._line)))
        return self._made

    def __getitem__(self, at):  # an int or a slice, as a tuple's
        return self._items()[at]

    def __iter__(self):
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self._items() == tuple(other)

    def __hash__(self) -> int:
        return hash(self._items())

    def __repr__(self) -> str:
        return repr(self._items())


def _name(row: list) -> Name:
    name, r, role, source, owner, via = row
    return Name(name, Range(*r), role, source, owner, _unrange(via))


def _local(row: list) -> Local:
    name, kind, r, uses, scope = row
    return Local(name, kind, Range(*r), tuple(Range(*u) for u in uses), Range(*scope))


def to_lines(key: str, file: FileIndex) -> list[bytes]:
    """The entry's first three lines: what the file alone makes (its module's references come later: `keep`)."""
    return [
        _line([key, file.module, file.group,
               [[s.id, s.name, s.kind, _range(s.range), _range(s.name_range), s.container] for s in file.symbols],
               list(file.skipped)]),
        _line([[m.name, _range(m.range), m.role, m.source, m.owner, _range(m.via)] for m in file.names]),
        _line([[x.name, x.kind, _range(x.range), [_range(u) for u in x.uses], _range(x.scope)] for x in file.locals]),
    ]


def from_lines(path: str, key: str, lines: list[bytes]) -> FileIndex:
    """The FileIndex `to_lines` wrote under `key`; any other shape or key raises (TypeError, ValueError, IndexError)."""
    entry_key, module, group, symbols, skipped = json.loads(lines[0])
    if entry_key != key or not isinstance(module, str) or not isinstance(group, str) \
            or not all(isinstance(why, str) for why in skipped):
        raise ValueError("not this file's index")
    return FileIndex(
        path, module, group,  # the group kept, not made again: group_of's Paths were a tenth of a warm graph
        tuple(Symbol(i, nm, k, path, Range(*r), Range(*nr), c) for i, nm, k, r, nr, c in symbols),
        CachedRows(lines[1], _name),
        CachedRows(lines[2], _local),
        tuple(skipped),
    )


@dataclass
class _Entry:
    where: Path
    key: str
    lines: list[bytes]  # as read or as they will be written; the last two b"null" until the module is resolved


class IndexCache(OwnFolder):
    """Each file's index (`lookup`, `add`) and its module's references (`references`, `keep`: kite.graph.index's
    KnownReferences). A new entry is written once its module is resolved, in `keep`."""

    def __init__(self, folder: str):
        super().__init__(folder)
        self._entries: dict[str, _Entry] = {}  # by the file's path, for this graph's files

    def lookup(self, source: SourceFile) -> FileIndex | None:
        """The file's cached index; None when none is kept for this text (then `add` its index)."""
        key, where = self._entry_of(source)
        payload = self.read(where)
        if payload is not None:
            lines = payload.split(b"\n")
            try:
                if len(lines) == LINES:
                    file = from_lines(source.path, key, lines)
                    self._entries[source.path] = _Entry(where, key, lines)
                    return file
            except (ValueError, TypeError, IndexError, KeyError):  # a payload of another shape: only ignored
                pass
        return None

    def add(self, source: SourceFile, file: FileIndex) -> None:
        """The file's fresh index, kept (with its references) when its module is resolved (`keep`)."""
        key, where = self._entry_of(source)
        self._entries[source.path] = _Entry(where, key, [*to_lines(key, file), b"null", b"null"])

    def _entry_of(self, source: SourceFile) -> tuple[str, Path]:
        named = f"{source.path}\0{source.text}".encode()
        key = hashlib.sha256(toolchain_fingerprint(INDEX_FILES) + named).hexdigest()
        return key, self.folder / f"{key}.index.json"

    def _module_key(self, entries: list[_Entry]) -> str:
        return hashlib.sha256("\0".join(entry.key for entry in entries).encode()).hexdigest()

    def references(self, paths: list[str]) -> dict[str, tuple[Sequence[Reference], Sequence[Edge]]] | None:
        """The module's references as kept, when every one of its files' entries was kept with this module's key."""
        entries = [self._entries.get(path) for path in paths]
        if not all(entries):
            return None
        known = [entry for entry in entries if entry is not None]
        module_key = self._module_key(known)
        found: dict[str, tuple[Sequence[Reference], Sequence[Edge]]] = {}
        for path, entry in zip(paths, known):
            try:
                kept_key, edges = json.loads(entry.lines[3])
                if kept_key != module_key:
                    return None
                found[path] = (CachedRows(entry.lines[4], functools.partial(_reference, path)), tuple((a, b, kind) for a, b, kind in edges))
            except (ValueError, TypeError):  # never resolved (null), or of another shape
                return None
        return found

    def keep(self, paths: list[str], resolved: dict[str, tuple[Sequence[Reference], Sequence[Edge]]]) -> None:
        """Each file's entry written again with the references resolved in its module."""
        entries = [self._entries[path] for path in paths if path in self._entries]
        if len(entries) != len(paths):
            return
        module_key = self._module_key(entries)
        for path, entry in zip(paths, entries):
            references, edges = resolved[path]
            entry.lines[3:] = [_line([module_key, edges]),
                               _line([[r.target, _range(r.range), r.kind, r.source, r.edge] for r in references])]
            self.write(entry.where, b"\n".join(entry.lines))


def _reference(path: str, row: list) -> Reference:
    target, r, kind, source, edge = row
    return Reference(target, path, Range(*r), kind, source, edge)
