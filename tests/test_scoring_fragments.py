"""Fragments read as whole modules: which way each was read, and every diagnostic mapped back to the block's lines."""

from __future__ import annotations

import pytest

from kite.scoring.fragments import HOWS, MODULE_LINE, body_function, parsed, read_as_module
from kite.source import SourceFile
from kite.syntax.frontend import read_syntax


@pytest.mark.parametrize(("code", "how"), [
    ("module Shop\n\nfn f()\n    pass", "module"),
    ("# the shop\nmodule Shop\nfn f()\n    pass", "module"),
    ("module Shop\nfn f(\n", "module"),  # declares its module: read as written, errors and all
    ("    module Shop\n\n    fn f()\n        pass", "module"),
    ("fn add(a: int, b: int) -> int\n    return a + b\n\ntest \"adds\"\n    expect add(1, 2) == 3", "no module line"),
    ("type Item\n    name: str\n\nenum Size\n    Small", "no module line"),
    ("    fn add(a: int) -> int\n        return a", "items"),
    ("let mut total = 0\nfor x in [1, 2]\n    total += x\nprint(total)", "function body"),
    ("    let n = 1\n    print(n)", "function body"),
    ("print(add(1, 2))", "function body"),
    ("def f(x):\n    return x", "unreadable"),
    ("fn f()\nprint(1)", "unreadable"),
    ("", "unreadable"),
])
def test_each_shape_is_read_the_way_it_can_be(code, how):
    reading = read_as_module(code, "Shop")
    assert reading.how == how and how in HOWS
    if how != "unreadable":
        assert parsed(reading.source) is not None or how == "module"


def test_a_block_with_its_own_module_keeps_its_name_and_lines():
    reading = read_as_module("module Other\nfn f()\n    pass\n", "Shop")
    assert (reading.module, reading.line_offset, reading.source) == ("Other", 0, "module Other\nfn f()\n    pass\n")


def test_a_fragment_gets_the_task_module():
    reading = read_as_module("fn f()\n    pass", "Shop")
    assert (reading.module, reading.source.splitlines()[0]) == ("Shop", "module Shop")


def test_two_bodies_put_in_one_module_do_not_clash():
    first, second = (read_as_module(code, "Shop") for code in ("print(1)", "print(2)"))
    combined = first.source + "\n" + second.source.split("\n", 1)[1]
    assert parsed(combined) is not None
    assert read_syntax(SourceFile("answer.kite", combined)).diagnostics == ()
    names = [item.name for item in parsed(combined).items]
    assert len(set(names)) == 2 and all(name.startswith("fragment_body_") for name in names)


def test_a_module_line_with_a_bad_name_is_still_the_blocks_own():
    reading = read_as_module("module Shop.Inventory\nfn f()\n    pass", "Shop")
    assert (reading.how, reading.module, reading.line_offset) == ("module", "Shop.Inventory", 0)
    assert MODULE_LINE.match("module Shop  # the shop").group(1) == "Shop"


def test_a_huge_fragment_is_read_as_a_file_without_trying_each_way():
    code = "print(1)\n" * 20_000  # parses only as a function body
    reading = read_as_module(code, "Shop")
    assert (reading.how, reading.line_offset) == ("no module line", 1) and reading.source == "module Shop\n" + code


def test_crlf_in_a_block_is_read_as_lf():
    assert read_as_module("fn f()\r\n    pass\r\n", "Shop").how == "no module line"


def line_of_leak(reading) -> int:
    [leak] = [d for d in read_syntax(SourceFile("answer.kite", reading.source)).diagnostics if d.id == "KT004"]
    return leak.line - reading.line_offset


@pytest.mark.parametrize("code", [
    "module Shop\nfn f()\n    let x = null\n    print(x)",
    "fn f()\n    let x = null\n    print(x)",
    "    fn f()\n        let x = null\n        print(x)",
    "print(1)\nlet x = null\nprint(x)",
])
def test_a_diagnostic_maps_back_to_the_line_of_the_block(code):
    reading = read_as_module(code, "Shop")
    assert line_of_leak(reading) == next(i for i, line in enumerate(code.split("\n"), 1) if "null" in line)


def test_the_body_wrapper_adds_no_diagnostic_of_its_own():
    body = "let n = 1\nprint(n)"
    reading = read_as_module(body, "Shop")
    assert reading.how == "function body" and f"fn {body_function(body)}()" in reading.source
    assert read_syntax(SourceFile("answer.kite", reading.source)).diagnostics == ()


def test_an_unreadable_block_is_still_a_module_with_its_own_errors():
    reading = read_as_module("def f(x):\n    return x", "Shop")
    found = read_syntax(SourceFile("answer.kite", reading.source)).diagnostics
    assert reading.source.startswith("module Shop\n") and reading.line_offset == 1
    assert [d.line - reading.line_offset for d in found if d.id == "KT000"] == [1]


def test_a_range_is_mapped_to_the_answers_characters_through_a_dedented_or_wrapped_reading():
    from kite.scoring.answer import extract
    from kite.scoring.grading import AnswerLines, program_of

    # A body indented by two, inside a quote: the reading wraps it in a function (moved right by two).
    answer = "Try:\n\n> ```kite\n>   let total = 0\n>   total += 1\n> ```\n"
    extraction = extract(answer)
    program = program_of(extraction, "Shop")
    [(_, reading)] = program.readings
    assert reading.how == "function body" and reading.column_offset == 2
    line = 2 + 2  # the body's second line, after the module line and the function's
    program_line = program.source.split("\n")[line - 1]
    column = program_line.index("total") + 1
    found = {"line": line, "column": column, "end_line": line, "end_column": column + len("total")}
    span = AnswerLines(answer).span(extraction, program, found)
    assert answer[span["start"]:span["end"]] == "total" and span["block_line"] == 2
    point = {**found, "end_column": column}  # a layer that knows only where it starts: the whole line
    span = AnswerLines(answer).span(extraction, program, point)
    assert answer[span["start"]:span["end"]] == "  total += 1"
