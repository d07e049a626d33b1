"""Lark LALR parser with an Indenter postlexer, and a non-recursive Transformer into AST dataclasses."""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from importlib import resources
from pathlib import Path
from typing import ClassVar

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import Indenter
from lark.lexer import PatternStr
from lark.visitors import Transformer_NonRecursive

from kite.syntax import lalr, nodes as n
from kite.syntax.layout import bracket_delta, code_only
from kite.syntax.literals import hole_end, quoted_end

# Deeper nesting than this is refused with KT000: the analyzer and code generator walk
# the AST recursively, and no real program comes near it. A chain of one operator is one level however long: every
# pass reads it through nodes.chain, iteratively, and recurses only into its operands.
MAX_NESTING = 100
STRING_ESCAPES = set('nt\\"')
FSTRING_ESCAPES = STRING_ESCAPES | set("{}")
CHAR_ESCAPES = set("nt\\'0")
# .NET's standard numeric formats (F2, D3, N0, X4, ...) and custom ones made of digit placeholders (0.00, #,##0).
FORMAT_SPEC = re.compile(r"[CcDdEeFfGgNnPpXx][0-9]{0,2}|[0#][0#,.%]*")


class KiteSyntaxError(Exception):
    def __init__(self, line: int, column: int, message: str, length: int = 1):
        """At (line, column), covering `length` characters of that line (0: a point)."""
        super().__init__(message)
        self.line, self.column, self.message = line, column, message
        self.span = n.Span(line, column, line, column + length)


class KiteIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types: ClassVar[list[str]] = ["LPAR", "LSQB"]
    CLOSE_PAREN_types: ClassVar[list[str]] = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4


def grammar_text() -> str:
    return (resources.files("kite.grammar") / "kite.lark").read_text()


_per_thread = threading.local()
LARK_OPTIONS = {"parser": "lalr", "start": ["start", "expr"], "maybe_placeholders": True}


def lark_parser() -> Lark:
    """One per thread: Lark's Indenter keeps the indentation of the parse under way on the parser itself, so two
    threads parsing at once (answers in flight, a server's requests) would corrupt each other's."""
    parser = getattr(_per_thread, "parser", None)
    if parser is None:
        parser = _per_thread.parser = cached_parser()
    return parser


def parser_entry() -> Path:
    """Where the tables of this grammar, these options, this Lark and this Python are kept."""
    import hashlib
    import sys

    import lark

    from kite.own_files import cache_root

    made_of = repr((grammar_text(), sorted(LARK_OPTIONS.items()), lark.__version__, sys.version_info[:2]))
    return cache_root() / "parser" / f"{hashlib.sha256(made_of.encode()).hexdigest()}.lark"


def cached_parser() -> Lark:
    """Lark's LALR tables, built once per grammar, options, Lark and Python and kept in kite's cache folder, signed
    with the user's key (Lark's own `cache=True` would load a pickle from the shared temp folder, under a name any
    user can compute and plant). An entry not this user's, or a folder that cannot hold one, costs only the build."""
    import io

    from kite.errors import UnusableInput
    from kite.signed_files import read_signed, user_key, write_signed

    text, path = grammar_text(), parser_entry()
    try:
        key = user_key()
        path.parent.mkdir(mode=0o700, exist_ok=True)
    except (OSError, UnusableInput):
        return Lark(text, postlex=KiteIndenter(), **LARK_OPTIONS)
    payload = read_signed(path, key)
    if payload is not None:
        try:
            return Lark.load(io.BytesIO(payload))
        except Exception:  # an entry of an older kite's making: built again below
            pass
    parser = Lark(text, postlex=KiteIndenter(), **LARK_OPTIONS)
    saved = io.BytesIO()
    parser.save(saved)
    write_signed(path, key, saved.getvalue())
    return parser


