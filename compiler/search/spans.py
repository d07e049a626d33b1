"""Where a matched node is in its file: start and end, as line and column of the file itself.

Nodes carry their start only; a teammate is adding end_line/end_column to every node. Until that lands, `Spans.end`
is the ONE place that works an end out, from the tokens of Kite's own lexer (so a bracket inside a string or a
comment never counts): swap its body for `node.end_line, node.end_column` then.

Positions in nodes are those of the text the parser read, whose indentation the layout pass made consistent; `Spans`
maps them back to the file's own columns, and refuses (None) on a line recovery rewrote.
"""

from __future__ import annotations

import functools

from lark.exceptions import LarkError
from lark.lexer import BasicLexer, LexerThread

from kite.syntax import nodes as n
from kite.syntax.parser import KiteIndenter, lark_parser

# Keywords before the name whose position a declaration carries.
LEADING_KEYWORDS = frozenset({"let", "mut", "use", "type", "enum", "fn", "module"})
DECLARATIONS = (n.Let, n.Use, n.TypeDecl, n.EnumDecl, n.FnDecl, n.Module)
LINE_ENDS = frozenset({"_NL", "_INDENT", "_DEDENT"})
CLOSER = {"(": ")", "[": "]"}


class Spans:
    def __init__(self, source_text: str, parsed_lines: tuple[str, ...]):
        self.source_lines = source_text.split("\n")
        self._parsed_lines = parsed_lines
        self._tokens: list[tuple] | None = None
        self._index: dict[tuple[int, int], int] = {}

    # ---- the file's coordinates

    def in_file(self, line: int, column: int) -> tuple[int, int] | None:
        """A parsed-text position in the file, or None where the parser read another line than the file holds."""
        if not (0 < line <= len(self._parsed_lines) and line <= len(self.source_lines)):
            return None
        parsed, written = self._parsed_lines[line - 1], self.source_lines[line - 1]
        if parsed.strip() != written.strip():
            return None
        return line, column - (len(parsed) - len(parsed.lstrip())) + (len(written) - len(written.lstrip()))

    def span(self, node) -> tuple[int, int, int, int] | None:
        """(line, column, end_line, end_column) in the file, end just past the last character; a tuple of nodes
        runs from its first to its last. None where any line of it is not the file's as written."""
        first_node, last_node = (node[0], node[-1]) if isinstance(node, tuple) else (node, node)
        tokens, first = self._first_token(first_node)
        last_tokens, last = self._tokens_at(last_node.line, last_node.column)
        last = _last_token(last_node, last_tokens, last, self)
        if last_tokens is tokens:
            first, last = _balanced(tokens, first, last)
        start = self.in_file(tokens[first][2], tokens[first][3])
        end = self.in_file(last_tokens[last][4], last_tokens[last][5])
        if start is None or end is None or any(self.in_file(line, 1) is None for line in range(start[0], end[0] + 1)):
            return None
        return (*start, *end)

    def text(self, span: tuple[int, int, int, int]) -> str:
        line, column, end_line, end_column = span
        if line == end_line:
            return self.source_lines[line - 1][column - 1:end_column - 1]
        middle = self.source_lines[line:end_line - 1]
        return "\n".join([self.source_lines[line - 1][column - 1:], *middle, self.source_lines[end_line - 1][:end_column - 1]])

    # ---- the end of a node (the one helper to swap for node.end_line / node.end_column)

    def end(self, node) -> tuple[int, int]:
        """Line and column just past the node's last character, in the parsed text."""
        tokens, index = self._tokens_at(node.line, node.column)
        _, last = _balanced(tokens, index, _last_token(node, tokens, index, self))
        return tokens[last][4], tokens[last][5]

    def _first_token(self, node) -> tuple[list[tuple], int]:
        """Where a node starts: some carry their name's position (`let x`, `fn f`, `module M`), not their keyword's."""
        tokens, index = self._tokens_at(node.line, node.column)
        while isinstance(node, DECLARATIONS) and index > 0 and tokens[index - 1][1] in LEADING_KEYWORDS and tokens[index - 1][0] != "NAME":
            index -= 1
        return tokens, index

    def _tokens_at(self, line: int, column: int) -> tuple[list[tuple], int]:
        """The token list holding the token that starts at (line, column), and its index there."""
        if self._tokens is None:
            self._tokens = [_plain(token) for token in _lex("\n".join(self._parsed_lines) + "\n")]
            self._index = {(token[2], token[3]): i for i, token in enumerate(self._tokens)}
        found = self._index.get((line, column))
        if found is not None:
            return self._tokens, found
        # Inside an f-string's hole: that hole's own tokens, up to where the lexer stops (the hole's `}`).
        text = self._parsed_lines[line - 1][column - 1:]
        hole: list[tuple] = []
        try:
            for token in _lex(text):
                kind, value, at_line, at_column, to_line, to_column = _plain(token)
                if at_line > 1:
                    break
                hole.append((kind, value, line, at_column + column - 1, line, to_column + column - 1))
        except (LarkError, AssertionError):  # the hole's `}`, or its enclosing `)` (the indenter asserts on that)
            pass
        return hole, 0


