"""The Kite AST: plain frozen dataclasses. Every node knows where it is: its 1-based line and column, and where it ends
(`end_line`, `end_column`: the column just past its last character, as in Diagnostic). `children()` is the one walk
over it: every pass that goes through the tree goes through there, and it refuses a node class it does not know."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import get_args


@dataclass(frozen=True)
class Span:
    """A stretch of a file: 1-based, the end column just past the last character (as Node and Diagnostic)."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def of_name(cls, line: int, column: int, name: str) -> Span:
        """Where a name is written: names are one line of ASCII letters, digits and _."""
        return cls(line, column, line, column + len(name))


@dataclass(frozen=True)
class Node:
    line: int  # where a diagnostic about the node points: its first token, or its name for a declaration
    column: int
    # Where the node's text ends (a block's last statement for a compound one). Left out (0), it is a point.
    end_line: int = field(default=0, kw_only=True, compare=False)
    end_column: int = field(default=0, kw_only=True, compare=False)

    def __post_init__(self):
        if not self.end_line:
            object.__setattr__(self, "end_line", self.line)
            object.__setattr__(self, "end_column", self.column)


# ---- types


@dataclass(frozen=True)
class TypeRef(Node):
    name: str  # "list", "map", "set", "fn", "int", "Item", "System.Text.StringBuilder"
    args: tuple[TypeRef, ...] = ()  # a function type's parameter types
    nullable: bool = False
    returns: TypeRef | None = None  # a function type's result; None when it gives nothing (`fn(str)`)


# ---- expressions


@dataclass(frozen=True)
class Name(Node):
    name: str


@dataclass(frozen=True)
class Literal(Node):
    kind: str  # int, dec, str, char, bool, none
    text: str  # as written, quotes included

    def int_value(self) -> int | None:
        """An int literal's value, or None past 20 digits: no int holds those, and int() refuses over 4300 of them
        (an answer's 5000-digit literal was an internal error, exit 3)."""
        digits = self.text.replace("_", "").lstrip("0") or "0"
        return int(digits) if len(digits) <= 20 else None


@dataclass(frozen=True)
class FString(Node):
    parts: tuple[str | Expr, ...]  # str for text (Kite's escapes kept), expression nodes (or Formatted) for holes


@dataclass(frozen=True)
class Formatted(Node):
    """An f-string hole with a format spec: `{price:F2}`."""

    value: Expr
    spec: str  # a .NET numeric format, applied in the invariant culture


@dataclass(frozen=True)
class ListLiteral(Node):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Unary(Node):
    op: str  # "-" or "not"
    operand: Expr


@dataclass(frozen=True)
class Binary(Node):
    op: str  # or and == != < <= > >= in + - * / %
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Call(Node):
    func: Expr
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class TypeCall(Node):
    type: TypeRef  # map<str, int>() and friends
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Index(Node):
    target: Expr
    index: Expr


@dataclass(frozen=True)
class Member(Node):
    target: Expr
    name: str


@dataclass(frozen=True)
class Param(Node):
    name: str
    type: TypeRef | None


@dataclass(frozen=True)
class Lambda(Node):
    params: tuple[Param, ...]
    body: Expr


# ---- statements


@dataclass(frozen=True)
class Let(Node):
    name: str
    mutable: bool
    type: TypeRef | None
    value: Expr
    mut_column: int = field(default=0, kw_only=True, compare=False)  # where `mut` is written (0: not mutable)


@dataclass(frozen=True)
class Assign(Node):
    target: Expr  # Name, Index or Member
    op: str  # "=", "+=", ...
    value: Expr


@dataclass(frozen=True)
class ExprStmt(Node):
    expr: Expr


@dataclass(frozen=True)
class Return(Node):
    value: Expr | None


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
    expr: Expr
    source: str  # the expression as written, for failure messages


@dataclass(frozen=True)
class If(Node):
    branches: tuple[tuple[Expr, tuple[Statement, ...]], ...]  # ((condition, body), ...): if, then each elif
    orelse: tuple[Statement, ...] | None