def _fast_parse(text: str, start: str, transformer: KiteTransformer, lines: int, columns: int):
    """kite.syntax.lalr's parse of `text`, or None: Lark's own parse must answer (or lark_only() asks for it)."""
    if getattr(_per_thread, "lark_only", False):
        return None
    try:
        tables = _per_thread.tables
    except AttributeError:  # made from this thread's Lark parser, kept with it (kite.syntax.lalr's caches are not locked)
        tables = _per_thread.tables = lalr.tables_for(lark_parser(), KiteTransformer)
    return lalr.parse(tables, text, start, transformer, lines, columns)


@contextlib.contextmanager
def lark_only():
    """Within it, this thread parses with Lark's parser and Transformer alone: what the fast driver is compared
    with (tests/test_lalr.py, benchmarks/parse_stages.py)."""
    _per_thread.lark_only = True
    try:
        yield
    finally:
        _per_thread.lark_only = False


def parse_module(text: str, first_line: int = 1) -> n.Module:
    """The module of `text`, which the layout pass has made consistently indented. Raises KiteSyntaxError.

    `text` starts on line `first_line` of its file (a top-level item parsed on its own): positions are the file's.
    """
    text = text if text.endswith("\n") else text + "\n"
    offset = first_line - 1
    module = _fast_parse(text, "start", KiteTransformer(text), offset, 0)
    if module is not None:
        return module
    try:
        tree = lark_parser().parse(text, start="start")
    except UnexpectedInput as error:
        _move_error(error, offset)
        raise
    if offset:
        _move_tokens(tree, offset, 0)
    try:
        return KiteTransformer(text).transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, KiteSyntaxError):
            raise error.orig_exc from None
        raise


def _span(token: Token) -> tuple[int, int, int, int]:
    """A lexed token's line, column, end line and end column. Lark types them optional, for a Token made by hand;
    its lexer, and so every token the grammar hands over, always sets them."""
    line, column, end_line, end_column = token.line, token.column, token.end_line, token.end_column
    assert line is not None and column is not None and end_line is not None and end_column is not None, token
    return line, column, end_line, end_column


def _move_tokens(tree, lines: int, columns: int) -> None:
    """Move every token of a tree `lines` down and, on its first line, `columns` right: from the coordinates of the
    text parsed to the file's (a top-level item parsed on its own, an f-string hole)."""
    for subtree in tree.iter_subtrees():  # iterative: scan_values recurses
        for child in subtree.children:
            if isinstance(child, Token):
                line, column, end_line, end_column = _span(child)
                if line == 1:
                    child.column = column + columns
                if end_line == 1:
                    child.end_column = end_column + columns
                child.line = line + lines
                child.end_line = end_line + lines


def _ends(last) -> dict:
    """Where a node ends: where its last token or its last child node ends."""
    return {"end_line": last.end_line, "end_column": last.end_column}


def _move_error(error: UnexpectedInput, offset: int) -> None:
    """Lark's positions are the parsed text's; the file's are `offset` lines further (UnexpectedEOF has none)."""
    if error.line == -1:
        return
    error.line += offset
    if isinstance(error, UnexpectedToken):
        error.token.line += offset
        if error.token.end_line is not None:
            error.token.end_line += offset


def _check_escapes(token: Token, allowed: set[str], body: str) -> None:
    """`body`: the literal's text inside its opening quote, which is one column before it."""
    line, column, _, _ = _span(token)
    for match in re.finditer(r"\\(.)", body):
        if match.group(1) not in allowed:
            raise KiteSyntaxError(line, column + 1 + match.start(), f"unknown escape '\\{match.group(1)}' in a literal", 2)


@functools.cache
def kite_keywords() -> frozenset[str]:
    """The words of the grammar (fn, let, none, list, ...): the parser can read one where a name is declared."""
    return frozenset(
        t.pattern.value for t in lark_parser().terminals if isinstance(t.pattern, PatternStr) and t.pattern.value.isalpha()
    )


def _declared(token: Token) -> Token:
    """A name being declared; a Kite keyword there would be read back as the keyword, never as the name."""
    if token.value in kite_keywords():
        raise KiteSyntaxError(*_span(token)[:2], f"'{token.value}' is a Kite keyword and cannot be a name", len(token.value))
    return token


