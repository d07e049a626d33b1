"""`kite graph` over tests/project (a program, its test file, another module with a syntax error), against
expectations made by hand: symbols and their ranges, every edge, the three queries, names that are unknown or
ambiguous, recovery, the parse cache."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kite.graph.build import index_source
from kite.graph.index import Range
from kite.source import read
from tests.conftest import run_kite

PROJECT = Path(__file__).parent / "project"

EDGES = {
    ("Cart.Order.items", "Cart.Item", "uses"),
    ("Cart.Order.size", "Cart.Size", "uses"),
    ("Cart.subtotal", "Cart.Item", "uses"),
    ("Cart.subtotal", "Cart.Item.price", "uses"),
    ("Cart.total", "Cart.Order", "uses"),
    ("Cart.total", "Cart.subtotal", "calls"),
    ("Cart.total", "Cart.Order.items", "uses"),
    ("Cart.total", "Cart.TAX", "uses"),
    ("Cart.label", "Cart.Order", "uses"),
    ("Cart.label", "std.split", "calls"),
    ("Cart.label", "std.len", "calls"),
    ("Cart.label", "Cart.Order.size", "uses"),
    ("Cart.label", "Cart.Size.Large", "uses"),
    ("Cart.label", "std.upper", "calls"),
    ("Cart.label", "Cart.total", "calls"),
    ("Cart.label", "std.to_str", "calls"),
    ("Cart.unused", "Cart.Item", "uses"),
    ("Cart.unused", "Cart.Item", "constructs"),
    ("Cart.test:total adds tax", "Cart.Order", "constructs"),
    ("Cart.test:total adds tax", "Cart.Item", "constructs"),
    ("Cart.test:total adds tax", "Cart.Size.Small", "uses"),
    ("Cart.test:total adds tax", "Cart.total", "calls"),
    ("Cart.test:total adds tax", "Cart.total", "tests"),
    ("Cart.test:label of a large order", "Cart.label", "calls"),
    ("Cart.test:label of a large order", "Cart.label", "tests"),
    ("Cart.test:label of a large order", "Cart.Order", "constructs"),
    ("Cart.test:label of a large order", "Cart.Size.Large", "uses"),
    ("Words.total", "std.len", "calls"),
    ("Words.broken", "Words.total", "calls"),
}


@pytest.fixture
def project(tmp_path) -> Path:
    shutil.copytree(PROJECT, tmp_path / "project")
    return tmp_path / "project"


def graph_json(project: Path, *args: str):
    result = run_kite(["graph", "--format", "json", *args, "."], cwd=project)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_every_symbol_with_its_kind_file_and_range(project):
    symbols = graph_json(project)["symbols"]
    assert [(s["id"], s["kind"], s["file"]) for s in symbols] == [
        ("Cart.Item", "type", "cart.kite"), ("Cart.Item.name", "field", "cart.kite"), ("Cart.Item.price", "field", "cart.kite"),
        ("Cart.Order", "type", "cart.kite"), ("Cart.Order.items", "field", "cart.kite"), ("Cart.Order.size", "field", "cart.kite"),
        ("Cart.Size", "enum", "cart.kite"), ("Cart.Size.Small", "member", "cart.kite"), ("Cart.Size.Large", "member", "cart.kite"),
        ("Cart.TAX", "const", "cart.kite"), ("Cart.subtotal", "fn", "cart.kite"), ("Cart.total", "fn", "cart.kite"),
        ("Cart.label", "fn", "cart.kite"), ("Cart.unused", "fn", "cart.kite"),
        ("Cart.test:total adds tax", "test", "cart.test.kite"), ("Cart.test:label of a large order", "test", "cart.test.kite"),
        ("Words.total", "fn", "words.kite"), ("Words.broken", "fn", "words.kite"),
    ]
    by_id = {s["id"]: s for s in symbols}
    # The whole declaration from its keyword (a field, a member: its name), 1-based, the end column exclusive.
    assert by_id["Cart.total"]["range"] == {"start": {"line": 23, "column": 1}, "end": {"line": 25, "column": 30}}
    assert by_id["Cart.Item.price"]["range"] == {"start": {"line": 5, "column": 5}, "end": {"line": 5, "column": 15}}
    assert by_id["Cart.Size.Large"]["range"] == {"start": {"line": 13, "column": 5}, "end": {"line": 13, "column": 10}}
    assert by_id["Cart.test:total adds tax"]["range"] == {"start": {"line": 3, "column": 1}, "end": {"line": 5, "column": 31}}
    assert by_id["Cart.total"]["name"] == "total" and by_id["Cart.test:total adds tax"]["name"] == "total adds tax"
    assert not any(s["id"].startswith("std.") for s in symbols)  # the standard library: edge targets only


def test_every_edge_and_each_once(project):
    edges = graph_json(project)["edges"]
    assert {(e["from"], e["to"], e["kind"]) for e in edges} == EDGES
    assert len(edges) == len(EDGES)


def test_callers_of_an_id_are_the_functions_and_tests_that_call_it(project):
    result = run_kite(["graph", "--callers", "Cart.total", "."], cwd=project)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "cart.kite(27,1): fn Cart.label",
        "cart.test.kite(3,1): test Cart.test:total adds tax",
    ]


def test_callees_include_constructors_and_the_standard_library(project):
    found = graph_json(project, "--callees", "label")
    assert [s["id"] for s in found] == ["Cart.total", "std.len", "std.split", "std.to_str", "std.upper"]
    assert found[1] == {"id": "std.len", "name": "len", "kind": "fn", "file": None, "range": None}
    assert [s["id"] for s in graph_json(project, "--callees", "unused")] == ["Cart.Item"]


def test_impact_is_everything_that_depends_on_it_transitively(project):
    found = graph_json(project, "--impact", "Item")
    assert sorted(s["id"] for s in found) == sorted([
        "Cart.Order.items", "Cart.Order", "Cart.subtotal", "Cart.unused", "Cart.total", "Cart.label",
        "Cart.test:total adds tax", "Cart.test:label of a large order",
    ])
    assert [s["id"] for s in graph_json(project, "--impact", "Cart.TAX")] == [
        "Cart.total", "Cart.label", "Cart.test:total adds tax", "Cart.test:label of a large order"]


def test_an_unknown_name_is_exit_2_with_one_line(project):
    result = run_kite(["graph", "--callers", "nothing", "."], cwd=project)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "kite: error: no symbol named 'nothing' in the files given"


def test_an_ambiguous_name_lists_the_candidates_and_is_exit_2(project):
    result = run_kite(["graph", "--impact", "total", "."], cwd=project)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "kite: error: 'total' is ambiguous: Cart.total, Words.total; name one by its id"


def test_a_file_that_does_not_parse_gives_what_parsed_and_says_what_was_left_out(project):
    result = run_kite(["graph", "--callees", "Words.broken", "."], cwd=project)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["words.kite(3,1): fn Words.total"]
    assert result.stderr == ("kite: warning: words.kite: line 7: unexpected '=': expected an expression or end of line "
                             "(left out of the graph)\n")
    # The function whose line was left out still spans from its keyword `fn` (its name's column is the node's own).
    symbols = {s["id"]: s["range"] for s in graph_json(project)["symbols"]}
    assert symbols["Words.broken"] == {"start": {"line": 6, "column": 1}, "end": {"line": 8, "column": 21}}


def test_ranges_are_the_files_own_columns_in_a_file_the_layout_pass_reindented(tmp_path):
    # Indented two spaces: the parser reads it re-indented, so each position is shifted back to the file's columns.
    (tmp_path / "two.kite").write_text("module Two\n\nfn f(x: int) -> int\n  if x > 1\n    return g(x)\n  return 0\n\n"
                                       "fn g(y: int) -> int\n  return (y +\n    1)\n")
    symbols = {s["id"]: s["range"] for s in graph_json(tmp_path)["symbols"]}
    assert symbols["Two.f"] == {"start": {"line": 3, "column": 1}, "end": {"line": 6, "column": 11}}
    assert symbols["Two.g"] == {"start": {"line": 8, "column": 1}, "end": {"line": 10, "column": 7}}
    index = index_source(read(str(tmp_path / "two.kite")))
    [x, y] = index.locals
    assert x.uses == (Range(4, 6, 4, 7), Range(5, 14, 5, 15)) and y.uses == (Range(9, 11, 9, 12),)
    assert [(name.name, name.range) for name in index.names if name.role == "call"] == [("g", Range(5, 12, 5, 13))]


def test_an_unreadable_file_is_one_line_and_exit_2_and_the_others_are_graphed(project):
    (project / "bad.kite").write_bytes(b"\xff\xfe\x00binary")
    result = run_kite(["graph", "--format", "json", "."], cwd=project)
    assert result.exit_code == 2
    assert len(json.loads(result.stdout)["symbols"]) == 18
    assert [line for line in result.stderr.splitlines() if "error" in line] == [
        line for line in result.stderr.splitlines() if line.startswith("kite: error: bad.kite")]


def test_one_query_at_a_time(project):
    result = run_kite(["graph", "--callers", "label", "--callees", "label", "."], cwd=project)
    assert result.exit_code == 2
    assert result.stderr == "kite: error: ask one of --callers, --callees, --impact at a time\n"  # before any file is read


def test_the_parse_cache_gives_the_same_graph_and_holds_each_file(project, tmp_path):
    cold = run_kite(["graph", "--format", "json", "."], cwd=project).stdout
    for _run in range(2):
        warm = run_kite(["graph", "--format", "json", "--cache", str(tmp_path / "cache"), "."], cwd=project)
        assert warm.exit_code == 0 and warm.stdout == cold
    assert len(list((tmp_path / "cache").iterdir())) == 3


def test_text_lists_symbols_then_edges(project):
    lines = run_kite(["graph", "."], cwd=project).stdout.splitlines()
    assert lines[0] == "cart.kite(3,1): type Cart.Item"
    assert "Cart.test:total adds tax tests Cart.total" in lines
    assert len(lines) == 18 + len(EDGES)


def test_a_recursive_call_and_a_call_inside_a_lambda_are_calls(tmp_path):
    (tmp_path / "b.kite").write_text('module B\n\nfn f(a: int) -> int\n    let g = fn(x: int) => f(x)\n    return g(a)\n')
    edges = json.loads(run_kite(["graph", "--format", "json", "b.kite"], cwd=tmp_path).stdout)["edges"]
    assert edges == [{"from": "B.f", "to": "B.f", "kind": "calls"}]  # g is a local: no symbol, no edge
    result = run_kite(["graph", "--callers", "f", "b.kite"], cwd=tmp_path)
    assert result.stdout.splitlines() == ["b.kite(3,1): fn B.f"]


def test_an_empty_file_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "empty.kite").write_text("")
    (tmp_path / "a.kite").write_text("module A\n\nfn f() -> int\n    return 1\n")
    result = run_kite(["graph", "."], cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stdout.splitlines() == ["a.kite(3,1): fn A.f"]
    assert result.stderr == "kite: error: empty.kite: empty file\n"
