"""Files other processes may read while they are written: written beside, then renamed into place."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from kite.source import refuse_unless_regular


def replacing_mode(path: Path) -> int:
    """The mode a file rewritten in place keeps: its permissions (and sticky bit), never setuid or setgid, which the
    kernel too drops when a file is written: new content must not run with the owner's or group's rights."""
    return os.stat(path).st_mode & 0o1777


def refuse_unless_writable(path: Path) -> None:
    """One line for a path that is a device, a FIFO, a socket or a folder: replacing /dev/null with a regular file
    breaks it for every process, and opening a FIFO with no reader never returns."""
    with contextlib.suppress(OSError):  # nothing there yet, or not reachable: the write itself says why
        refuse_unless_regular(str(path), os.stat(path).st_mode, "a regular file", does="writes")


def write_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Readers see the old file or the whole new one, never a part: processes starting together (a cluster's workers,
    parallel test runs) share kite's cache folder. A link is replaced, never written through: one planted in a shared
    cache folder must not lead kite's write to another file."""
    refuse_unless_writable(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def rewrite_in_place(path: Path, data: bytes, mode: int) -> None:
    """A file the user named, rewritten (kite fmt, check --fix, rewrite --apply): through a symbolic link, the file it
    names, as an editor saves it (the link stays a link)."""
    write_atomically(Path(os.path.realpath(path)), data, mode)