def _nest(depths: dict[int, int], node, children) -> int:
    """The node's nesting level, one more than its deepest child's (`depths` by id; 0 for what is not there: a token,
    None, a leaf), kept in `depths`. A loop: max() over a generator cost more than the rest of the transformer."""
    depth_of = depths.get
    depth = 0
    for child in children:
        below = depth_of(id(child), 0)
        if below > depth:
            depth = below
    depths[id(node)] = depth + 1
    return depth + 1


# kite.syntax._nodes's, where it is built: the transformer asks for nearly every node
nest = n._nodes.nest if n._nodes is not None else _nest


class KiteTransformer(Transformer_NonRecursive):
    """Builds the AST; records each node's nesting depth so absurd nesting is refused, not crashed on.

    Positions, ends included, come from tokens and child nodes, not Lark's propagate_positions, which doubles parse
    time: the closing brackets a node ends with are named terminals, so they reach the transformer.
    """

    def __init__(self, text: str):
        super().__init__()
        self._text = text
        self._depth: dict[int, int] = {}  # nesting levels: a chain of one operator is one

    def _node(self, node, children=(), depth: int | None = None):
        """`children`: the nodes under it (None, or a token, counts as no depth); `depth`: the node's nesting level
        when it is not one more than its deepest child's (a chain)."""
        if depth is None:
            depth = nest(self._depth, node, children)
        else:
            self._depth[id(node)] = depth
        if depth > MAX_NESTING:
            raise KiteSyntaxError(node.line, node.column, f"nested more than {MAX_NESTING} levels deep")
        return node

    # ---- module

    def start(self, children):
        module_decl, *items = children
        last = items[-1] if items else module_decl
        ends = _ends(last) if last is not None else {}
        if module_decl is None:
            return n.Module(1, 1, "", tuple(items), **ends)
        return n.Module(module_decl.line, module_decl.column, module_decl.value, tuple(items), **ends)

    def module_decl(self, children):
        return _declared(children[0])

    def use_decl(self, children):
        path = children[0]
        return n.Use(path.line, path.column, path.value, end_line=path.end_line, end_column=path.end_column)

    def dotted_name(self, children):
        if len(children) == 1:  # a plain NAME, already the token a dotted name's parts are joined into
            return children[0]
        first, last = children[0], children[-1]
        return Token("NAME", ".".join(children), line=first.line, column=first.column, end_line=last.end_line, end_column=last.end_column)

    def const_decl(self, children):
        name, type_, value = children
        _declared(name)
        return self._node(n.Let(name.line, name.column, name.value, False, type_, value, end_line=value.end_line, end_column=value.end_column), [type_, value])

    def type_decl(self, children):
        name, *fields = children
        _declared(name)
        return n.TypeDecl(name.line, name.column, name.value, tuple(fields), end_line=fields[-1].end_line, end_column=fields[-1].end_column)

    def field(self, children):
        name, type_ = children
        _declared(name)
        return self._node(n.Field(name.line, name.column, name.value, type_, end_line=type_.end_line, end_column=type_.end_column), (type_,))

    def enum_decl(self, children):
        name, *members = children
        _declared(name)
        return n.EnumDecl(name.line, name.column, name.value, tuple(members), end_line=members[-1].end_line, end_column=members[-1].end_column)

    def enum_member(self, children):
        member = _declared(children[0])
        return n.EnumMember(member.line, member.column, member.value, end_line=member.end_line, end_column=member.end_column)

    def fn_decl(self, children):
        keyword, name, params, returns, body = children
        _declared(name)
        function = n.FnDecl(keyword.line, name.column, name.value, params or (), returns, body, end_line=body[-1].end_line, end_column=body[-1].end_column)
        return self._node(function, [*(params or ()), returns, *body])

    def params(self, children):
        return tuple(child for child in children if child is not None)

    def param(self, children):
        name, type_ = children
        _declared(name)
        last = type_ or name
        return self._node(n.Param(name.line, name.column, name.value, type_, end_line=last.end_line, end_column=last.end_column), (type_,))

    def test_decl(self, children):
        description, body = children
        _check_escapes(description, STRING_ESCAPES, description.value[1:-1])
        return self._node(n.TestDecl(description.line, 1, _unescaped(description.value[1:-1]), body, end_line=body[-1].end_line, end_column=body[-1].end_column), body)

    def block(self, children):
        return tuple(children)

    # ---- statements

    def let_stmt(self, children):
        mut, name, type_, value = children
        _declared(name)
        let = n.Let(name.line, name.column, name.value, mut is not None, type_, value, mut_column=mut.column if mut else 0, end_line=value.end_line, end_column=value.end_column)
        return self._node(let, [type_, value])

    def assign_stmt(self, children):
        target, op, value = children
        return self._node(n.Assign(target.line, target.column, target, op.value, value, end_line=value.end_line, end_column=value.end_column), [target, value])

    def expr_stmt(self, children):
        expr = children[0]
        return self._node(n.ExprStmt(expr.line, expr.column, expr, end_line=expr.end_line, end_column=expr.end_column), children)

    def return_stmt(self, children):
        keyword, value = children
        last = value or keyword
        return self._node(n.Return(keyword.line, keyword.column, value, end_line=last.end_line, end_column=last.end_column), (value,))

    def break_stmt(self, children):
        return n.Break(children[0].line, children[0].column, end_line=children[0].end_line, end_column=children[0].end_column)

    def continue_stmt(self, children):
        return n.Continue(children[0].line, children[0].column, end_line=children[0].end_line, end_column=children[0].end_column)

    def pass_stmt(self, children):
        return n.Pass(children[0].line, children[0].column, end_line=children[0].end_line, end_column=children[0].end_column)

    def expect_stmt(self, children):
        keyword, expr = children
        expect = n.Expect(keyword.line, keyword.column, expr, _expect_source(self._text, keyword.end_pos), end_line=expr.end_line, end_column=expr.end_column)
        return self._node(expect, [expr])

    def if_stmt(self, children):
        keyword, condition, body, *rest = children
        orelse = rest.pop() if rest else None
        branches = ((condition, body), *rest)
        flat = [condition, *body, *(x for c, b in rest for x in (c, *b)), *(orelse or ())]
        return self._node(n.If(keyword.line, keyword.column, branches, orelse, end_line=flat[-1].end_line, end_column=flat[-1].end_column), flat)

    def elif_clause(self, children):
        condition, body = children
        return (condition, body)

    def else_clause(self, children):
        return children[0]

    def while_stmt(self, children):
        keyword, condition, body = children
        return self._node(n.While(keyword.line, keyword.column, condition, body, end_line=body[-1].end_line, end_column=body[-1].end_column), [condition, *body])

    def for_stmt(self, children):
        keyword, name, iterable, body = children
        _declared(name)
        loop = n.For(keyword.line, keyword.column, name.value, name.column, iterable, body, end_line=body[-1].end_line, end_column=body[-1].end_column)
        return self._node(loop, [iterable, *body])

    # ---- expressions

    def lambda_(self, children):
        keyword, params, body = children
        return self._node(n.Lambda(keyword.line, keyword.column, params or (), body, end_line=body.end_line, end_column=body.end_column), [*(params or ()), body])

    def binary(self, children):
        left, op, right = children
        node = n.Binary(left.line, left.column, op.value, left, right, end_line=right.end_line, end_column=right.end_column)
        if isinstance(left, n.Binary) and n.same_level(left.op, op.value):
            # A chain of one operator (`a + b - c`, `x and y and z`) is one level (LANGUAGE.md §12).
            return self._node(node, depth=max(self._depth.get(id(left), 0), 1 + self._depth.get(id(right), 0)))
        return self._node(node, (left, right))

    def unary(self, children):
        op, operand = children
        return self._node(n.Unary(op.line, op.column, op.value, operand, end_line=operand.end_line, end_column=operand.end_column), (operand,))

    def call(self, children):
        func, args, closing = children
        return self._node(n.Call(func.line, func.column, func, args or (), end_line=closing.end_line, end_column=closing.end_column), [func, *(args or ())])

    def type_call(self, children):
        type_, args, closing = children
        return self._node(n.TypeCall(type_.line, type_.column, type_, args or (), end_line=closing.end_line, end_column=closing.end_column), [type_, *(args or ())])

    def index(self, children):
        target, index, closing = children
        return self._node(n.Index(target.line, target.column, target, index, end_line=closing.end_line, end_column=closing.end_column), (target, index))

    def member(self, children):
        target, name = children
        return self._node(n.Member(target.line, target.column, target, name.value, end_line=name.end_line, end_column=name.end_column), (target,))

    def args(self, children):
        return tuple(child for child in children if child is not None)

    def list_lit(self, children):
        bracket, items, closing = children
        items = items or ()
        return self._node(n.ListLiteral(bracket.line, bracket.column, items, end_line=closing.end_line, end_column=closing.end_column), items)

    def name(self, children):
        token = children[0]
        return n.Name(token.line, token.column, token.value, end_line=token.end_line, end_column=token.end_column)

    def _literal(self, kind: str, token: Token):
        line, column, end_line, end_column = _span(token)
        return n.Literal(line, column, kind, token.value, end_line=end_line, end_column=end_column)

    def int_lit(self, children):
        return self._literal("int", children[0])

    def dec_lit(self, children):
        return self._literal("dec", children[0])

    def str_lit(self, children):
        _check_escapes(children[0], STRING_ESCAPES, children[0].value[1:-1])
        return self._literal("str", children[0])

    def char_lit(self, children):
        _check_escapes(children[0], CHAR_ESCAPES, children[0].value[1:-1])
        return self._literal("char", children[0])

    def bool_lit(self, children):
        return self._literal("bool", children[0])

    def none_lit(self, children):
        return self._literal("none", children[0])

    def fstr_lit(self, children):
        token = children[0]
        parts = split_fstring(token, self._depth)  # a hole's depth continues the enclosing expression's
        holes = [part for part in parts if not isinstance(part, str)]
        return self._node(n.FString(token.line, token.column, tuple(parts), end_line=token.end_line, end_column=token.end_column), holes)

    # ---- types

    def type(self, children):
        base, question = children
        if question is None:  # a base type is never nullable: `base` is this type already, depth and all
            return base
        typed = n.TypeRef(base.line, base.column, base.name, base.args, True, base.returns, end_line=question.end_line, end_column=question.end_column)
        # popped: `base` is dropped here, and a later node given its address must not inherit its depth
        self._depth[id(typed)] = self._depth.pop(id(base), 0)
        return typed

    def collection_type(self, children):
        kind, *args, closing = children
        return self._node(n.TypeRef(kind.line, kind.column, kind.value, tuple(args), end_line=closing.end_line, end_column=closing.end_column), args)

    def function_type(self, children):
        keyword, *rest = children
        closing_at = next(at for at, child in enumerate(rest) if isinstance(child, Token) and child.type == "RPAR")
        params = tuple(child for child in rest[:closing_at] if child is not None)
        returns = rest[closing_at + 1] if closing_at + 1 < len(rest) else None
        last = returns or rest[closing_at]
        return self._node(n.TypeRef(keyword.line, keyword.column, "fn", params, returns=returns, end_line=last.end_line, end_column=last.end_column), (*params, returns))

    def named_type(self, children):
        name = children[0]
        return n.TypeRef(name.line, name.column, name.value, end_line=name.end_line, end_column=name.end_column)


