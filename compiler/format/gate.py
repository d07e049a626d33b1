"""A quick yes to "does this parse?", for the formatter: grammar/kite.lark read over the formatter's tokens.

Kite's parser (Lark) reads about 10,000 lines a second; the formatter must do more. So this reads the common shape
of Kite by hand and answers only `True` (it parses as the parser would parse it) or `False` (not sure): on `False` the
formatter asks the parser itself (kite.syntax.frontend), which has the last word and the message. It must never
say `True` where the parser says no (tests/test_format.py holds it to that over the corpus and generated programs);
saying `False` too often only costs time. Whatever it does not know (a new construct in the grammar, a word of a
keyword used as a name, nesting near the limit) is `False`.
"""

from __future__ import annotations

import re

from kite.format.tokens import ANGLE_CLOSE, ANGLE_OPEN, COMMENT, KEYWORD, LITERAL, NAME, NUMBER, OP, Document, tokens_of
from kite.syntax.literals import hole_end
from kite.syntax.parser import CHAR_ESCAPES, FSTRING_ESCAPES, MAX_NESTING, STRING_ESCAPES

INDENT = 4
HEADERS = frozenset({"if", "elif", "else", "while", "for", "fn", "test", "type", "enum"})
ASSIGN = frozenset({"=", "+=", "-=", "*=", "/=", "%="})
ATOM_KEYWORDS = frozenset({"true", "false", "none"})
# Nesting this deep is left to the parser, which counts it exactly (MAX_NESTING); this count is never below its own.
DEPTH_LIMIT = MAX_NESTING // 2
ESCAPE = re.compile(r"\\(.)")


class _No(Exception):
    """Not sure that this parses."""


def parses(document: Document) -> bool:
    try:
        _Module(document).read()
    except (_No, IndexError, RecursionError):
        return False
    return True


def _escapes_ok(body: str, allowed: frozenset | set) -> bool:
    return "\\" not in body or all(match.group(1) in allowed for match in ESCAPE.finditer(body))


# Binary operators and how tightly each binds (the grammar's rules, lowest first: or, and, not, comparison, sum,
# product, negation). A comparison does not chain: `a < b < c` is a syntax error.
BINDING = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}
NOT_LEVEL, COMPARISON, OPERAND = 3, 4, 5
WORDS = frozenset({"or", "and", "in", "not"})  # operators that are keywords (a name after `.` is not one)


