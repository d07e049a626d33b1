"""The Kite AST: plain frozen dataclasses. Every node knows its 1-based line and column."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Node:
    line: int
    column: int


# ---- types


@dataclass(frozen=True)
class TypeRef(Node):
    name: str  # "list", "map", "set", "int", "Item", "System.Text.StringBuilder"
    args: tuple[TypeRef, ...] = ()
    nullable: bool = False


# ---- expressions


@dataclass(frozen=True)
class Name(Node):
    name: str


@dataclass(frozen=True)
class Literal(Node):
    kind: str  # int, dec, str, char, bool, none
    text: str  # as written, quotes included


@dataclass(frozen=True)
class FString(Node):
    parts: tuple  # str for text (escapes already applied), expression nodes for holes


@dataclass(frozen=True)
class Formatted(Node):
    """An f-string hole with a format spec: `{price:F2}`."""

    value: object
    spec: str  # a .NET numeric format, applied in the invariant culture


@dataclass(frozen=True)
class ListLiteral(Node):
    items: tuple


@dataclass(frozen=True)
class Unary(Node):
    op: str  # "-" or "not"
    operand: object


@dataclass(frozen=True)
class Binary(Node):
    op: str  # or and == != < <= > >= in + - * / %
    left: object
    right: object


@dataclass(frozen=True)
class Call(Node):
    func: object
    args: tuple


@dataclass(frozen=True)
class TypeCall(Node):
    type: TypeRef  # map<str, int>() and friends
    args: tuple


@dataclass(frozen=True)
class Index(Node):
    target: object
    index: object


@dataclass(frozen=True)
class Member(Node):
    target: object
    name: str


@dataclass(frozen=True)
class Param(Node):
    name: str
    type: TypeRef | None


@dataclass(frozen=True)
class Lambda(Node):
    params: tuple[Param, ...]
    body: object


# ---- statements


@dataclass(frozen=True)
class Let(Node):
    name: str
    mutable: bool
    type: TypeRef | None
    value: object


@dataclass(frozen=True)
class Assign(Node):
    target: object  # Name, Index or Member
    op: str  # "=", "+=", ...
    value: object


@dataclass(frozen=True)
class ExprStmt(Node):
    expr: object


@dataclass(frozen=True)
class Return(Node):
    value: object | None


@dataclass(frozen=True)
class Break(Node):
    pass


@dataclass(frozen=True)
class Continue(Node):
    pass


@dataclass(frozen=True)
class Pass(Node):
    pass


@dataclass(frozen=True)
class Expect(Node):
    expr: object
    source: str  # the expression as written, for failure messages


@dataclass(frozen=True)
class If(Node):
    branches: tuple  # ((condition, body), ...): if, then each elif
    orelse: tuple | None


@dataclass(frozen=True)
class While(Node):
    condition: object
    body: tuple


@dataclass(frozen=True)
class For(Node):
    name: str
    name_column: int
    iterable: object
    body: tuple


# ---- top-level items


@dataclass(frozen=True)
class Use(Node):
    path: str


@dataclass(frozen=True)
class Field(Node):
    name: str
    type: TypeRef


@dataclass(frozen=True)
class TypeDecl(Node):
    name: str
    fields: tuple[Field, ...]


@dataclass(frozen=True)
class EnumMember(Node):
    name: str


@dataclass(frozen=True)
class EnumDecl(Node):
    name: str
    members: tuple[EnumMember, ...]


@dataclass(frozen=True)
class FnDecl(Node):
    name: str
    params: tuple[Param, ...]
    returns: TypeRef | None
    body: tuple


@dataclass(frozen=True)
class TestDecl(Node):
    description: str  # without quotes, escapes applied
    body: tuple


@dataclass(frozen=True)
class Module(Node):
    name: str
    items: tuple  # Use, Let (constants), TypeDecl, EnumDecl, FnDecl, TestDecl in source order


def walk_statements(body):
    """Every statement of a block, and of the blocks nested in it, in source order."""
    for statement in body:
        yield statement
        if isinstance(statement, If):
            for _, inner in statement.branches:
                yield from walk_statements(inner)
            yield from walk_statements(statement.orelse or ())
        elif isinstance(statement, (While, For)):
            yield from walk_statements(statement.body)


def statement_expressions(s) -> list:
    """The expressions a statement holds itself (not those of its nested blocks): a condition, a value, a target."""
    if isinstance(s, If):
        return [condition for condition, _ in s.branches]
    if isinstance(s, While):
        return [s.condition]
    if isinstance(s, For):
        return [s.iterable]
    if isinstance(s, Assign):
        return [s.target, s.value]
    return [getattr(s, field) for field in ("value", "expr") if getattr(s, field, None) is not None]


def children(e) -> tuple:
    """The direct sub-expressions of an expression: a lambda's body, an f-string's holes, ..."""
    if isinstance(e, Binary):
        return (e.left, e.right)
    if isinstance(e, Unary):
        return (e.operand,)
    if isinstance(e, Call):
        return (e.func, *e.args)
    if isinstance(e, TypeCall):
        return e.args
    if isinstance(e, Index):
        return (e.target, e.index)
    if isinstance(e, Member):
        return (e.target,)
    if isinstance(e, ListLiteral):
        return e.items
    if isinstance(e, FString):
        return tuple(part for part in e.parts if not isinstance(part, str))
    if isinstance(e, Formatted):
        return (e.value,)
    if isinstance(e, Lambda):
        return (e.body,)
    return ()


def expression_nodes(e):
    """Every node of an expression, lambda bodies and f-string holes included; iterative, so any depth is fine."""
    pending = [e]
    while pending:
        e = pending.pop()
        if isinstance(e, Node):
            yield e
            pending.extend(children(e))
