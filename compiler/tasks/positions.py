"""Where in the source text a node and its operator are, as offsets: the mutation code's one way from AST positions to
text. Node ranges come from kite.search.spans (node ends, with the brackets and keywords around a node); an operator
is what lies between its two operands' spans."""

from __future__ import annotations

from dataclasses import dataclass

from kite.search.spans import Spans
from kite.syntax import nodes as n
from kite.syntax.frontend import SyntaxResult


@dataclass(frozen=True)
class Span:
    start: int  # offsets into the text, end exclusive
    end: int


class Positions:
    def __init__(self, text: str, syntax: SyntaxResult):
        self.text = text
        self.spans = Spans(text, syntax.parsed_lines)
        self.line_starts = [0]
        for line in text.split("\n")[:-1]:
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)

    def span(self, node) -> Span | None:
        """The node's text, brackets around a part of it included; None where the file's line is not what was parsed."""
        found = self.spans.span(node)
        if found is None:
            return None
        line, column, end_line, end_column = found
        return Span(self.line_starts[line - 1] + column - 1, self.line_starts[end_line - 1] + end_column - 1)

    def operator(self, node: n.Binary | n.Assign) -> Span | None:
        """The operator between a binary expression's operands, or an assignment's target and value."""
        left, right = (node.left, node.right) if isinstance(node, n.Binary) else (node.target, node.value)
        left_span, right_span = self.span(left), self.span(right)
        if left_span is None or right_span is None:
            return None
        gap = self.text[left_span.end:right_span.start]
        if gap.strip(" \t\n()[]") != node.op:
            return None
        start = left_span.end + gap.index(node.op)
        return Span(start, start + len(node.op))


def edited(text: str, span: Span, replacement: str) -> str:
    return text[: span.start] + replacement + text[span.end:]
