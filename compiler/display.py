"""Text that came from an answer, made safe to show: it can never start a line, move the cursor or break a format.

Names, messages and output of a test are written by the program under test; so are test descriptions and, through
them, some diagnostics. Shown raw, a newline would forge a `PASS` line or a summary, an ANSI sequence would repaint
the terminal, and a control character would make a JUnit file invalid XML.
"""

from __future__ import annotations

import re

# Controls (C0, DEL, C1), the characters that end a line or reorder text, lone surrogates and non-characters.
_UNSAFE_IN_A_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
# What XML 1.0 cannot hold at all (line ends and tabs it can): the complement of its Char production, spelled as the
# few ranges it leaves out (the negated class of everything it allows took 5.6 ms to compile in every kite process).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}


def _escaped(match: re.Match) -> str:
    character = match.group()
    code = ord(character)
    return _NAMED.get(character) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text: str) -> str:
    """One line, every unsafe character spelled out (`\\n`, `\\e`, `\\x07`, `\\u2028`)."""
    return _UNSAFE_IN_A_LINE.sub(_escaped, text)


def xml_text(text: str) -> str:
    """Text XML can hold: line ends kept, everything XML 1.0 forbids spelled out."""
    return _NOT_XML.sub(_escaped, text)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a Python str holds a pair as one code point: any left are lone


def well_formed(text: str) -> str:
    """No lone surrogates (JSON from the test host may carry them): each becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def diff_name(name: str) -> str:
    """A file name for a diff's ---/+++ line, quoted as git quotes one (`"a/new\\nline.kite"`) when it holds a
    character that would end or forge the line, a quote or a backslash; otherwise as it is, so patch reads both."""
    if not _UNSAFE_IN_A_LINE.search(name) and '"' not in name and "\\" not in name:
        return name
    return '"' + visible(name.replace("\\", "\\\\").replace('"', '\\"')) + '"'
