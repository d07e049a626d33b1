"""The two ways the toolchain refuses to work; the CLI prints either as one line and exits 2."""

from __future__ import annotations

import errno

# What the machine refuses a write with: the user's to fix (free space, a writable folder), not a bug in kite.
UNWRITABLE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG})
# What it refuses a read and a write alike with: the user's too, but nothing says which of the two was refused.
FORBIDDEN = frozenset({errno.EACCES, errno.EPERM})


class UnusableInput(Exception):
    """Input the toolchain cannot work on at all: missing, empty, binary, not UTF-8."""


class ToolchainError(Exception):
    """The toolchain itself cannot run: no dotnet, a failed restore, a missing runtime."""


class NoTests(UnusableInput):
    """`kite test` on a program with no tests to run."""


def refusal(error: OSError) -> str | None:
    """The one line for what the machine refused (a full disk, a read-only folder, no permission), or None for any
    other OSError, which is a bug in kite. In-process (kite.cli.common.guarded) and through the warm server alike."""
    if error.errno not in UNWRITABLE | FORBIDDEN:
        return None
    refused = "cannot write" if error.errno in UNWRITABLE else "cannot access"
    return f"kite: error: {error.filename or 'a file'}: {refused} ({error.strerror})"
