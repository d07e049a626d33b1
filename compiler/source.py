"""Reading a Kite source file: bytes to text, with errors a user can act on."""

from __future__ import annotations

import codecs
import contextlib
from dataclasses import dataclass
from pathlib import Path

from kite.errors import UnusableInput


@dataclass(frozen=True)
class SourceFile:
    path: str  # as the user named it; diagnostics print it
    text: str  # LF line ends, no BOM

    @property
    def name(self) -> str:
        return Path(self.path).name


def decode(path: str, data: bytes) -> SourceFile:
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    if b"\x00" in data:
        raise UnusableInput(f"{path}: binary file (NUL byte at offset {data.index(0)}), not Kite source")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnusableInput(f"{path}: not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})") from None
    return SourceFile(path, text.replace("\r\n", "\n").replace("\r", "\n"))


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


def read(path: str) -> SourceFile:
    with reading_errors(path, "a .kite file"):
        data = Path(path).read_bytes()
    if not data.strip():
        raise UnusableInput(f"{path}: empty file")
    return decode(path, data)