# `lambda` is a Python keyword, so the grammar's rule is dispatched by name here.
setattr(KiteTransformer, "lambda", KiteTransformer.lambda_)

def _without_comment(line: str) -> str:
    """The line up to its comment: code_only keeps columns, so its length is where the comment starts."""
    return line[: len(code_only(line, keep_columns=True))].strip()


def _expect_source(text: str, start: int) -> str:
    """The source of an expect's expression, without comments: the rest of its line, and the lines it continues
    on while a bracket is open, joined into one line."""
    pieces: list[str] = []
    depth = 0
    while True:
        end = text.find("\n", start)
        line = _without_comment(text[start:] if end < 0 else text[start:end])
        if pieces and not (pieces[-1].endswith(("(", "[")) or line.startswith((")", "]"))):
            pieces.append(" ")
        pieces.append(line)
        depth += bracket_delta(line)
        if depth <= 0 or end < 0:
            return "".join(pieces).strip()
        start = end + 1


def _unescaped(body: str) -> str:
    """A string literal's text with its escapes (checked already) applied."""
    return re.sub(r"\\(.)", lambda match: {"n": "\n", "t": "\t"}.get(match.group(1), match.group(1)), body)


def split_fstring(token: Token, depths: dict[int, int] | None = None) -> list:
    """f"a {x} b" -> ["a ", <expr x>, " b"]; text parts stay in Kite's escaped form. `depths` gets each hole's nesting."""
    body = token.value[2:-1]
    line, column, _, _ = _span(token)
    parts: list = []
    text: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\":
            if body[index + 1:index + 2] not in FSTRING_ESCAPES:
                raise KiteSyntaxError(line, column + 2 + index, f"unknown escape '\\{body[index + 1:index + 2]}' in a literal", 2)
            text.append(body[index:index + 2])
            index += 2
        elif char == "{":
            end = hole_end(body, index)
            if end is None:
                raise KiteSyntaxError(line, column + 2 + index, "'{' in an f-string is never closed: write \\{ for a brace")
            hole, spec = _split_spec(body[index + 1:end])
            if not hole.strip():
                raise KiteSyntaxError(line, column + 2 + index, "empty {} in an f-string")
            parts.append("".join(text))
            text = []
            expr, depth = _parse_hole(hole, line, column + 3 + index)
            if spec is not None:
                if not FORMAT_SPEC.fullmatch(spec):
                    spec_start = column + 3 + index + len(hole) + 1
                    raise KiteSyntaxError(line, spec_start, f"{_quoted(spec)} is not a number format: write one such as F2, D3, N0 or 0.00", len(spec))
                spec_end = column + 3 + index + len(hole) + 1 + len(spec)
                expr = n.Formatted(expr.line, expr.column, expr, spec, end_line=line, end_column=spec_end)
            parts.append(expr)
            if depths is not None:
                depths[id(expr)] = depth
            index = end + 1
        elif char == "}":
            raise KiteSyntaxError(line, column + 2 + index, "'}' in an f-string without '{': write \\} for a brace")
        else:
            text.append(char)
            index += 1
    parts.append("".join(text))
    return [part for part in parts if part != ""]


