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

import contextlib
import functools
import hashlib
import hmac
import io
import os
import pickle
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

import kite
from kite.atomic import write_atomically
from kite.errors import UnusableInput
from kite.own_files import cache_root, own_files
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


KEY_FILE = "find-cache.key"
KEY_BYTES = 32
MAC_BYTES = hashlib.sha256().digest_size
SHARED = stat.S_IWGRP | stat.S_IWOTH


def only_mine(status: os.stat_result) -> bool:
    """Owned by this user, and no one else may write it."""
    return status.st_uid == os.geteuid() and not status.st_mode & SHARED


def user_key() -> bytes:
    """This user's key for cache entries, made on first use; refused (exit 2) where another user could read or swap it."""
    folder = cache_root()
    folder.mkdir(parents=True, exist_ok=True)
    if not only_mine(folder.stat()):
        raise UnusableInput(f"{folder}: another user can write kite's cache folder, so the key of `kite find --cache` would not be yours alone")
    path = folder / KEY_FILE
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(descriptor, "wb") as written:
            written.write(secrets.token_bytes(KEY_BYTES))
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(descriptor, "rb") as stream:
        status, key = os.fstat(stream.fileno()), stream.read(KEY_BYTES + 1)
    if not only_mine(status) or status.st_mode & 0o077 or len(key) != KEY_BYTES:
        raise UnusableInput(f"{path}: not a key only you can read (remove it: kite makes a new one)")
    return key


class OwnFolder:
    """A cache folder only this user can write, whose entries carry an HMAC under the user's key: `read` gives an
    entry's payload only when this user wrote it (its owner, its mode, its MAC), `write` replaces it atomically."""

    def __init__(self, folder: str):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        if not only_mine(self.folder.stat()):
            raise UnusableInput(f"--cache {folder}: another user can write it, so its entries could be planted: give a folder only you can write")
        self.key = user_key()

    def read(self, path: Path) -> bytes | None:
        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return None
        with os.fdopen(descriptor, "rb") as stream:
            if not only_mine(os.fstat(stream.fileno())):
                return None
            data = stream.read()
        mac, payload = data[:MAC_BYTES], data[MAC_BYTES:]
        return payload if hmac.compare_digest(mac, hmac.digest(self.key, payload, "sha256")) else None

    def write(self, path: Path, payload: bytes) -> None:
        with contextlib.suppress(OSError):  # a full or read-only folder costs the next run its work, nothing else
            path.unlink(missing_ok=True)  # a planted entry is replaced, whoever owns it
            write_atomically(path, hmac.digest(self.key, payload, "sha256") + payload, 0o600)


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
