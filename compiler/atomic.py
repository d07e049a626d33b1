"""Files other processes may read while they are written: written beside, then renamed into place."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def replacing_mode(path: Path) -> int:
    """The mode a file rewritten in place keeps: its permissions (and sticky bit), never setuid or setgid, which the
    kernel too drops when a file is written: new content must not run with the owner's or group's rights."""
    return os.stat(path).st_mode & 0o1777


def write_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Readers see the old file or the whole new one, never a part: processes starting together (a cluster's workers,
    parallel test runs) share kite's cache folder."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
