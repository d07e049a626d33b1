"""The AST walk `kite find` uses: nodes.children() for the nodes under a node, and the dataclass fields that say what
a node is (positions left out) for comparing two nodes.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator

from kite.syntax import nodes as n

# Where a node is, not what it is: two nodes equal but for these are the same code. `name_column` (For) is one too.
POSITION_SUFFIXES = ("line", "column")
# Derived from the other fields (the expression as written, for messages): never compared.
DERIVED = frozenset({(n.Expect, "source")})


@functools.cache
def _compared_fields(cls) -> tuple[str, ...]:
    return tuple(
        field.name for field in dataclasses.fields(cls)
        if not field.name.endswith(POSITION_SUFFIXES) and (cls, field.name) not in DERIVED
    )


def fields_of(node: n.Node):
    """(name, value) of each field that says what the node is."""
    # A class is hashable; mypy takes the dataclass's `__hash__ = None` (its instances') for the class's.
    return ((name, getattr(node, name)) for name in _compared_fields(type(node)))  # type: ignore[arg-type]


def nodes_in(root):
    """Every node under `root` (a node or a tuple of nodes), `root` included, in source order; iterative, any depth."""
    for node in root if isinstance(root, tuple) else (root,):
        yield from n.descendants(node)


STATEMENTS = (n.Let, n.Assign, n.ExprStmt, n.Return, n.Break, n.Continue, n.Pass, n.Expect, n.If, n.While, n.For)
# Not Formatted: an f-string hole's wrapper, never written on its own (its value is searched).
EXPRESSIONS = (n.Name, n.Literal, n.FString, n.ListLiteral, n.Unary, n.Binary, n.Call, n.TypeCall, n.Index,
               n.Member, n.Lambda)

ITEMS = (n.Use, n.Let, n.TypeDecl, n.EnumDecl, n.FnDecl, n.TestDecl)


def blocks_in(module: n.Module) -> Iterator[tuple[n.Statement, ...]]:
    """Every block of statements: function and test bodies, and the bodies of if, elif, else, while and for."""
    for node in nodes_in(module.items):
        if isinstance(node, (n.FnDecl, n.TestDecl, n.While, n.For)):
            yield node.body
        elif isinstance(node, n.If):
            yield from (body for _, body in node.branches)
            if node.orelse:
                yield node.orelse
