"""Content-Length framing, the one thing the Debug Adapter Protocol shares with the Language Server Protocol:
`Content-Length: N\\r\\n` (other headers allowed), a blank line, then N bytes of JSON. DAP (kite.debug.adapter) sits
on this module; the language server keeps pygls's own loop (docs/editors.md says why)."""

from __future__ import annotations

import json
from typing import BinaryIO

HEADER_END = b"\r\n\r\n"
LENGTH = b"content-length:"
MAX_BODY = 64 << 20  # a frame claiming more is not believed


class FramingError(Exception):
    """The stream is not Content-Length framed, or a body is not a JSON object."""


def encode(message: dict) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: " + str(len(body)).encode() + HEADER_END + body


class Reader:
    """Bytes in, whole messages out, whatever the reads cut: a message split over two reads, several in one,
    and anything before the first header (a shell's banner, a stray newline) skipped."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[dict]:
        self.buffer += data
        messages: list[dict] = []
        while True:
            start = self.buffer.lower().find(LENGTH)
            if start < 0:
                del self.buffer[: max(0, len(self.buffer) - len(LENGTH))]  # noise: keep only what may start a header
                return messages
            end = self.buffer.find(HEADER_END, start)
            if end < 0:
                del self.buffer[:start]
                return messages
            length = _length(bytes(self.buffer[start:end]))
            body_start = end + len(HEADER_END)
            if len(self.buffer) < body_start + length:
                del self.buffer[:start]
                return messages
            body = bytes(self.buffer[body_start: body_start + length])
            del self.buffer[: body_start + length]
            try:
                message = json.loads(body)
            except ValueError:
                raise FramingError("a frame's body is not JSON") from None
            if not isinstance(message, dict):
                raise FramingError("a frame's body is not a JSON object")
            messages.append(message)


def _length(headers: bytes) -> int:
    for line in headers.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise FramingError(f"Content-Length is not a number: {value.strip()[:20]!r}") from None
            if not 0 <= length <= MAX_BODY:
                raise FramingError(f"Content-Length {length} is out of range")
            return length
    raise FramingError("a frame has no Content-Length")


def messages(stream: BinaryIO):
    """Every message on a stream, until it ends."""
    reader = Reader()
    while True:
        chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
        if not chunk:
            return
        yield from reader.feed(chunk)