class _Expression:
    """One logical line's code tokens, read by the grammar's expression rules; each rule returns the nesting depth
    the parser's transformer would count for what it read (a name or literal 0, every node above it one more)."""

    def __init__(self, tokens):
        self.texts = [token.text for token in tokens] + [""]  # "" ends the line
        self.kinds = [token.kind for token in tokens] + [""]
        self.at = 0

    # ---- tokens

    def text(self, offset: int = 0) -> str:
        return self.texts[min(self.at + offset, len(self.texts) - 1)]

    def kind(self) -> str:
        return self.kinds[self.at]

    def take(self, text: str) -> None:
        if self.texts[self.at] != text:
            raise _No
        self.at += 1

    def name(self) -> None:
        """A name being declared: a keyword there is the parser's error."""
        if self.kinds[self.at] != NAME:
            raise _No
        self.at += 1

    def word(self) -> None:
        """A name after `.`: any word."""
        if self.kinds[self.at] not in (NAME, KEYWORD):
            raise _No
        self.at += 1

    def end(self) -> None:
        if self.at != len(self.texts) - 1:
            raise _No

    @staticmethod
    def deep(depth: int) -> int:
        if depth > DEPTH_LIMIT:
            raise _No
        return depth

    # ---- types

    def type(self) -> int:
        text = self.texts[self.at]
        if self.kinds[self.at] == KEYWORD and text in ("list", "set", "map"):
            self.at += 1
            depth = self.type_args(2 if text == "map" else 1)
        else:
            self.dotted()
            depth = 0
        if self.texts[self.at] == "?":
            self.at += 1
        return depth

    def type_args(self, count: int) -> int:
        if self.kinds[self.at] != ANGLE_OPEN:
            raise _No
        self.at += 1
        depth = self.type()
        for _ in range(count - 1):
            self.take(",")
            depth = max(depth, self.type())
        if self.kinds[self.at] != ANGLE_CLOSE:
            raise _No
        self.at += 1
        return self.deep(depth + 1)

    def dotted(self) -> None:
        self.name()
        while self.texts[self.at] == ".":
            self.at += 1
            self.word()

    # ---- expressions

    def expr(self) -> int:
        if self.texts[self.at] == "fn" and self.texts[self.at + 1] == "(":
            self.at += 2
            depth = self.params(")")
            self.take(")")
            self.take("=>")
            return self.deep(1 + max(depth, self.expr()))
        return self.operand(1)

    def operand(self, level: int) -> int:
        """An expression of operators binding at least as tightly as `level`."""
        texts, kinds = self.texts, self.kinds
        text = texts[self.at]
        if text == "not" and kinds[self.at] == KEYWORD:
            if level > NOT_LEVEL:
                raise _No
            self.at += 1
            depth = self.deep(1 + self.operand(NOT_LEVEL))
        elif text == "-" and kinds[self.at] == OP:
            self.at += 1
            depth = self.deep(1 + self.operand(len(BINDING)))  # negation: binds tighter than every binary operator
        else:
            depth = self.postfix()
        compared = False
        while True:
            text = texts[self.at]
            binding = BINDING.get(text)
            if binding is None or binding < level or kinds[self.at] not in (OP, KEYWORD) or (text in WORDS) != (kinds[self.at] == KEYWORD):
                return depth
            if binding == COMPARISON:
                if compared:
                    raise _No
                compared = True
            self.at += 1
            depth = self.deep(1 + max(depth, self.operand(binding + 1)))

    def postfix(self) -> int:
        depth = self.atom()
        texts = self.texts
        while True:
            text = texts[self.at]
            if text == "(" and self.kinds[self.at] == OP:
                self.at += 1
                depth = self.deep(1 + max(depth, self.args(")")))
                self.take(")")
            elif text == "[":
                self.at += 1
                depth = self.deep(1 + max(depth, self.expr()))
                self.take("]")
            elif text == ".":
                self.at += 1
                self.word()
                depth = self.deep(1 + depth)
            else:
                return depth

    def atom(self) -> int:
        kind, text = self.kinds[self.at], self.texts[self.at]
        if kind in (NAME, NUMBER):
            self.at += 1
            return 0
        if kind == LITERAL:
            self.at += 1
            return self.literal(text)
        if kind == KEYWORD:
            if text in ATOM_KEYWORDS:
                self.at += 1
                return 0
            if text in ("list", "set", "map"):
                self.at += 1
                depth = self.type_args(2 if text == "map" else 1)
                self.take("(")
                depth = self.deep(1 + max(depth, self.args(")")))
                self.take(")")
                return depth
            raise _No
        if text == "[":
            self.at += 1
            depth = self.args("]")
            self.take("]")
            return self.deep(1 + depth)
        if text == "(":
            self.at += 1
            depth = self.expr()
            self.take(")")
            return depth
        raise _No

    def args(self, closing: str) -> int:
        """`expr ("," expr)* [","]`, or nothing before `closing`."""
        depth = 0
        while self.texts[self.at] != closing:
            depth = max(depth, self.expr())
            if self.texts[self.at] != ",":
                break
            self.at += 1
        return depth

    def params(self, closing: str) -> int:
        depth = 0
        while self.texts[self.at] != closing:
            self.name()
            depth = max(depth, 1)
            if self.texts[self.at] == ":":
                self.at += 1
                depth = max(depth, 1 + self.type())
            if self.texts[self.at] != ",":
                break
            self.at += 1
        return depth

    def literal(self, text: str) -> int:
        if text[0] == "'":
            allowed = CHAR_ESCAPES
        elif text[0] == '"':
            allowed = STRING_ESCAPES
        else:
            return self.fstring(text[2:-1])
        if not _escapes_ok(text[1:-1], allowed):
            raise _No
        return 0

    def fstring(self, body: str) -> int:
        """The holes of an f-string, each an expression; a format spec or anything unusual is the parser's to read."""
        depth, index = 0, 0
        while index < len(body):
            char = body[index]
            if char == "\\":
                if body[index + 1:index + 2] not in FSTRING_ESCAPES:
                    raise _No
                index += 2
            elif char == "{":
                end = hole_end(body, index)
                if end is None:  # the parser refuses an unclosed hole first
                    raise _No
                hole = body[index + 1:end] if end is not None else ""
                if not hole.strip() or ":" in hole:
                    raise _No
                inner = _Expression([token for token in tokens_of(hole) if token.kind != COMMENT])
                depth = max(depth, inner.expr())
                inner.end()
                index = end + 1
            elif char == "}":
                raise _No
            else:
                index += 1
        return self.deep(depth + 1)


