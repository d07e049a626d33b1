"""Lark LALR parser with an Indenter postlexer, and a non-recursive Transformer into AST dataclasses."""

from __future__ import annotations

import functools
import re
from importlib import resources

from lark import Lark, Token
from lark.exceptions import LarkError, VisitError
from lark.indenter import Indenter
from lark.visitors import Transformer_NonRecursive, v_args

from kite.syntax import nodes as n

# Deeper nesting than this is refused with KT000: the analyzer and code generator walk
# the AST recursively, and no real program comes near it.
MAX_NESTING = 100
STRING_ESCAPES = set('nt\\"')
FSTRING_ESCAPES = STRING_ESCAPES | set("{}")
CHAR_ESCAPES = set("nt\\'0")


class KiteSyntaxError(Exception):
    def __init__(self, line: int, column: int, message: str):
        super().__init__(message)
        self.line, self.column, self.message = line, column, message


class KiteIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4


def grammar_text() -> str:
    return (resources.files("kite.grammar") / "kite.lark").read_text()


@functools.cache
def lark_parser() -> Lark:
    return Lark(
        grammar_text(),
        parser="lalr",
        postlex=KiteIndenter(),
        start=["start", "expr"],
        propagate_positions=True,
        maybe_placeholders=True,
        cache=True,  # the LALR tables, keyed by the grammar's hash, in the temp folder
    )


def parse_module(text: str) -> n.Module | None:
    """The module of `text`, which the layout pass has made consistently indented. Raises KiteSyntaxError."""
    text = text if text.endswith("\n") else text + "\n"
    tree = lark_parser().parse(text, start="start")
    try:
        return KiteTransformer(text).transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, KiteSyntaxError):
            raise error.orig_exc from None
        raise


def _check_escapes(token: Token, allowed: set[str], body: str) -> None:
    for match in re.finditer(r"\\(.)", body):
        if match.group(1) not in allowed:
            raise KiteSyntaxError(token.line, token.column + match.start(), f"unknown escape '\\{match.group(1)}' in a literal")


@v_args(meta=True)
class KiteTransformer(Transformer_NonRecursive):
    """Builds the AST; records each node's nesting depth so absurd nesting is refused, not crashed on."""

    def __init__(self, text: str):
        super().__init__()
        self._text = text
        self._depth: dict[int, int] = {}

    def _node(self, node, *children):
        depth = 1 + max((self._depth.get(id(child), 0) for child in children), default=0)
        if depth > MAX_NESTING:
            raise KiteSyntaxError(node.line, node.column, f"nested more than {MAX_NESTING} levels deep")
        self._depth[id(node)] = depth
        return node

    def _nested(self, node, children):
        return self._node(node, *[c for c in children if c is not None])

    # ---- module

    def start(self, meta, children):
        module_decl, *items = children
        if module_decl is None:
            return n.Module(1, 1, "", tuple(items))
        return n.Module(module_decl.line, module_decl.column, module_decl.value, tuple(items))

    def module_decl(self, meta, children):
        return children[0]

    def use_decl(self, meta, children):
        return n.Use(meta.line, meta.column, children[0].value)

    def dotted_name(self, meta, children):
        return Token("NAME", ".".join(children), line=meta.line, column=meta.column)

    def const_decl(self, meta, children):
        name, type_, value = children
        return self._nested(n.Let(meta.line, meta.column, name.value, False, type_, value), [value])

    def type_decl(self, meta, children):
        name, *fields = children
        return n.TypeDecl(meta.line, meta.column, name.value, tuple(fields))

    def field(self, meta, children):
        name, type_ = children
        return n.Field(name.line, name.column, name.value, type_)

    def enum_decl(self, meta, children):
        name, *members = children
        return n.EnumDecl(meta.line, meta.column, name.value, tuple(members))

    def enum_member(self, meta, children):
        return n.EnumMember(children[0].line, children[0].column, children[0].value)

    def fn_decl(self, meta, children):
        name, params, returns, body = children
        return self._nested(n.FnDecl(meta.line, meta.column, name.value, params or (), returns, body), body)

    def params(self, meta, children):
        return tuple(child for child in children if child is not None)

    def param(self, meta, children):
        name, type_ = children
        return n.Param(name.line, name.column, name.value, type_)

    def test_decl(self, meta, children):
        description, body = children
        _check_escapes(description, STRING_ESCAPES, description.value[1:-1])
        return self._nested(n.TestDecl(meta.line, meta.column, description.value[1:-1], body), body)

    def block(self, meta, children):
        return tuple(children)

    # ---- statements

    def let_stmt(self, meta, children):
        mut, name, type_, value = children
        return self._nested(n.Let(meta.line, meta.column, name.value, mut is not None, type_, value), [value])

    def assign_stmt(self, meta, children):
        target, op, value = children
        return self._nested(n.Assign(meta.line, meta.column, target, op.value, value), [target, value])

    def expr_stmt(self, meta, children):
        return self._nested(n.ExprStmt(meta.line, meta.column, children[0]), children)

    def return_stmt(self, meta, children):
        return self._nested(n.Return(meta.line, meta.column, children[0]), children)

    def break_stmt(self, meta, children):
        return n.Break(meta.line, meta.column)

    def continue_stmt(self, meta, children):
        return n.Continue(meta.line, meta.column)

    def pass_stmt(self, meta, children):
        return n.Pass(meta.line, meta.column)

    def expect_stmt(self, meta, children):
        source = self._text[meta.start_pos:meta.end_pos].removeprefix("expect").strip()
        return self._nested(n.Expect(meta.line, meta.column, children[0], source), children)

    def if_stmt(self, meta, children):
        condition, body, *rest = children
        orelse = rest.pop() if rest else None
        branches = ((condition, body),) + tuple(rest)
        flat = [condition, *body, *(x for c, b in rest for x in (c, *b)), *(orelse or ())]
        return self._nested(n.If(meta.line, meta.column, branches, orelse), flat)

    def elif_clause(self, meta, children):
        condition, body = children
        return (condition, body)

    def else_clause(self, meta, children):
        return children[0]

    def while_stmt(self, meta, children):
        condition, body = children
        return self._nested(n.While(meta.line, meta.column, condition, body), [condition, *body])

    def for_stmt(self, meta, children):
        name, iterable, body = children
        return self._nested(n.For(meta.line, meta.column, name.value, name.column, iterable, body), [iterable, *body])

    # ---- expressions

    def lambda_(self, meta, children):
        params, body = children
        return self._nested(n.Lambda(meta.line, meta.column, params or (), body), [body])

    def binary(self, meta, children):
        left, op, right = children
        return self._node(n.Binary(meta.line, meta.column, op.value, left, right), left, right)

    def unary(self, meta, children):
        op, operand = children
        return self._node(n.Unary(meta.line, meta.column, op.value, operand), operand)

    def call(self, meta, children):
        func, args = children
        return self._nested(n.Call(meta.line, meta.column, func, args or ()), [func, *(args or ())])

    def type_call(self, meta, children):
        type_, args = children
        return self._nested(n.TypeCall(meta.line, meta.column, type_, args or ()), list(args or ()))

    def index(self, meta, children):
        target, index = children
        return self._node(n.Index(meta.line, meta.column, target, index), target, index)

    def member(self, meta, children):
        target, name = children
        return self._node(n.Member(meta.line, meta.column, target, name.value), target)

    def args(self, meta, children):
        return tuple(child for child in children if child is not None)

    def list_lit(self, meta, children):
        items = children[0] or ()
        return self._nested(n.ListLiteral(meta.line, meta.column, items), list(items))

    def name(self, meta, children):
        return n.Name(meta.line, meta.column, children[0].value)

    def int_lit(self, meta, children):
        return n.Literal(meta.line, meta.column, "int", children[0].value)

    def dec_lit(self, meta, children):
        return n.Literal(meta.line, meta.column, "dec", children[0].value)

    def str_lit(self, meta, children):
        token = children[0]
        _check_escapes(token, STRING_ESCAPES, token.value[1:-1])
        return n.Literal(meta.line, meta.column, "str", token.value)

    def char_lit(self, meta, children):
        token = children[0]
        _check_escapes(token, CHAR_ESCAPES, token.value[1:-1])
        return n.Literal(meta.line, meta.column, "char", token.value)

    def bool_lit(self, meta, children):
        return n.Literal(meta.line, meta.column, "bool", children[0].value)

    def none_lit(self, meta, children):
        return n.Literal(meta.line, meta.column, "none", "none")

    def fstr_lit(self, meta, children):
        token = children[0]
        parts = split_fstring(token)
        holes = [part for part in parts if not isinstance(part, str)]
        return self._nested(n.FString(meta.line, meta.column, tuple(parts)), holes)

    # ---- types

    def type(self, meta, children):
        base, question = children
        return n.TypeRef(base.line, base.column, base.name, base.args, question is not None)

    def collection_type(self, meta, children):
        kind, *args = children
        return n.TypeRef(meta.line, meta.column, kind.value, tuple(args))

    def named_type(self, meta, children):
        return n.TypeRef(meta.line, meta.column, children[0].value)