@dataclass(frozen=True)
class While(Node):
    condition: Expr
    body: tuple[Statement, ...]


@dataclass(frozen=True)
class For(Node):
    name: str
    name_column: int
    iterable: Expr
    body: tuple[Statement, ...]


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
    body: tuple[Statement, ...]


@dataclass(frozen=True)
class TestDecl(Node):
    description: str  # without quotes, escapes applied
    body: tuple[Statement, ...]


@dataclass(frozen=True)
class Module(Node):
    name: str
    items: tuple[Item, ...]  # in source order


Expr = Name | Literal | FString | Formatted | ListLiteral | Unary | Binary | Call | TypeCall | Index | Member | Lambda
Statement = Let | Assign | ExprStmt | Return | Break | Continue | Pass | Expect | If | While | For
Item = Use | Let | TypeDecl | EnumDecl | FnDecl | TestDecl  # a Let at the top level is a module constant
STATEMENTS = get_args(Statement)


def type_text(t: TypeRef | None) -> str:
    """A type as Kite spells it (`list<Item>?`, `fn(int) -> bool`); "unknown" for none or the type pass's `?`."""
    if t is None or t.name == "?":
        return "unknown"
    if t.name == "fn":
        result = f" -> {type_text(t.returns)}" if t.returns else ""
        return f"fn({', '.join(type_text(a) for a in t.args)}){result}{'?' if t.nullable else ''}"
    args = f"<{', '.join(type_text(a) for a in t.args)}>" if t.args else ""
    return f"{t.name}{args}{'?' if t.nullable else ''}"


def _if_children(s: If) -> tuple:
    return (*(x for condition, body in s.branches for x in (condition, *body)), *(s.orelse or ()))


def _optional(*nodes) -> tuple:
    return tuple([node for node in nodes if node is not None])  # a list first: tuple() over a generator is slower


# Each node class's direct child nodes, in source order. A new node class without an entry is refused by children().
_CHILDREN = {
    TypeRef: lambda t: (*t.args, *_optional(t.returns)),
    Name: lambda e: (),
    Literal: lambda e: (),
    FString: lambda e: tuple(part for part in e.parts if not isinstance(part, str)),
    Formatted: lambda e: (e.value,),
    ListLiteral: lambda e: e.items,
    Unary: lambda e: (e.operand,),
    Binary: lambda e: (e.left, e.right),
    Call: lambda e: (e.func, *e.args),
    TypeCall: lambda e: (e.type, *e.args),
    Index: lambda e: (e.target, e.index),
    Member: lambda e: (e.target,),
    Param: lambda p: _optional(p.type),
    Lambda: lambda e: (*e.params, e.body),
    Let: lambda s: _optional(s.type, s.value),
    Assign: lambda s: (s.target, s.value),
    ExprStmt: lambda s: (s.expr,),
    Return: lambda s: _optional(s.value),
    Break: lambda s: (),
    Continue: lambda s: (),
    Pass: lambda s: (),
    Expect: lambda s: (s.expr,),
    If: _if_children,
    While: lambda s: (s.condition, *s.body),
    For: lambda s: (s.iterable, *s.body),
    Use: lambda i: (),
    Field: lambda f: (f.type,),
    TypeDecl: lambda i: i.fields,
    EnumMember: lambda m: (),
    EnumDecl: lambda i: i.members,
    FnDecl: lambda i: (*i.params, *_optional(i.returns), *i.body),
    TestDecl: lambda i: i.body,
    Module: lambda m: m.items,
}


# Operators of one grammar level chain to the left: `a + b - c` is one chain, `a + b * c` nests `*` in it.
CHAINS = ({"+", "-"}, {"*", "/", "%"}, {"and"}, {"or"})


def same_level(left: str, right: str) -> bool:
    return any(left in chain and right in chain for chain in CHAINS)


