"""Kite's formatter: one canonical layout, no options (docs/format.md has the rules).

Only layout moves: the tokens stay the same and in the same order (a trailing comma before a closing bracket comes
and goes with the line breaks), literals are copied as written, every comment is kept. Text that is not Kite as
written (a syntax error, KT000, or another language in it, KT004) is refused with the first such diagnostic.
"""

from __future__ import annotations

from kite.diagnostics import Diagnostic, sort_key
from kite.format import gate, printer, tokens
from kite.source import SourceFile, decode, encode_like
from kite.syntax import leaks


class NotKite(Exception):
    """The text does not parse as written: the formatter leaves it alone."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def format_text(text: str, path: str = "<text>") -> str:
    """`text` (LF line ends, no BOM) in Kite's layout. Raises NotKite."""
    return printer.print_document(_read(text, path))


def format_pieces(text: str, path: str = "<text>") -> list[tuple[int, int, list[str]]]:
    """Kite's layout of `text` in pieces: (first row, row after the last, the lines written in their place), rows
    0-based; together they are format_text's result. Raises NotKite."""
    return printer.pieces(_read(text, path))


def _read(text: str, path: str) -> tokens.Document:
    document = tokens.read(text)
    if leaks.scan(text).leaks or not gate.parses(document):
        from kite.syntax.frontend import read_syntax  # the parser itself: the last word, and the message

        syntax = read_syntax(SourceFile(path, text))
        if syntax.diagnostics:
            raise NotKite(min(syntax.diagnostics, key=sort_key))
    return document


def format_bytes(data: bytes, path: str) -> bytes:
    """A file's bytes in Kite's layout, its BOM and CRLF line ends kept. Raises NotKite, or UnusableInput for bytes
    that are not text."""
    return encode_like(format_text(decode(path, data).text, path), data)
