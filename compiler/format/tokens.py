"""Kite text as the formatter reads it: tokens per logical line, and the blank lines and comments between lines.

Literals, names, numbers and comments are the grammar's own terminals (grammar/kite.lark), so a literal is read exactly
as the parser reads it and copied as written. A logical line runs on while `(` or `[` is open, as the parser's
Indenter reads it. `<` and `>` after `list`, `set` or `map` are a type's angle brackets, told apart here from
comparisons; a word after `.` is a name (a member may be called `list`, as the parser's contextual lexer allows).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from kite.syntax.parser import kite_keywords, lark_parser

# Longest first, as one alternation: every operator and punctuation string of grammar/kite.lark (tests/test_format.py
# checks that each of the grammar's strings reads as one token).
OPERATORS = r"==|!=|<=|>=|->|=>|\+=|-=|\*=|/=|%=|[-+*/%<>=()\[\],.:?]"
OPEN, CLOSE = "([", ")]"
ANGLE_TYPES = frozenset({"list", "set", "map"})
# Token kinds.
NAME, KEYWORD, NUMBER, LITERAL, OP, COMMENT = "name", "keyword", "number", "literal", "op", "comment"
ANGLE_OPEN, ANGLE_CLOSE = "<type", ">type"
BAD = "bad"


@functools.cache
def token_pattern() -> re.Pattern:
    terminals = {terminal.name: terminal.pattern.to_regexp() for terminal in lark_parser().terminals}
    groups = [
        (COMMENT, terminals["COMMENT"]),
        ("fstring", terminals["FSTRING"]),
        ("string", terminals["STRING"]),
        ("char", terminals["CHAR"]),
        ("dec", terminals["DEC"]),
        ("int", terminals["INT"]),
        ("word", terminals["NAME"]),
        (OP, OPERATORS),
        (BAD, r"[^ \t]"),
    ]
    # Blanks before a token are part of its match: one match per token.
    return re.compile(r"[ \t]*(?:" + "|".join(f"(?P<{name}>{pattern})" for name, pattern in groups) + ")")


KINDS = {"fstring": LITERAL, "string": LITERAL, "char": LITERAL, "dec": NUMBER, "int": NUMBER, OP: OP, BAD: BAD}


class Token(NamedTuple):
    kind: str
    text: str
    row: int  # 0-based physical line
    own_line: bool = False  # a comment alone on its line (else it ends a line of code)


_token = tuple.__new__  # Token(...) without the keyword handling of its __new__: read() makes every token


@dataclass
class Line:
    """One logical line: its tokens (comments inside it included) and where and how deep it was written."""

    row: int  # first physical line, 0-based
    last_row: int
    indent: str  # the first physical line's indentation, as written
    tokens: list[Token] = field(default_factory=list)

    @property
    def code(self) -> list[Token]:
        return [token for token in self.tokens if token.kind != COMMENT]


# What lies between two logical lines: a blank line, or a comment alone on its line (with its column, 0-based).
BLANK = None


@dataclass
class Comment:
    column: int
    text: str


@dataclass
class Document:
    lines: list[Line]
    gaps: list[list]  # gaps[i] comes before lines[i]; the last one ends the file (len(gaps) == len(lines) + 1)
    rows: int = 0  # physical lines, the empty one after a last newline included


def read(text: str) -> Document:
    """`text` with LF line ends and no BOM (kite.source.decode)."""
    finditer = token_pattern().finditer
    keywords = kite_keywords()
    lines: list[Line] = []
    gaps: list[list] = [[]]
    current: Line | None = None
    depth = 0
    angles = 0  # open angle brackets of a type
    previous = ""  # the text of the last code token
    physical_lines = text.split("\n")
    for row, physical in enumerate(physical_lines):
        stripped = physical.strip(" \t")
        if current is None:
            if not stripped:
                gaps[-1].append(BLANK)
                continue
            if stripped.startswith("#"):
                gaps[-1].append(Comment(len(physical) - len(physical.lstrip(" \t")), stripped))
                continue
            current = Line(row, row, physical[: len(physical) - len(physical.lstrip(" \t"))])
        current.last_row = row
        tokens = current.tokens
        append = tokens.append
        had_code = False
        for match in finditer(physical):
            group = match.lastgroup
            assert group is not None, "every alternative of the scanner is a named group"
            value = match.group(group)
            if group == "word":
                append(_token(Token, (KEYWORD if value in keywords and previous != "." else NAME, value, row, False)))
            elif group == OP:
                kind = OP
                if value in OPEN:
                    depth += 1
                elif value in CLOSE:
                    depth -= 1
                elif value == "<" and previous in ANGLE_TYPES and tokens and tokens[-1].kind == KEYWORD:
                    kind = ANGLE_OPEN
                    angles += 1
                elif angles and value in (">", ">="):
                    kind = ANGLE_CLOSE
                    angles -= 1
                    if value == ">=":  # `map<str, int>= x`: the type closes, then `=`
                        append(_token(Token, (ANGLE_CLOSE, ">", row, False)))
                        value, kind = "=", OP
                append(_token(Token, (kind, value, row, False)))
            elif group == COMMENT:
                append(_token(Token, (COMMENT, value.rstrip(), row, not had_code)))
                continue
            else:
                append(_token(Token, (KINDS[group], value, row, False)))
            had_code = True
            previous = value
        if depth <= 0:
            lines.append(current)
            gaps.append([])
            current, depth, angles, previous = None, 0, 0, ""
    if current is not None:  # a bracket never closed: the gate refuses it
        lines.append(current)
        gaps.append([])
    return Document(lines, gaps, len(physical_lines))


def tokens_of(text: str) -> list[Token]:
    """The tokens of one line of code (an f-string hole): no layout."""
    document = read(text)
    return [token for line in document.lines for token in line.tokens]
