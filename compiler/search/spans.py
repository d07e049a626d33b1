"""Where a matched node is in its file: start and end, as line and column of the file itself.

A node carries its end (`end_line`, `end_column`). Two things its position leaves out are added from the text:
the keywords before a declaration's name (`let mut x`: the node is at `x`), and the brackets the parser keeps no node
for (`(a + b) * c` starts at its `(`, `not (a in b)` ends at its `)`).

Positions in nodes are those of the text the parser read, whose indentation the layout pass made consistent; `Spans`
maps them back to the file's own columns, and refuses (None) on a line recovery rewrote.
"""

from __future__ import annotations

import re
from itertools import accumulate

from kite.syntax import nodes as n
from kite.syntax.layout import code_only

DECLARATIONS = (n.Let, n.Use, n.TypeDecl, n.EnumDecl, n.FnDecl, n.Module)
# The keywords a declaration's name follows, as the end of the text before it.
LEADING_KEYWORDS = re.compile(r"(?<![A-Za-z0-9_])(?:(?:let|use|type|enum|fn|module)[ \t]+(?:mut[ \t]+)?)$")
BRACKET_DEPTH = {"(": 1, "[": 1, ")": -1, "]": -1}
BRACKET = re.compile(r"[()\[\]]")


class Spans:
    def __init__(self, source_text: str, parsed_lines: tuple[str, ...]):
        self.source_lines = source_text.split("\n")
        self._parsed_lines = parsed_lines
        # Every line as the parser read it (most files): then each line's shift is 0, with nothing to compare.
        self.as_written = parsed_lines == tuple(self.source_lines)
        self._shifts: dict[int, int | None] = {}  # shift's answers: a search asks about the same lines again and again

    # ---- the file's coordinates

    def in_file(self, line: int, column: int) -> tuple[int, int] | None:
        """A parsed-text position in the file, or None where the parser read another line than the file holds."""
        shift = self.shift(line)
        return None if shift is None else (line, column + shift)

    def shift(self, line: int) -> int | None:
        """How many columns right of the parsed line the file's line `line` is (their indentation differs), or None
        where the parser read another line than the file holds."""
        if self.as_written:
            return 0 if 0 < line <= len(self.source_lines) else None
        if line in self._shifts:
            return self._shifts[line]
        shift = None
        if 0 < line <= len(self._parsed_lines) and line <= len(self.source_lines):
            parsed, written = self._parsed_lines[line - 1], self.source_lines[line - 1]
            if parsed == written:
                shift = 0  # the line as written (most are)
            elif parsed.strip() == written.strip():
                shift = (len(written) - len(written.lstrip())) - (len(parsed) - len(parsed.lstrip()))
        self._shifts[line] = shift
        return shift

    def span(self, node) -> tuple[int, int, int, int] | None:
        """(line, column, end_line, end_column) in the file, end just past the last character; a tuple of nodes
        runs from its first to its last. None where any line of it is not the file's as written."""
        first_node, last_node = (node[0], node[-1]) if isinstance(node, tuple) else (node, node)
        start = self.start(first_node)
        end = (last_node.end_line, last_node.end_column)
        if not isinstance(node, tuple):
            start, end = self._balanced(start, end)
        if self.as_written:
            lines = len(self.source_lines)
            return (*start, *end) if 0 < start[0] <= lines and 0 < end[0] <= lines else None
        file_start, file_end = self.in_file(*start), self.in_file(*end)
        if file_start is None or file_end is None or any(self.shift(line) is None for line in range(file_start[0], file_end[0] + 1)):
            return None
        return (*file_start, *file_end)

    def text(self, span: tuple[int, int, int, int]) -> str:
        return _cut(self.source_lines, *span)

    # ---- what a node's own position leaves out (parsed-text coordinates)

    def start(self, node) -> tuple[int, int]:
        """Some nodes carry their name's position (`let x`, `fn f`, `module M`), not their keyword's."""
        if isinstance(node, DECLARATIONS):
            keywords = LEADING_KEYWORDS.search(self._parsed_lines[node.line - 1], 0, node.column - 1)
            if keywords is not None:
                return node.line, keywords.start() + 1
        return node.line, node.column

    def _balanced(self, start: tuple[int, int], end: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
        """Out over the brackets a node's text closes but does not open, or opens but does not close."""
        depths = list(accumulate(map(BRACKET_DEPTH.__getitem__, _brackets(_cut(self._parsed_lines, *start, *end))), initial=0))
        depth, lowest = depths[-1], min(depths)
        while lowest < 0 and (before := self._bracket_before(start)) is not None:
            start, lowest, depth = before, lowest + 1, depth + 1
        while depth > 0 and (after := self._bracket_after(end)) is not None:
            end, depth = after, depth - 1
        return start, end

    def _bracket_before(self, start: tuple[int, int]) -> tuple[int, int] | None:
        """The `(` or `[` just before `start`, over spaces, and over line ends and comments (inside brackets)."""
        line, column = start
        text = self._parsed_lines[line - 1][:column - 1].rstrip(" \t")
        while not text and line > 1:
            line -= 1
            text = code_only(self._parsed_lines[line - 1], keep_columns=True).rstrip(" \t")
        return (line, len(text)) if text.endswith(("(", "[")) else None

    def _bracket_after(self, end: tuple[int, int]) -> tuple[int, int] | None:
        """Just past the `)` or `]` right after `end`, over spaces, and over comments and line ends."""
        line, column = end
        code = code_only(self._parsed_lines[line - 1][column - 1:], keep_columns=True)
        while not code.strip() and line < len(self._parsed_lines):
            line, column = line + 1, 1
            code = code_only(self._parsed_lines[line - 1], keep_columns=True)
        after = code.lstrip(" \t")
        if not after.startswith((")", "]")):
            return None
        return line, column + len(code) - len(after) + 1


def _cut(lines, line: int, column: int, end_line: int, end_column: int) -> str:
    """The text of `lines` from (line, column) to just before (end_line, end_column)."""
    if line == end_line:
        return lines[line - 1][column - 1:end_column - 1]
    return "\n".join([lines[line - 1][column - 1:], *lines[line:end_line - 1], lines[end_line - 1][:end_column - 1]])


def _brackets(text: str) -> list[str]:
    """The brackets of code text in order; each line starts in code (no literal runs over a line end)."""
    if '"' in text or "'" in text or "#" in text:  # literals or a comment to take out (most declarations have none)
        text = "\n".join(map(code_only, text.split("\n")))
    return BRACKET.findall(text)  # found by the regex engine: a declaration is long