# `lambda` is a Python keyword, so the grammar's rule is dispatched by name here.
setattr(KiteTransformer, "lambda", KiteTransformer.lambda_)


def split_fstring(token: Token) -> list:
    """f"a {x} b" -> ["a ", <expr x>, " b"]; text parts stay in Kite's escaped form."""
    body = token.value[2:-1]
    parts: list = []
    text: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\":
            if body[index + 1:index + 2] not in FSTRING_ESCAPES:
                raise KiteSyntaxError(token.line, token.column + 2 + index, f"unknown escape '\\{body[index + 1:index + 2]}' in a literal")
            text.append(body[index:index + 2])
            index += 2
        elif char == "{":
            end = body.find("}", index)
            if end < 0:
                raise KiteSyntaxError(token.line, token.column + 2 + index, "'{' in an f-string is never closed: write \\{ for a brace")
            hole = body[index + 1:end]
            if not hole.strip():
                raise KiteSyntaxError(token.line, token.column + 2 + index, "empty {} in an f-string")
            parts.append("".join(text))
            text = []
            parts.append(_parse_hole(hole, token.line, token.column + 3 + index))
            index = end + 1
        elif char == "}":
            raise KiteSyntaxError(token.line, token.column + 2 + index, "'}' in an f-string without '{': write \\} for a brace")
        else:
            text.append(char)
            index += 1
    parts.append("".join(text))
    return [part for part in parts if part != ""]


def _parse_hole(hole: str, line: int, column: int):
    try:
        tree = lark_parser().parse(hole, start="expr")
        expr = KiteTransformer(hole).transform(tree)
    except LarkError:
        raise KiteSyntaxError(line, column, f"'{hole.strip()}' in an f-string is not an expression") from None
    return _shift(expr, line - 1, column - 1)


def _shift(node, lines: int, columns: int):
    """Move a hole's nodes from the hole's own coordinates to the file's."""
    import dataclasses

    if isinstance(node, tuple):
        return tuple(_shift(item, lines, columns) for item in node)
    if not isinstance(node, n.Node):
        return node
    changes = {
        field.name: _shift(getattr(node, field.name), lines, columns)
        for field in dataclasses.fields(node)
        if field.name not in ("line", "column")
    }
    return dataclasses.replace(node, line=node.line + lines, column=node.column + (columns if node.line == 1 else 0), **changes)
