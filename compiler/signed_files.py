"""Files in kite's cache that only this user can have written: each carries an HMAC-SHA256 under a key of the user's
own (`find-cache.key` in kite's cache folder, 0600, made on first use), and is believed only when its owner, its mode
and its MAC say so. Entries are pickles (a parse, Lark's tables) named by hashes anyone can compute: without this, a
file planted under such a name would run its code in kite when loaded."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
import sys
from pathlib import Path

from kite.atomic import write_atomically
from kite.errors import UnusableInput
from kite.own_files import cache_root
from kite.source import read_descriptor

KEY_FILE = "find-cache.key"  # its first user's name, kept so that no one's existing entries are lost
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
        raise UnusableInput(f"{folder}: another user can write kite's cache folder, so the key of its cache entries would not be yours alone")
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


def read_signed(path: Path, key: bytes) -> bytes | None:
    """The payload at `path` when this user wrote it under `key` (its owner, its mode, its MAC), else None."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        if not only_mine(os.fstat(descriptor)):
            return None
        data = read_descriptor(descriptor, sys.maxsize)
    except OSError:  # a folder or a file gone bad where an entry should be: no entry
        return None
    finally:
        os.close(descriptor)
    mac, payload = data[:MAC_BYTES], data[MAC_BYTES:]
    return payload if hmac.compare_digest(mac, hmac.digest(key, payload, "sha256")) else None


def write_signed(path: Path, key: bytes, payload: bytes) -> None:
    """`payload` at `path` under `key`, atomically (processes at once may share the folder), 0600. A full or read-only
    folder costs the next reader its work, nothing else; a planted file is replaced, whoever owns it."""
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)
        write_atomically(path, hmac.digest(key, payload, "sha256") + payload, 0o600)


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
        return read_signed(path, self.key)

    def write(self, path: Path, payload: bytes) -> None:
        write_signed(path, self.key, payload)
