"""One walk over the AST: nodes.children() knows every node class and every field that holds nodes, and every pass
refuses a node class it does not know instead of dropping it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

from conftest import REPO
from kite.analyze import gather
from kite.codegen.csharp import UnitSymbols, generate
from kite.source import decode
from kite.syntax import nodes as n
from kite.syntax.frontend import read_syntax

NODE_CLASSES = [value for value in vars(n).values() if isinstance(value, type) and issubclass(value, n.Node) and value is not n.Node]


@pytest.fixture(scope="module")
def tour() -> n.Module:
    """The language tour uses every node class (tests/test_syntax.py proves it)."""
    return read_syntax(decode("tour.kite", (REPO / "samples" / "language_tour.kite").read_bytes())).module


def nodes_in_fields(node: n.Node) -> list[n.Node]:
    """The nodes a node's fields hold, found without children(): the check children() is held to."""
    found = []

    def visit(value):
        if isinstance(value, n.Node):
            found.append(value)
        elif isinstance(value, tuple):
            for item in value:
                visit(item)

    for field in dataclasses.fields(node):
        visit(getattr(node, field.name))
    return found


def test_children_knows_every_node_class_and_leaves_out_no_field(tour):
    seen = set()
    for node in n.descendants(tour):
        seen.add(type(node))
        assert [id(c) for c in n.children(node)] == [id(c) for c in nodes_in_fields(node)], type(node).__name__
    assert seen == set(NODE_CLASSES)


def test_children_and_descendants_keep_source_order(tour):
    positions = [(node.line, node.column) for node in n.descendants(tour) if not isinstance(node, n.Module)]
    statements = [(s.line, s.column) for item in tour.items if isinstance(item, n.FnDecl) for s in n.walk_statements(item.body)]
    assert statements == sorted(statements)
    assert len(positions) > 100


@dataclass(frozen=True)
class Unknown(n.Node):
    """A node class the passes have never heard of: a statement kind added without teaching them."""


def test_every_pass_refuses_a_node_class_it_does_not_know(tour):
    with pytest.raises(TypeError, match=r"children.. does not know the node Unknown"):
        n.children(Unknown(1, 1))
    function = next(item for item in tour.items if isinstance(item, n.FnDecl))
    broken = dataclasses.replace(tour, items=(dataclasses.replace(function, body=(*function.body, Unknown(99, 5))),))
    with pytest.raises(TypeError, match="does not know"):
        gather(broken)
    with pytest.raises(TypeError, match="does not know"):
        generate(broken, "tour.kite", UnitSymbols.of([broken], ["tour.kite"]))
    with pytest.raises(TypeError, match="does not know"):
        list(n.walk_statements(broken.items[0].body))


def test_every_node_of_the_tour_ends_after_it_starts_and_inside_its_parent(tour):
    for parent in n.descendants(tour):
        assert (parent.end_line, parent.end_column) > (parent.line, parent.column - 1), parent
        for child in n.children(parent):
            assert (child.end_line, child.end_column) <= (parent.end_line, parent.end_column), (parent, child)


def test_the_constants_order_reads_a_bare_return_and_refuses_an_unknown_statement():
    from kite.constants import order_constants
    from kite.syntax.parser import parse_module

    module = parse_module("module A\n\nlet c = f()\n\nfn f()\n    if true\n        return\n    pass\n")
    constants = [item for item in module.items if isinstance(item, n.Let)]
    function = next(item for item in module.items if isinstance(item, n.FnDecl))
    assert list(order_constants(constants, {"f": function}).ordered) == constants
    broken = dataclasses.replace(function, body=(*function.body, Unknown(9, 5)))
    with pytest.raises(TypeError, match="does not know the statement Unknown"):
        order_constants(constants, {"f": broken})


def test_analysis_and_code_generation_reach_every_declaration_statement_and_literal_of_the_tour(tour):
    from kite.codegen.csharp import WHOLE_LINE, span_marker

    nodes = list(n.descendants(tour))
    facts = gather(tour)
    declared = [node.name for node in nodes if isinstance(node, (n.Let, n.For, n.Param))]
    assert sorted(binding.name for binding in facts.bindings) == sorted(declared)
    assert [lambda_ for lambda_, _ in facts.lambdas] == [node for node in nodes if isinstance(node, n.Lambda)]
    csharp = generate(tour, "tour.kite", UnitSymbols.of([tour], ["tour.kite"]))
    functions = [item for item in tour.items if isinstance(item, (n.FnDecl, n.TestDecl))]
    for statement in (s for item in functions for s in n.walk_statements(item.body)):
        assert span_marker(statement, WHOLE_LINE, "tour.kite") in csharp, statement
    for literal in (node for node in nodes if isinstance(node, n.Literal) and node.kind in ("int", "str", "char")):
        assert literal.text in csharp, literal
