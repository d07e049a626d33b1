"""`kite find --cache DIR`: each file's parse kept across searches, so searching the same answers again skips parsing.

An entry is named by the hash of the file's text and of what makes its parse (kite's version, the grammar and the
syntax package's source): an edited file, or another kite, never reads an old parse. Entries are pickles of the AST's
frozen dataclasses, written atomically (searches running at once may share the folder) and read back by an unpickler
that builds nothing but AST nodes and the entry itself: an entry that is corrupted, cut short, another file's, or
names anything else is ignored, and the file parsed again.

The name is a hash anyone can compute, so an entry is believed only when this user wrote it: each carries an
HMAC-SHA256 under a key of the user's own (`find-cache.key` in kite's cache folder, 0600), checked before the entry is
unpickled; an entry another user owns or can write is not read; and a folder another user can write is refused. A
planted entry is ignored, and replaced by the file's own parse.
"""

from __future__ import annotations

import functools
import hashlib
import io
import pickle
from dataclasses import dataclass
from pathlib import Path

import kite
from kite.own_files import own_files
from kite.signed_files import OwnFolder
from kite.source import SourceFile
from kite.syntax import nodes as n
from kite.syntax.frontend import read_syntax


@dataclass(frozen=True)
class Parsed:
    """What a search needs of a file's parse."""

    module: n.Module | None
    parsed_lines: tuple[str, ...]
    unparsed: str  # when module is None: where and why (its first KT000), else ""
    skipped: tuple[str, ...] = ()  # "line L: why" for each line recovery left out (KT000)


@dataclass(frozen=True)
class Entry:
    key: str  # its own name: an entry copied or renamed over another is not that file's
    parsed: Parsed


def parse(source: SourceFile) -> Parsed:
    syntax = read_syntax(source)
    skipped = tuple(f"line {d.line}: {d.message}" for d in syntax.diagnostics if d.id == "KT000")
    if syntax.module is not None:
        return Parsed(syntax.module, syntax.parsed_lines, "", skipped)
    first = next((d for d in syntax.diagnostics if d.id == "KT000"), None)
    return Parsed(None, syntax.parsed_lines, f"line {first.line}: {first.message}" if first is not None else "", skipped)


PARSE_FILES = ("kite.grammar/", "kite/syntax/", "kite/search/cache.py")  # of kite's own files, those that make an entry


@functools.cache
def toolchain_fingerprint(makers: tuple[str, ...] = PARSE_FILES) -> bytes:
    """Kite's version and the source of everything that makes an entry (`makers`: a parse's by default; other changes
    to kite keep the cache)."""
    digest = hashlib.sha256(kite.__version__.encode())
    for name, path in own_files():
        if name.startswith(makers):
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


class _ParseOnly(pickle.Unpickler):
    """Builds AST nodes and entries, nothing else: no other class, no function is ever called by loading an entry."""

    def find_class(self, module: str, name: str):
        found = {"kite.syntax.nodes": vars(n), __name__: globals()}.get(module, {}).get(name)
        if isinstance(found, type) and (issubclass(found, n.Node) or found in (Entry, Parsed)):
            return found
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a parse")


class ParseCache(OwnFolder):
    def parsed(self, source: SourceFile) -> Parsed:
        key = hashlib.sha256(toolchain_fingerprint() + source.text.encode()).hexdigest()
        path = self.folder / f"{key}.pickle"
        entry = self._load(path)
        if isinstance(entry, Entry) and entry.key == key and isinstance(entry.parsed, Parsed):
            return entry.parsed
        parsed = parse(source)
        self.write(path, pickle.dumps(Entry(key, parsed), pickle.HIGHEST_PROTOCOL))
        return parsed

    def _load(self, path: Path):
        payload = self.read(path)
        if payload is None:
            return None
        try:
            return _ParseOnly(io.BytesIO(payload)).load()
        except Exception:  # a broken pickle raises almost anything; the entry is then only ignored
            return None