class _Module:
    """The logical lines as items, blocks and statements; indentation exactly 4 spaces a level."""

    def __init__(self, document: Document):
        self.lines = []
        for line in document.lines:
            indent = line.indent
            if "\t" in indent or len(indent) % INDENT:
                raise _No
            self.lines.append((len(indent) // INDENT, [token for token in line.tokens if token.kind != COMMENT]))
        self.at = 0

    def read(self) -> None:
        if not self.lines:
            raise _No
        level, tokens = self.lines[0]
        line = _Expression(tokens)
        line.take("module")
        line.name()
        line.end()
        if level:
            raise _No
        self.at = 1
        while self.at < len(self.lines):
            self.item()

    def next_line(self):
        line = self.lines[self.at]
        self.at += 1
        return line

    def line_at(self, level: int) -> _Expression:
        """The next line, which must be `level` deep."""
        line_level, tokens = self.next_line()
        if line_level != level:
            raise _No
        return _Expression(tokens)

    def block(self, level: int, read_line) -> int:
        """The lines one level deeper than `level` that follow, each read by `read_line(level + 1, tokens)`."""
        depth = 0
        if self.at >= len(self.lines) or self.lines[self.at][0] != level + 1:
            raise _No
        while self.at < len(self.lines) and self.lines[self.at][0] > level:
            depth = max(depth, read_line(level + 1))
        return depth

    def item(self) -> None:
        level, tokens = self.next_line()
        if level:
            raise _No
        line = _Expression(tokens)
        head = line.text()
        if head == "use":
            line.at += 1
            line.dotted()
            depth = 0
        elif head == "let":
            line.at += 1
            depth = self.let_rest(line)
        elif head in ("type", "enum"):
            line.at += 1
            line.name()
            line.end()
            self.block(0, self.field if head == "type" else self.member)
            return
        elif head == "fn" and line.text(1) != "(":
            line.at += 1
            line.name()
            line.take("(")
            depth = line.params(")")
            line.take(")")
            if line.text() == "->":
                line.at += 1
                depth = max(depth, line.type())
            line.end()
            line.deep(1 + max(depth, self.block(0, self.statement)))
            return
        elif head == "test":
            line.at += 1
            text = line.text()
            if line.kind() != LITERAL or text[0] != '"' or not _escapes_ok(text[1:-1], STRING_ESCAPES):
                raise _No
            line.at += 1
            line.end()
            self.block(0, self.statement)
            return
        else:
            raise _No
        line.end()
        line.deep(depth)

    @staticmethod
    def let_rest(line: _Expression) -> int:
        """After `let` (and `mut`): NAME [":" type] "=" expr."""
        line.name()
        depth = 0
        if line.text() == ":":
            line.at += 1
            depth = line.type()
        line.take("=")
        return line.deep(1 + max(depth, line.expr()))

    def field(self, level: int) -> int:
        line = self.line_at(level)
        line.name()
        line.take(":")
        depth = line.type()
        line.end()
        return line.deep(depth + 1)

    def member(self, level: int) -> int:
        line = self.line_at(level)
        line.name()
        line.end()
        return 0

    def statement(self, level: int) -> int:
        line = self.line_at(level)
        head = line.text()
        keyword = line.kind() == KEYWORD
        if keyword and head in ("if", "while"):
            line.at += 1
            depth = line.expr()
            line.end()
            depth = max(depth, self.block(level, self.statement))
            if head == "if":
                depth = max(depth, self.branches(level))
            return line.deep(1 + depth)
        if keyword and head == "for":
            line.at += 1
            line.name()
            line.take("in")
            depth = line.expr()
            line.end()
            return line.deep(1 + max(depth, self.block(level, self.statement)))
        if keyword and head in HEADERS:  # elif or else without its if, fn or test inside a block
            raise _No
        depth = self.simple(line, head if keyword else "")
        line.end()
        if self.at < len(self.lines) and self.lines[self.at][0] > level:
            raise _No  # an indented block after a line that opens none
        return line.deep(depth)

    def branches(self, level: int) -> int:
        depth = 0
        while self.at < len(self.lines) and self.lines[self.at][0] == level:
            tokens = self.lines[self.at][1]
            head = tokens[0].text if tokens and tokens[0].kind == KEYWORD else ""
            if head not in ("elif", "else"):
                break
            self.at += 1
            line = _Expression(tokens)
            line.at = 1
            if head == "elif":
                depth = max(depth, line.expr())
            line.end()
            depth = max(depth, self.block(level, self.statement))
            if head == "else":
                break
        return depth

    def simple(self, line: _Expression, keyword: str) -> int:
        if keyword == "let":
            line.at += 1
            if line.text() == "mut" and line.kind() == KEYWORD:
                line.at += 1
            return self.let_rest(line)
        if keyword == "return":
            line.at += 1
            return 1 + line.expr() if line.text() else 0
        if keyword in ("break", "continue", "pass"):
            line.at += 1
            return 0
        if keyword == "expect":
            line.at += 1
            return 1 + line.expr()
        # An assignment's target is a postfix expression: read one, and if no assignment follows, read it again as
        # the expression of an expression statement.
        if line.kind() not in (KEYWORD, "") or keyword in ATOM_KEYWORDS or keyword in ("list", "set", "map"):
            start = line.at
            try:
                target = line.postfix()
            except _No:
                target = None
            if target is not None and line.text() in ASSIGN:
                line.at += 1
                return 1 + max(target, line.expr())
            line.at = start
        return 1 + line.expr()
