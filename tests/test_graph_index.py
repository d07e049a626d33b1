"""The index's own shortcuts give what the long way gives: the analyzer without its every-expression type pass (the
index asks only for bindings' and members' types), for every .kite file of the repository."""

from __future__ import annotations

from pathlib import Path

from kite.analyze import gather
from kite.graph.index import group_of
from kite.search.cache import parse
from kite.source import SourceFile, read
from kite.syntax import nodes as n

ROOT = Path(__file__).resolve().parent.parent


def modules() -> list[n.Module]:
    found = []
    for path in sorted(p for folder in ("samples", "tests", "stdlib", "docs") for p in (ROOT / folder).rglob("*.kite")):
        try:
            module = parse(read(str(path))).module
        except Exception:  # a fixture that is not UTF-8 or not text
            continue
        if module is not None:
            found.append(module)
    return found


def facts_but_types(facts) -> tuple:
    members = [(member, owner, owner and (owner.line, owner.column, owner.end_line, owner.end_column)) for member, owner in facts.members]
    bindings = [(b, b.type and (b.type.end_line, b.type.end_column)) for b in facts.bindings]
    return (facts.declarations, bindings, facts.illegal_assignments, facts.discarded, facts.misplaced, facts.lambdas,
            facts.redeclared, facts.resolved, members)


def test_facts_without_every_type_are_the_same_but_for_the_types_for_every_kite_file():
    found = modules()
    assert len(found) > 100
    typed_members = 0
    for module in found:
        every, asked = gather(module), gather(module, every_type=False)
        assert asked.types == () and (every.types or not every.resolved)
        assert facts_but_types(asked) == facts_but_types(every), module.name
        typed_members += sum(owner is not None for _, owner in asked.members)
    assert typed_members > 50  # members whose target's type the index needs: `items[0].price`, `find().price`


def test_a_members_owner_is_inferred_in_the_scope_it_is_written_in():
    module = parse(SourceFile("m.kite", """module M

type Item
    price: int

type Box
    price: int

fn f(items: list<Item>, box: Box) -> int
    let first = items[0]
    let price_of = fn(box: Item) => box.price
    return first.price + box.price
""")).module
    assert module is not None
    owners = [(m.name, owner.name if owner is not None else None) for m, owner in gather(module, every_type=False).members]
    assert owners == [("price", "Item"), ("price", "Item"), ("price", "Box")]


def test_the_analyzers_members_are_every_member_written_so_the_index_takes_its_qualifiers_from_them():
    for module in modules():
        written = {id(node.target) for node in n.descendants(module) if isinstance(node, n.Member)}
        assert {id(member.target) for member, _ in gather(module, every_type=False).members} == written, module.name


def test_a_files_group_is_its_program_path_as_pathlib_spells_it():
    # A path as kite_files makes it is cut as a string; one pathlib would spell otherwise goes through pathlib.
    spellings = {"cart.kite": "cart", "shop/cart.test.kite": "shop/cart", "/abs/cart.kite": "/abs/cart",
                 "./shop/cart.kite": "shop/cart", "shop//cart.test.kite": "shop/cart", "shop/./cart.kite": "shop/cart"}
    for path, program in spellings.items():
        assert group_of(path, "M") == f"{program}\0M", path
