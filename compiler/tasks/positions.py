"""Where in the source text a node's tokens are: the one place the mutation code turns AST positions into offsets.

Nodes know where they start (line, column); where an operator sits or where a condition ends is found here from the
text. When nodes carry their ends (end_line, end_column), the scans below become lookups, and nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from kite.syntax import nodes as n
from kite.syntax.layout import bracket_delta
from kite.syntax.parser import comment_start

WORD_OPERATORS = frozenset({"and", "or", "in", "not"})


@dataclass(frozen=True)
class Span:
    start: int  # offsets into the text, end exclusive
    end: int


class Positions:
    def __init__(self, text: str):
        self.text = text
        self.lines = text.split("\n")
        self.line_starts = [0]
        for line in self.lines[:-1]:
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)

    def offset(self, line: int, column: int) -> int:
        return self.line_starts[line - 1] + column - 1

    def start(self, node) -> int:
        return self.offset(node.line, node.column)

    def literal(self, node: n.Literal) -> Span | None:
        """A literal's token, as written."""
        start = self.start(node)
        return Span(start, start + len(node.text)) if self.text.startswith(node.text, start) else None

    def operator_before(self, right, op: str) -> Span | None:
        """The operator `op` written just before the operand `right` (brackets and white space between them skipped):
        nodes start at their leftmost token, so this is the binary or assignment operator joining the two sides."""
        index = self.start(right)
        while index > 0 and self.text[index - 1] in " \t\n(":
            index -= 1
        start = index - len(op)
        if start < 0 or self.text[start:index] != op:
            return None
        if op in WORD_OPERATORS and start > 0 and (self.text[start - 1].isalnum() or self.text[start - 1] == "_"):
            return None
        return Span(start, index)

    def keyword(self, node, word: str) -> Span | None:
        """A keyword at the node's own position (`not`)."""
        start = self.start(node)
        return Span(start, start + len(word)) if self.text.startswith(word, start) else None

    def statement(self, line: int) -> Span:
        """A statement's code from its first character to the end of its last line (continued while a bracket is
        open), comments left out."""
        first = self.lines[line - 1]
        start = self.line_starts[line - 1] + len(first) - len(first.lstrip())
        return Span(start, self._code_end(line))

    def header_condition(self, line: int, keyword: str) -> Span | None:
        """The condition of an `if`, `elif` or `while` header starting on this line."""
        statement = self.statement(line)
        head = self.text[statement.start:statement.end]
        if not head.startswith(keyword + " "):
            return None
        start = statement.start + len(keyword)
        while self.text[start] == " ":
            start += 1
        return Span(start, statement.end)

    def _code_end(self, line: int) -> int:
        depth = 0
        while True:
            text = self.lines[line - 1]
            code = text[: comment_start(text)]
            depth += bracket_delta(code)
            if depth <= 0 or line == len(self.lines):
                return self.line_starts[line - 1] + len(code.rstrip())
            line += 1


def edited(text: str, span: Span, replacement: str) -> str:
    return text[: span.start] + replacement + text[span.end:]