def chain(e: Binary) -> list[Binary]:
    """The operations of the chain `e` ends (LANGUAGE.md §12: one level), first to last: `a + b - c` gives
    [a + b, a + b - c]. Found iteratively: a pass that recursed down a chain's left spine would recurse per operand,
    so every pass reads a chain through here and recurses only into its operands."""
    spine = [e]
    while isinstance(spine[-1].left, Binary) and same_level(spine[-1].left.op, spine[-1].op):
        spine.append(spine[-1].left)
    spine.reverse()
    return spine


def children(node: Node) -> tuple[Node, ...]:
    """The direct child nodes of any node (statements, items, expressions, types), in source order."""
    found = _CHILDREN.get(type(node))
    if found is None:
        raise TypeError(f"children() does not know the node {type(node).__name__}")
    return found(node)


def _layout(cls: type) -> tuple | None:
    """What kite.syntax._nodes's __init__ reads off a node class (its fields in order, the field of each positional
    parameter, each default, the marker of none, where line, column and the ends are, when Node.__post_init__ is the
    class's); None for a class whose __init__ it does not model (a default factory, another __post_init__)."""
    fields = [f for f in dataclasses.fields(cls) if f.init]
    post_init = getattr(cls, "__post_init__", None)
    if len(fields) > 32 or any(f.default_factory is not dataclasses.MISSING for f in fields) or post_init not in (None, Node.__post_init__):
        return None
    names = tuple(f.name for f in fields)
    ends = tuple(names.index(name) for name in ("line", "column", "end_line", "end_column")) if post_init else None
    return (names, tuple(at for at, f in enumerate(fields) if not f.kw_only), tuple(f.default for f in fields), dataclasses.MISSING, ends)


# Each node class's __init__ as dataclasses wrote it: where kite.syntax._nodes's is installed, tests compare the two.
DATACLASS_INITS = {cls: vars(cls)["__init__"] for cls in (Node, *_CHILDREN)}


try:
    from kite.syntax import _nodes  # type: ignore[attr-defined]
except ImportError:  # not built (KITE_PYTHON_LOOP_ONLY): the dataclasses' and namedtuples' own Python code makes them
    _nodes = None


def made_in_c(cls):
    """A NamedTuple class whose calls by position make the tuple in C (kite.syntax._nodes), not in its Python __new__:
    for the tuples a graph makes by the hundred a file (ranges, names, logical lines)."""
    if _nodes is not None:
        _nodes.called_as_record(cls)
    return cls


def _install_c_init() -> None:
    """kite.syntax._nodes's __init__ on every node class it models (the same attributes, set without a Python call
    each: a tenth of a cold parse); the dataclasses' own where it is not built."""
    if _nodes is None:
        return
    init = _nodes.initializer(Node)
    for cls in DATACLASS_INITS:
        layout = _layout(cls)
        if layout is not None:
            cls.__node_layout__ = layout  # type: ignore[attr-defined]
            cls.__init__ = init  # type: ignore[misc]
            _nodes.called_as_node(cls)


_install_c_init()


def descendants(node: Node):
    """The node and every node inside it, in source order; iterative, so any depth is fine."""
    pending = [node]
    pop, extend = pending.pop, pending.extend  # bound once: this loop runs for every node a search or pass visits
    while pending:
        node = pop()
        yield node
        extend(reversed(children(node)))


def walk_statements(body):
    """Every statement of a block, and of the blocks nested in it, in source order."""
    for statement in body:
        yield statement
        yield from walk_statements([child for child in children(statement) if isinstance(child, STATEMENTS)])


def statement_expressions(statement) -> tuple:
    """The expressions a statement holds itself (not those of its nested blocks, nor its declared type): a condition,
    a value, a target."""
    return tuple(child for child in children(statement) if not isinstance(child, (*STATEMENTS, TypeRef)))


def expression_nodes(e):
    """Every node of an expression, lambda bodies, parameters and f-string holes included."""
    return descendants(e)
