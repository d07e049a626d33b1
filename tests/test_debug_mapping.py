"""kite.debug.mapping: a debug build's PDB read as Kite lines and names, with no debugger and no process.

The symbols are what the engine's `symbols` mode prints for a small program (written out here, so every case is
exact); tests/test_debug.py reads real ones."""

from __future__ import annotations

from kite.codegen.types import generated_name, identifier, kite_name
from kite.debug import mapping as maps
from kite.source import SourceFile
from kite.syntax.frontend import read_syntax

PATH = "/work/Orders.kite"
PROGRAM = """module Orders

type Line
    name: str
    price: dec

fn line_total(line: Line, count: int) -> dec
    let base = line.price * count

    return base

fn main()
    let lines = [Line("pen", 1.5)]
    for line in lines
        let total = line_total(line, 2)
        print(total)

test "totals"
    expect line_total(Line("a", 1.0), 1) == 1.0
"""
HIDDEN = [0, 0, 0, -1]
SYMBOLS = {
    "documents": [{"path": "/work/./Orders.kite", "checksum": "ab"}, {"path": "/work/Orders.kite.cs", "checksum": "cd"}],
    "methods": [
        # the record's constructor: generated, on the type's line
        {"token": 1, "name": ".ctor", "type": "Line", "test": None, "static": False, "parameters": ["name", "price"],
         "points": [HIDDEN, [7, 3, 6, 0]], "locals": [], "document": 0},
        {"token": 2, "name": "line_total", "type": "Orders", "test": None, "static": True, "parameters": ["line", "count"],
         "points": [[0, 7, 1, 0], [1, 8, 5, 0], [10, 10, 5, 0], [14, *HIDDEN[1:]]], "locals": [["base", 0, 0, 16]], "document": 0},
        {"token": 3, "name": "main", "type": "Orders", "test": None, "static": True, "parameters": [],
         "points": [[0, 13, 5, 0], [20, 14, 5, 0], [22, HIDDEN[1], 0, -1], [24, 15, 9, 0], [40, 16, 9, 0], [50, 14, 5, 0]],
         "locals": [["lines", 0, 0, 60], ["line", 1, 24, 50], ["total", 2, 24, 50], ["total__3", 3, 40, 50]], "document": 0},
        {"token": 4, "name": "kite_test__0_1", "type": "Orders", "test": "totals", "static": True, "parameters": [],
         "points": [[0, 19, 5, 0]], "locals": [], "document": 0},
        {"token": 5, "name": "<main>b__0_0", "type": "<>c", "test": None, "static": False, "parameters": ["x"],
         "points": [[0, 15, 20, 0]], "locals": [], "document": 0},
        {"token": 6, "name": "Main", "type": "Orders", "test": None, "static": True, "parameters": [],
         "points": [HIDDEN], "locals": [], "document": 0},
    ],
    "types": [{"token": 9, "name": "Line", "fields": [[11, "name"], [12, "price__f"]], "members": []},
              {"token": 10, "name": "Size", "fields": [], "members": [["Small", 0], ["Main__u", 1]]}],
}


def mapping() -> maps.Mapping:
    module = read_syntax(SourceFile(PATH, PROGRAM)).module
    return maps.Mapping(SYMBOLS, maps.functions_of(PATH, module))


def test_a_line_with_code_binds_the_first_offset_in_each_method_on_it():
    m = mapping()
    assert m.resolve(PATH, 8) == maps.Resolution(8, ((2, 1),))
    assert m.resolve("/work/sub/../Orders.kite", 14).points == ((3, 20),)  # the path is normalized
    assert m.resolve(PATH, 15).points == ((3, 24), (5, 0))  # the line and the lambda on it


def test_a_line_without_code_is_not_verified_and_offers_the_nearest_line():
    resolution = mapping().resolve(PATH, 9)  # a blank line between 8 and 10: a tie goes forward, where code runs next
    assert not resolution.verified
    assert resolution.nearest == 10
    assert resolution.message == "no code on line 9; the nearest line with code is 10"
    assert mapping().resolve(PATH, 11).nearest == 10


def test_generated_code_takes_no_breakpoint():
    assert mapping().resolve(PATH, 3).nearest is not None  # the record's constructor is on line 3
    assert not mapping().resolve(PATH, 3).verified


def test_a_file_outside_the_program_is_refused_by_name():
    resolution = mapping().resolve("/elsewhere/Other.kite", 3)
    assert resolution.message == "Other.kite is not part of the program being debugged"


def test_frames_have_kite_names_and_lines():
    m = mapping()
    assert m.frame_name(2) == "line_total"
    assert m.frame_name(4) == 'test "totals"'
    assert m.frame_name(5) == "fn in main"
    assert m.location(2, 12) == maps.Location("/work/Orders.kite", 10, 5)
    # a caller's return address on generated code after its call shows the call's line
    assert m.location(3, 23).line == 14


def test_generated_and_entry_frames_have_no_kite_location():
    m = mapping()
    assert m.location(6, 0) is None  # the entry wrapper
    assert m.location(1, 7) is None  # the record's constructor
    assert m.location(99, 0) is None


def test_a_let_not_yet_run_is_not_shown():
    m = mapping()
    assert m.visible_locals(2, 1, 8) == [("line", "arg", 0), ("count", "arg", 1)]
    assert m.visible_locals(2, 10, 10) == [("line", "arg", 0), ("count", "arg", 1), ("base", "local", 0)]


def test_a_name_declared_again_shows_the_innermost_binding_under_its_kite_name():
    shown = mapping().visible_locals(3, 42, 16)
    assert ("total", "local", 3) in shown and ("total", "local", 2) not in shown
    assert [name for name, _, _ in shown] == ["lines", "line", "total"]


def test_an_instance_method_counts_its_parameters_after_this():
    assert mapping().visible_locals(5, 0, 15) == [("x", "arg", 1)]


def test_stepping_ranges_run_through_hidden_points_to_the_next_line():
    m = mapping()
    assert m.step_range(3, 20) == (20, 24)
    assert m.on_new_line(3, 24, (3, 14))
    assert not m.on_new_line(3, 22, (3, 14))  # hidden
    assert not m.on_new_line(3, 50, (3, 14))  # the same line again


def test_types_are_spelled_with_kite_names_for_the_engine():
    types = mapping().kite_types()
    assert types["9"] == {"name": "Line", "fields": [[11, "name"], [12, "price"]], "members": {}}
    assert types["10"]["members"] == {"0": "Small", "1": "Main"}


def test_tests_are_found_by_title():
    m = mapping()
    assert m.test_method("totals").token == 4
    assert m.test_method("nope") is None
    assert m.tests() == ["totals"]


def test_kite_name_undoes_every_spelling_the_generator_makes():
    for name in ["count", "_", "__", "Equals", "Main", "a__b", "a__3", "class", "value", "x_1"]:
        assert kite_name(identifier(name)) == name
        assert kite_name(identifier(name) + "__f") == name
        assert kite_name(identifier(name).lstrip("@")) == name  # metadata drops C#'s @
    assert kite_name(generated_name("total", 12)) == "total"
