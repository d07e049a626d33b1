"""Reading a Kite source file: bytes to text, with errors a user can act on."""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from kite.errors import UnusableInput

# Far above any honest answer (an 8,000-line program is about 300 KB; a 2 MB file is still checked), and a bound on
# what one file can cost the Kite layer, which runs before any budget.
MAX_SOURCE_BYTES = 2 * 1024 * 1024
MAX_SOURCE_LINES = 200_000
# A str can hold a surrogate code point alone (JSON's "\ud800", an LSP buffer, an API caller): no UTF-8 file can, and
# neither Roslyn's input nor .NET's marshalling takes it (the compile process dies of SIGABRT).
SURROGATE = re.compile("[\ud800-\udfff]")


class NotUnicode(UnusableInput):
    """Text with a surrogate code point alone: not Unicode text, whatever door it came in by."""

    def __init__(self, path: str, reason: str, line: int, column: int):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason, self.line, self.column = path, reason, line, column


def not_unicode(path: str, text: str) -> NotUnicode | None:
    """Why `text` is not Unicode text (its first lone surrogate, 1-based line and column), or None."""
    if text.isascii():  # most texts: none can hold a surrogate, and asking costs nothing (the search, a char at a time)
        return None
    found = SURROGATE.search(text)
    if found is None:
        return None
    line = text.count("\n", 0, found.start()) + 1
    column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    return NotUnicode(path, f"not Unicode text (a lone surrogate U+{ord(found.group()):04X} at line {line}, column {column})",
                      line, column)


@dataclass(frozen=True)
class SourceFile:
    """Kite text that every layer can take: refused at construction when it is not Unicode text."""

    path: str  # as the user named it; diagnostics print it
    text: str  # LF line ends, no BOM

    def __post_init__(self) -> None:
        refused = not_unicode(self.path, self.text)
        if refused is not None:
            raise refused

    @property
    def name(self) -> str:
        return Path(self.path).name


# Byte order marks of the encodings editors on Windows write; checked longest first (UTF-32 LE starts as UTF-16 LE).
WIDE_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32 (little-endian)"), (codecs.BOM_UTF32_BE, "UTF-32 (big-endian)"),
             (codecs.BOM_UTF16_LE, "UTF-16 (little-endian)"), (codecs.BOM_UTF16_BE, "UTF-16 (big-endian)"))


def wide_encoding(data: bytes) -> str:
    """The name of the UTF-16 or UTF-32 encoding `data` is written in (by its BOM, or, without one, by a NUL beside
    every ASCII character, as `Out-File` and some editors write it), or ""."""
    for bom, name in WIDE_BOMS:
        if data.startswith(bom):
            return name
    head = data[:4096]
    if len(head) >= 4 and len(head) % 2 == 0 and b"\x00" in head:  # no NUL, no NUL beside each character: no slicing
        for zeros, text, name in ((head[1::2], head[0::2], "UTF-16 (little-endian)"), (head[0::2], head[1::2], "UTF-16 (big-endian)")):
            if not zeros.strip(b"\x00") and text.isascii() and b"\x00" not in text:
                return name
    return ""


def too_large(path: str, text: str) -> str:
    """Why `text` is more than the Kite layer takes in one file ("" when it is not), whatever door it came in by: a
    file, or a run line's answer, which the Kite layer reads in kite's own process before any budget applies."""
    # ASCII text is as many bytes as characters: only other text is encoded to count its bytes
    if len(text) > MAX_SOURCE_BYTES or (not text.isascii() and len(text.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES):
        return f"{path}: too large to check (more than kite's limit of {MAX_SOURCE_BYTES >> 20} MiB)"
    lines = text.count("\n") + (not text.endswith("\n"))
    if lines > MAX_SOURCE_LINES:
        return f"{path}: too long to check ({lines:,} lines, more than kite's limit of {MAX_SOURCE_LINES:,})"
    return ""


def decode(path: str, data: bytes) -> SourceFile:
    if len(data) > MAX_SOURCE_BYTES:
        raise UnusableInput(f"{path}: too large to check (more than kite's limit of {MAX_SOURCE_BYTES >> 20} MiB)")
    data = data.removeprefix(codecs.BOM_UTF8)
    encoding = wide_encoding(data)
    if encoding:
        raise UnusableInput(f"{path}: {encoding} text, not UTF-8: Kite reads UTF-8 source (save the file as UTF-8)")
    if b"\x00" in data:
        raise UnusableInput(f"{path}: binary file (NUL byte at offset {data.index(0)}), not Kite source")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UnusableInput(f"{path}: not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    problem = too_large(path, text)
    if problem:
        raise UnusableInput(problem)
    return SourceFile(path, text)


class reading_errors:  # lower case, as contextlib's context managers are: `with reading_errors(path, ...)`
    """A file that cannot be read, as one line a user can act on; `expected` names what the path should be. A class,
    not a contextlib generator: every file read enters two, and a generator costs several times as much."""

    def __init__(self, path: str, expected: str):
        self.path, self.expected = path, expected

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: object) -> None:
        if isinstance(error, FileNotFoundError):
            raise UnusableInput(f"{self.path}: no such file") from None
        if isinstance(error, IsADirectoryError):
            raise UnusableInput(f"{self.path}: is a directory, not {self.expected}") from None
        if isinstance(error, OSError):
            raise UnusableInput(f"{self.path}: cannot read ({error.strerror})") from None


# What a path names when it is not a regular file: never read, since a FIFO or a device can block or never end.
NOT_REGULAR = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISSOCK, "a socket"))


