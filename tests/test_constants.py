"""Module constants in the order that evaluates each after what it reads; cycles named in one short line (KT009)."""

from __future__ import annotations

from kite.constants import order_constants
from kite.pipeline import kite_layer
from kite.source import decode
from kite.syntax import nodes as n


def module_of(text: str) -> n.Module:
    syntax, _ = kite_layer(decode("c.kite", text.encode()))
    return syntax.module


def order(text: str):
    module = module_of(text)
    functions = {item.name: item for item in module.items if isinstance(item, n.FnDecl)}
    return order_constants([item for item in module.items if isinstance(item, n.Let)], functions)


def test_a_constant_comes_after_what_it_reads_directly_or_through_functions():
    result = order("module C\n\nlet a = b + c\nlet b: int = twice()\nlet c = 1\nlet d = 2\n\nfn twice() -> int\n    return c * 2\n")
    assert [c.name for c in result.ordered] == ["c", "b", "a", "d"]
    assert result.cycles == ()


def test_a_local_or_parameter_with_a_constant_s_name_is_not_a_read_of_it():
    result = order("module C\n\nlet a: int = f(1)\nlet x = a\n\nfn f(x: int) -> int\n    let a = 2\n    return [x].Select(fn(x) => x + a).Sum()\n")
    assert result.cycles == ()


def test_five_thousand_constants_in_reverse_order_are_ordered_without_recursion():
    text = "module C\n\n" + "".join(f"let c{i} = c{i + 1} + 1\n" for i in range(5000)) + "let c5000 = 1\n"
    result = order(text)
    assert [c.name for c in result.ordered][:2] == ["c5000", "c4999"] and len(result.ordered) == 5001


def test_a_long_cycle_is_reported_once_on_one_short_line():
    text = "module C\n\nlet c: int = g0()\n" + "".join(f"fn g{i}() -> int\n    return g{i + 1}()\n" for i in range(3000)) + "fn g3000() -> int\n    return c\n"
    _, found = kite_layer(decode("c.kite", text.encode()))
    [cycle] = [d.render() for d in found if d.id == "KT009"]
    assert cycle == "c.kite(3): error KT009: module constants read each other in a cycle: c -> g0() -> g1() -> g2() -> ... 2996 more ... -> g2999() -> g3000() -> c"