def _split_spec(hole: str) -> tuple[str, str | None]:
    """`price:F2` -> ("price", "F2"): the first ':' outside brackets, strings and chars starts a format spec."""
    depth, index = 0, 0
    while index < len(hole):
        char = hole[index]
        if char in "\"'":
            index = quoted_end(hole, index, char)
            continue
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == ":" and depth == 0:
            return hole[:index], hole[index + 1:]
        index += 1
    return hole, None


def _parse_hole(hole: str, line: int, column: int):
    """The expression of an f-string hole that starts at (line, column) of the file, with the file's positions."""
    transformer = KiteTransformer(hole)
    fast = _fast_parse(hole, "expr", transformer, line - 1, column - 1)
    if fast is not None:
        return fast, transformer._depth.get(id(fast), 0)
    try:
        tree = lark_parser().parse(hole, start="expr")
        _move_tokens(tree, line - 1, column - 1)
        transformer = KiteTransformer(hole)
        expr = transformer.transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, KiteSyntaxError):
            raise error.orig_exc from None
        raise
    except LarkError:
        raise KiteSyntaxError(line, column, f"{_quoted(hole.strip())} in an f-string is not an expression", len(hole)) from None
    return expr, transformer._depth.get(id(expr), 0)


def _quoted(text: str, limit: int = 40) -> str:
    """Source text quoted in a message, cut short: a message is one readable line, whatever the input."""
    return f"'{text}'" if len(text) <= limit else f"'{text[:limit]}...'"