# A path that names one of the reading process's own descriptors (`/dev/stdin`, a shell's `<(...)`): the caller's
# own stream, read like `cat` reads it. The warm server has other descriptors, so such commands run in-process.
STDIN_PATH, STDIN_NAME = "-", "<stdin>"  # `kite check -` reads stdin as ruff does; messages call it <stdin>
OWN_DESCRIPTORS = ("/dev/stdin", "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/")


def names_own_descriptor(path: str) -> bool:
    return path == STDIN_PATH or os.path.abspath(path).startswith(OWN_DESCRIPTORS)


def reaches_own_descriptor(path: str) -> bool:
    """Whether `path` leads to one of this process's descriptors however it is spelled (`//dev/stdin`, a link to
    /dev/stdin, /proc/<this pid>/fd/0): another process opening it would read its own. Followed a link at a time, as
    the kernel does (at most 40): resolving /dev/stdin whole leads to the file or pipe behind the descriptor."""
    if path == STDIN_PATH:
        return True
    own = (*OWN_DESCRIPTORS, f"/proc/{os.getpid()}/fd/", f"/proc/{os.getpid()}/task/")
    for _ in range(40):
        folder, name = os.path.split(os.path.abspath(path))
        path = os.path.join(os.path.realpath(folder), name)
        if path.startswith(own):
            return True
        try:
            path = os.path.join(os.path.dirname(path), os.readlink(path))
        except OSError:
            return False
    return False


def open_regular(path: str, expected: str) -> int:
    """A descriptor of `path` when it is a regular file; opened without blocking, so a FIFO with no writer cannot
    stall the opener (nor, in the warm server, every later command)."""
    with reading_errors(path, expected):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
        except OSError as error:
            if error.errno == errno.ENXIO:  # a socket cannot be opened at all: say what it is, not ENXIO's words
                refuse_unless_regular(path, os.stat(path).st_mode, expected)
            raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode) and not (names_own_descriptor(path) and not stat.S_ISDIR(mode)):
        os.close(fd)
        refuse_unless_regular(path, mode, expected)
    os.set_blocking(fd, True)
    return fd


def refuse_unless_regular(path: str, mode: int, expected: str, does: str = "reads") -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise UnusableInput(f"{path}: is a directory, not {expected}")
    kind = next((name for test, name in NOT_REGULAR if test(mode)), "not a regular file")
    raise UnusableInput(f"{path}: {kind}, not {expected} (kite {does} regular files only)")


def read_regular(path: str, expected: str, limit: int) -> bytes:
    """At most `limit` bytes of a regular file (one line a user can act on for anything else)."""
    with reading_errors(path, expected):
        fd = open_regular(path, expected)
        try:
            return read_descriptor(fd, limit)
        finally:
            os.close(fd)


def read_descriptor(fd: int, limit: int) -> bytes:
    """At most `limit` bytes from `fd`, by os.read in chunks of the file's size: a buffered file object's read(limit)
    costs a limit-sized buffer for every small file (44 against 14 us for an answer-sized one)."""
    chunks, left = [], limit
    chunk_size = min(limit, max(os.fstat(fd).st_size + 1, 1 << 16))
    while left > 0:
        chunk = os.read(fd, min(left, chunk_size))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_bytes(path: str) -> bytes:
    """A source file's bytes as written (not empty, within the size limit); decode() makes them text. STDIN_PATH is
    this process's stdin."""
    if path == STDIN_PATH:
        return read_stdin(STDIN_NAME)
    return refuse_empty(path, read_regular(path, "a .kite file", MAX_SOURCE_BYTES + 1))  # never more than the limit


def read_stdin(name: str) -> bytes:
    return refuse_empty(name, sys.stdin.buffer.read(MAX_SOURCE_BYTES + 1))  # decode() refuses what is longer


def refuse_empty(path: str, data: bytes) -> bytes:
    """`data`, unless it holds nothing but whitespace, after the BOM an editor may write into an empty UTF-8 file."""
    if not data.removeprefix(codecs.BOM_UTF8).strip():
        raise UnusableInput(f"{path}: empty file")
    return data


def read(path: str) -> SourceFile:
    return decode(STDIN_NAME if path == STDIN_PATH else path, read_bytes(path))


def encode_like(text: str, original: bytes) -> bytes:
    """`text` (LF line ends, no BOM, as decode() makes it) written back as `original` was: with its BOM if it had one,
    with CRLF line ends if its first line ended with CRLF."""
    if original.split(b"\n", 1)[0].endswith(b"\r"):
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    return codecs.BOM_UTF8 + data if original.startswith(codecs.BOM_UTF8) else data
