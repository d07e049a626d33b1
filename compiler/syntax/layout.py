"""Indentation, checked line by line before parsing (KT000), and made consistent so the parser can go on."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from kite.syntax.foreign import BLOCK_STATEMENT
from kite.syntax.literals import fstring_end, quoted_end
from kite.syntax.nodes import made_in_c

INDENT = 4
HEADER = re.compile(r"(fn\s+[A-Za-z_]|if\b|elif\b|else\b|while\b|for\b|test\b|type\b|enum\b)")
HEADER_STARTS = frozenset("fiewt")  # HEADER's first letters: most lines (let, return, a call) are no header
# `f"` not after a name's character; each alternative starts with a literal character, so a search skips every other
# position without trying a match there.
LITERAL_OR_COMMENT = re.compile(r'"|\'|#|f(?<![A-Za-z0-9_].)"')


@made_in_c
class LogicalLine(NamedTuple):
    """A tuple, not a dataclass: every line of every file makes one, and a tuple is quicker to make."""

    first: int  # 1-based physical line numbers, inclusive
    last: int
    indent: int
    opens_block: bool


@dataclass(frozen=True)
class Layout:
    problems: tuple[tuple[int, int, str], ...]  # (line, column, message)
    lines: tuple[str, ...]  # physical lines, indentation made consistent
    logical: tuple[LogicalLine, ...]

    def logical_line_of(self, line: int) -> LogicalLine | None:
        for logical in self.logical:
            if logical.first <= line <= logical.last:
                return logical
        return None


def header_keyword(stripped: str) -> str | None:
    match = HEADER.match(stripped)
    return match.group(1).split()[0] if match else None


def bracket_delta(line: str) -> int:
    code = code_only(line)
    return code.count("(") + code.count("[") - code.count(")") - code.count("]")


def code_only(line: str, keep_columns: bool = False) -> str:
    """The line without its literals and comment; `keep_columns`: each literal blanked, so code keeps its columns."""
    if '"' not in line and "'" not in line and "#" not in line:  # nothing to take out (most lines): no search
        return line
    pieces, index = [], 0
    while (found := LITERAL_OR_COMMENT.search(line, index)) is not None:
        pieces.append(line[index:found.start()])
        opener = found.group()
        if opener == "#":
            return "".join(pieces)
        if opener == 'f"':
            index = fstring_end(line, found.start())
        else:
            index = quoted_end(line, found.start(), opener)
        if keep_columns:
            pieces.append(" " * (index - found.start()))
    pieces.append(line[index:])
    return "".join(pieces)


def check(text: str, declarations: frozenset[int] = frozenset()) -> Layout:
    """`declarations`: lines holding C#'s declarations (`public static void Main()`), whose blocks are their own."""
    lines = text.split("\n")
    problems: list[tuple[int, int, str]] = []
    logical: list[LogicalLine] = []
    stack = [0]
    raw_stack = [0]  # the width each block of `stack` was written with
    open_header: tuple[int, str] | None = None  # (index into logical, keyword) awaiting its block
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if not stripped or stripped[0] == "#":
            index += 1
            continue
        number = index + 1
        raw_indent = line[: len(line) - len(line.lstrip(" \t"))]
        if "\t" in raw_indent:
            width = len(raw_indent.expandtabs(INDENT))
            problems.append((number, 1, "tabs are not allowed in indentation: use 4 spaces"))
        else:
            width = len(raw_indent)
            if width % INDENT:
                problems.append((number, 1, f"indentation must be a multiple of 4 spaces, not {width}"))
        raw = width
        if raw % INDENT or raw_stack != stack:
            width, written = _block_width(raw, stack, raw_stack, open_header is not None)
            if not raw % INDENT and not written:
                problems.append((number, 1, "unexpected indent" if raw > raw_stack[-1] else "unindent does not match any outer block"))
        if open_header is not None:
            if width <= stack[-1]:
                header_index, keyword = open_header
                header = logical[header_index]
                problems.append((header.first, header.indent + 1, f"expected an indented block after '{keyword}'"))
                _drop(lines, logical, header_index)
            else:
                if width > stack[-1] + INDENT:
                    problems.append((number, 1, "indented too far: a block is 4 spaces deeper than its header"))
                    width = stack[-1] + INDENT
                stack.append(width)
                raw_stack.append(raw)
        elif width > stack[-1] and logical and (
            BLOCK_STATEMENT.match(lines[logical[-1].first - 1].strip()) or logical[-1].first in declarations
        ):
            previous = logical[-1]
            logical[-1] = LogicalLine(previous.first, previous.last, previous.indent, True)
            width = stack[-1] + INDENT
            stack.append(width)
            raw_stack.append(raw)
        elif width > stack[-1]:
            problems.append((number, 1, "unexpected indent"))
            width = stack[-1]
        if width < stack[-1]:
            while stack[-1] > width:
                stack.pop()
                raw_stack.pop()
            if stack[-1] != width:
                problems.append((number, 1, "unindent does not match any outer block"))
                width = stack[-1]
        # A line continues while ( or [ stay open (never one without either: most lines skip the count).
        last = index
        depth = bracket_delta(line) if "(" in line or "[" in line else 0
        while depth > 0 and last + 1 < len(lines):
            last += 1
            depth += bracket_delta(lines[last])
        lines[index] = " " * width + stripped
        opens = header_keyword(stripped) if stripped[0] in HEADER_STARTS else None
        logical.append(LogicalLine(number, last + 1, width, opens is not None))
        open_header = (len(logical) - 1, opens) if opens else None
        index = last + 1
    if open_header is not None:
        header_index, keyword = open_header
        header = logical[header_index]
        problems.append((header.first, header.indent + 1, f"expected an indented block after '{keyword}'"))
        _drop(lines, logical, header_index)
    return Layout(tuple(problems), tuple(lines), tuple(logical))


def _block_width(raw: int, stack: list[int], raw_stack: list[int], header_open: bool) -> tuple[int, bool]:
    """The width of the block a line `raw` spaces deep belongs to where blocks are not written 4 spaces a level
    (2-space style), and whether the line is written as that block is: deeper after a header opens its block, a
    width written before is that block again, anything else reads as the block around it (reported once, by the
    caller, so nothing cascades from it)."""
    if header_open and raw > raw_stack[-1]:
        return stack[-1] + INDENT, True
    level, written = next((level, written) for level, written in zip(reversed(stack), reversed(raw_stack)) if written <= raw)
    return level, written == raw


def _drop(lines: list[str], logical: list[LogicalLine], position: int) -> None:
    """A header without its block cannot parse: blank it so the lines around it still can."""
    header = logical.pop(position)
    for number in range(header.first, header.last + 1):
        lines[number - 1] = ""