@functools.cache
def _lexer() -> BasicLexer:
    """The grammar's lexer, built once (Lark.lex builds one per call)."""
    return BasicLexer(lark_parser().lexer_conf)


def _lex(text: str):
    """Kite's tokens of `text`, line ends and indentation as the parser sees them."""
    return KiteIndenter().process(LexerThread.from_text(_lexer(), text).lex(None))


def _plain(token) -> tuple:
    return token.type, token.value, token.line, token.column, token.end_line, token.end_column


def _balanced(tokens, first: int, last: int) -> tuple[int, int]:
    """Out over the brackets a node's tokens close but do not open, or open but do not close: the parser keeps no
    node for parentheses, so `(a + b) * c` starts at its `(` and `not (a in b)` ends at its `)`."""
    depth = lowest = 0
    for i in range(first, last + 1):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(tokens[i][1], 0)
        lowest = min(lowest, depth)
    while lowest < 0 and first > 0 and tokens[first - 1][1] in ("(", "["):
        first, lowest, depth = first - 1, lowest + 1, depth + 1
    while depth > 0 and last + 1 < len(tokens) and tokens[last + 1][1] in (")", "]"):
        last, depth = last + 1, depth - 1
    return first, last


def _first_after(tokens, index: int, value: str) -> int:
    return next(i for i in range(index + 1, len(tokens)) if tokens[i][1] == value and tokens[i][0] not in LINE_ENDS)


def _closing(tokens, index: int) -> int:
    """The bracket that closes the one at `index`."""
    opener, depth = tokens[index][1], 0
    for i in range(index, len(tokens)):
        if tokens[i][1] == opener and tokens[i][0] not in ("STRING", "CHAR"):
            depth += 1
        elif tokens[i][1] == CLOSER[opener] and tokens[i][0] not in ("STRING", "CHAR"):
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced brackets in text the parser accepted")


def _line_end(tokens, index: int) -> int:
    """The last token of the logical line from `index` (the lexer's postlex drops line ends inside brackets)."""
    i = index
    while i + 1 < len(tokens) and tokens[i + 1][0] not in LINE_ENDS:
        i += 1
    return i


def _type_end(tokens, index: int) -> int:
    """A type: a (dotted) name, `<...>` arguments, then `?`."""
    i = index
    while i + 2 < len(tokens) and tokens[i + 1][1] == "." and tokens[i + 2][0] == "NAME":
        i += 2
    if i + 1 < len(tokens) and tokens[i + 1][1] == "<":
        depth = 0
        for i in range(i + 1, len(tokens)):
            depth += {"<": 1, ">": -1}.get(tokens[i][1], 0)
            if depth == 0:
                break
    if i + 1 < len(tokens) and tokens[i + 1][1] == "?":
        i += 1
    return i


def _last_token(node, tokens, index: int, spans: Spans) -> int:
    """Index (into `tokens`) of the node's last token; `index` is its first."""

    def after(child) -> int:
        at = (child.line, child.column)
        if tokens is spans._tokens:
            child_index = spans._index[at]
        else:  # a hole's own few tokens
            child_index = next(i for i in range(index, len(tokens)) if tokens[i][2:4] == at)
        return _last_token(child, tokens, child_index, spans)

    if isinstance(node, (n.Name, n.Literal, n.FString, n.Break, n.Continue, n.Pass, n.EnumMember)):
        return index
    if isinstance(node, n.Formatted):
        return after(node.value)
    if isinstance(node, (n.Binary,)):
        return after(node.right)
    if isinstance(node, n.Unary):
        return after(node.operand)
    if isinstance(node, n.Lambda):
        return after(node.body)
    if isinstance(node, n.Member):
        return _first_after(tokens, after(node.target), ".") + 1
    if isinstance(node, n.Call):
        return _closing(tokens, _first_after(tokens, after(node.func), "("))
    if isinstance(node, n.Index):
        return _closing(tokens, _first_after(tokens, after(node.target), "["))
    if isinstance(node, n.TypeCall):
        return _closing(tokens, _first_after(tokens, _type_end(tokens, index), "("))
    if isinstance(node, n.ListLiteral):
        return _closing(tokens, index)
    if isinstance(node, n.TypeRef):
        return _type_end(tokens, index)
    if isinstance(node, n.Param):
        return after(node.type) if node.type is not None else index
    if isinstance(node, n.If):
        return after((node.orelse or node.branches[-1][1])[-1])
    if isinstance(node, (n.While, n.For, n.FnDecl, n.TestDecl)):
        return after(node.body[-1])
    if isinstance(node, n.TypeDecl):
        return after(node.fields[-1])
    if isinstance(node, n.EnumDecl):
        return after(node.members[-1])
    if isinstance(node, n.Module):
        return after(node.items[-1]) if node.items else _line_end(tokens, index)
    # The one-line statements and items: let, assignment, expression, return, expect, use, field.
    return _line_end(tokens, index)
