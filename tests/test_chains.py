"""LANGUAGE.md §12: a chain of one operator is one level, however long. A 5,000-term chain is a valid program: every
pass reads it through nodes.chain, iteratively, so the recursion it needs does not grow with its length."""

from __future__ import annotations

import sys
import traceback

import pytest

from conftest import run_kite
from kite.codegen.csharp import UnitSymbols, generate
from kite.format import format_text
from kite.pipeline import kite_layer
from kite.search.find import search_source
from kite.search.pattern import parse_pattern
from kite.source import decode

TERMS = 5000


def program(terms: int) -> str:
    """Every shape of chain: numbers (one continued over lines), strings, `and` (with narrowing), `or`, a mixed chain,
    a constant, an f-string hole, and a test."""
    ones = " + ".join(["1"] * terms)
    strings = " + ".join(['"a"'] * terms)
    continued = "\n".join(["    return (1", *(["        + 1"] * (terms - 1)), "    )"])
    text = (
        f"module Chains\n\n"
        f"fn ones() -> int\n    return {ones}\n\n"
        f"fn text() -> str\n    return {strings}\n\n"
        f"fn all_true() -> bool\n    return {' and '.join(['true'] * terms)}\n\n"
        f"fn continued() -> int\n{continued}\n\n"
        f"test \"the chains add up\"\n    expect ones() == {terms}\n    expect continued() == {terms}\n"
        f"    expect text().Length == {terms}\n    expect all_true()\n"
    )
    return text + (
        f"\nlet total = {ones}\n\n"
        f"fn all_positive(x: int?) -> bool\n    return x != none and {' and '.join(['x > 0'] * terms)}\n\n"
        f"fn mixed(a: int) -> int\n    return {' - '.join(['a * 2 + 1'] * terms)}\n\n"
        f"fn any_zero(x: int) -> bool\n    return {' or '.join(['x == 0'] * terms)}\n\n"
        f"fn shown(a: int) -> str\n    return f\"{{{' * '.join(['a'] * terms)}}}\"\n"
    )


def every_pass(text: str) -> None:
    syntax, found = kite_layer(decode("chains.kite", text.encode()))
    assert found == [], [d.render() for d in found][:3]
    module = syntax.module
    for running in (None, text):  # checked arithmetic too
        generate(module, "chains.kite", UnitSymbols.of([module], ["chains.kite"]), file_index=0, running=running)
    assert format_text(text).count("\n") > 10
    assert search_source(parse_pattern("$a == $a"), decode("chains.kite", text.encode())) == ()


@pytest.mark.no_dotnet
def test_a_long_chain_needs_no_more_recursion_than_a_short_one():
    """The bound is counted, not timed: the passes run under a recursion limit a few frames above where this test
    stands, which a short chain needs anyway, and a 5,000-term chain must fit in it too."""
    every_pass(program(5))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(traceback.extract_stack()) + 150)
    try:
        every_pass(program(5))
        every_pass(program(TERMS))
    finally:
        sys.setrecursionlimit(limit)


SHAPES = {
    "numbers": ("int", " + ".join(["1"] * TERMS), TERMS),
    "strings": ("str", " + ".join(['"a"'] * TERMS), '"' + "a" * TERMS + '"'),
    "and": ("bool", " and ".join(["true"] * TERMS), "true"),
    "continued": ("int", "(1\n" + "".join(["        + 1\n"] * (TERMS - 1)) + "    )", TERMS),
}


@pytest.mark.dotnet
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_long_chain_goes_through_every_layer_and_its_test_passes(tmp_path, shape):
    """Roslyn too takes the C# a 5,000-term chain becomes (one flat expression, not one nested call per term), and the
    test runs it checked. One chain a program: Roslyn's time grows faster than its #line markers
    (benchmarks/long_chains.py), and the compile budget is wall-clock time."""
    type_, chain, value = SHAPES[shape]
    (tmp_path / "chains.kite").write_text(
        f"module Chains\n\nfn chain() -> {type_}\n    return {chain}\n\ntest \"the chain\"\n    expect chain() == {value}\n"
    )
    checked = run_kite(["check", "chains.kite"], cwd=tmp_path)
    assert (checked.exit_code, checked.output) == (0, "clean: 0 errors, 0 warnings\n")
    tested = run_kite(["test", "chains.kite"], cwd=tmp_path)
    assert tested.exit_code == 0 and "1 passed" in tested.output, tested.output[-500:]


@pytest.mark.no_dotnet
def test_kite_fmt_keeps_a_long_chain_a_valid_program(tmp_path):
    (tmp_path / "chains.kite").write_text(program(TERMS))
    assert run_kite(["fmt", "chains.kite"], cwd=tmp_path).exit_code == 0
    checked = run_kite(["check", "--layer", "kite", "chains.kite"], cwd=tmp_path)
    assert (checked.exit_code, checked.output) == (0, "clean: 0 errors, 0 warnings\n")
