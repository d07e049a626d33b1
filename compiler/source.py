"""Reading a Kite source file: bytes to text, with errors a user can act on."""

from __future__ import annotations

import codecs
import contextlib
from dataclasses import dataclass
from pathlib import Path

from kite.errors import UnusableInput

# Far above any honest answer (an 8,000-line program is about 300 KB; a 2 MB file is still checked), and a bound on
# what one file can cost the Kite layer, which runs before any budget.
MAX_SOURCE_BYTES = 2 * 1024 * 1024
MAX_SOURCE_LINES = 200_000


@dataclass(frozen=True)
class SourceFile:
    path: str  # as the user named it; diagnostics print it
    text: str  # LF line ends, no BOM

    @property
    def name(self) -> str:
        return Path(self.path).name


def decode(path: str, data: bytes) -> SourceFile:
    if len(data) > MAX_SOURCE_BYTES:
        raise UnusableInput(f"{path}: too large to check (more than kite's limit of {MAX_SOURCE_BYTES >> 20} MiB)")
    data = data.removeprefix(codecs.BOM_UTF8)
    if b"\x00" in data:
        raise UnusableInput(f"{path}: binary file (NUL byte at offset {data.index(0)}), not Kite source")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnusableInput(f"{path}: not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.count("\n") + (not text.endswith("\n"))
    if lines > MAX_SOURCE_LINES:
        raise UnusableInput(f"{path}: too long to check ({lines:,} lines, more than kite's limit of {MAX_SOURCE_LINES:,})")
    return SourceFile(path, text)


@contextlib.contextmanager
def reading_errors(path: str, expected: str):
    """A file that cannot be read, as one line a user can act on; `expected` names what the path should be."""
    try:
        yield
    except FileNotFoundError:
        raise UnusableInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UnusableInput(f"{path}: is a directory, not {expected}") from None
    except OSError as error:
        raise UnusableInput(f"{path}: cannot read ({error.strerror})") from None


def read_bytes(path: str) -> bytes:
    """A source file's bytes as written (not empty, within the size limit); decode() makes them text."""
    with reading_errors(path, "a .kite file"), open(path, "rb") as file:
        data = file.read(MAX_SOURCE_BYTES + 1)  # never more: the path may name something endless
    if not data.strip():
        raise UnusableInput(f"{path}: empty file")
    return data


def read(path: str) -> SourceFile:
    return decode(path, read_bytes(path))


def encode_like(text: str, original: bytes) -> bytes:
    """`text` (LF line ends, no BOM, as decode() makes it) written back as `original` was: with its BOM if it had one,
    with CRLF line ends if its first line ended with CRLF."""
    if original.split(b"\n", 1)[0].endswith(b"\r"):
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    return codecs.BOM_UTF8 + data if original.startswith(codecs.BOM_UTF8) else data
