"""The C# means what the Kite says: programs whose tests only pass when names, scopes, constants, records and
strings are generated faithfully, and hostile names that must not fool the hidden tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO
from kite.codegen.csharp import UnitSymbols, generate
from kite.diagnostics import Severity
from kite.pipeline import generate_unit
from kite.session import Session
from kite.source import SourceFile, decode
from kite.syntax.frontend import read_syntax
from kite.units import Unit, find_units

MEANING = REPO / "tests" / "meaning"


@pytest.fixture(scope="module")
def session():
    with Session() as shared:
        yield shared


def run_unit(session, tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    [unit] = [found.read() for found in find_units([str(tmp_path / next(iter(files)))])]
    return session.test(unit)


def outcome_lines(report) -> list[str]:
    return [f"{o.status} {o.case.name}: {o.message}".rstrip(": ") for o in report.outcomes]


@pytest.mark.parametrize("program", sorted(MEANING.glob("*.kite")), ids=lambda p: p.stem)
def test_each_program_compiles_and_passes_its_tests(session, program):
    [unit] = [found.read() for found in find_units([str(program)])]
    report = session.test(unit)
    errors = [d.render() for d in report.check.diagnostics if d.severity is Severity.ERROR or d.id == "KT900"]
    assert errors == []
    assert [o.status for o in report.outcomes] == ["pass"] * len(report.outcomes), outcome_lines(report)


def test_a_test_file_s_standard_library_names_are_the_standard_library_s_whatever_the_program_s_constants_are_called(session, tmp_path):
    program = "module Answer\n\nlet len = 3\nlet sorted = [9]\nlet upper = \"x\"\n\nfn answer() -> int\n    return len\n"
    tests = (
        'module Answer\n\ntest "the real len and sorted"\n'
        '    expect len("abcdef") == 6\n    expect sorted([3, 1]) == [1, 3]\n    expect answer() == 3\n'
        '    expect join(["a", "b"].Select(upper), "+") == "A+B"\n'
    )
    report = run_unit(session, tmp_path, {"answer.kite": program, "answer.test.kite": tests})
    assert outcome_lines(report) == ["pass the real len and sorted"]


def test_a_function_with_a_standard_library_name_is_never_what_a_test_file_calls():
    """KT008 refuses such a program; even so, the C# of the test file names the standard library itself."""
    program = decode("answer.kite", b"module Answer\n\nfn len(text: str) -> int\n    return 3\n\nfn sorted(xs: list<int>) -> list<int>\n    return xs\n")
    tests = decode("answer.test.kite", b'module Answer\n\ntest "t"\n    expect len("abc") == 3\n    expect sorted([2, 1]) == [1, 2]\n')
    unit = Unit(program, (tests,))
    modules = [read_syntax(source).module for source in unit.sources]
    [_, (_, test_csharp)] = generate_unit(unit, modules).sources
    assert "kite__std::Kite.Std.len(" in test_csharp and "kite__std::Kite.Std.sorted(" in test_csharp
    assert " len(" not in test_csharp and " sorted(" not in test_csharp


def test_a_type_s_name_called_constructs_the_type_whatever_else_the_program_calls_so():
    """KT015 refuses fn Item beside type Item; even so, the test file's Item(...) is the type, never the answer's fn."""
    program = decode("shop.kite", b"module Shop\n\ntype Item\n    name: str\n\nfn Item(name: str) -> Item?\n    return none\n")
    tests = decode("shop.test.kite", b'module Shop\n\ntest "t"\n    expect Item("ink").name == "ink"\n')
    unit = Unit(program, (tests,))
    modules = [read_syntax(source).module for source in unit.sources]
    [_, (_, test_csharp)] = generate_unit(unit, modules).sources
    assert "new Item(" in test_csharp and " Item(" not in test_csharp.replace("new Item(", "")


def test_c_sharp_s_hidden_keywords_cannot_change_a_let(session, tmp_path):
    program = (
        "module Hidden\n\nfn changed() -> int\n    let total = 1\n    __refvalue(__makeref(total), Int32) = 42\n    return total\n\n"
        'test "a let stays what it was"\n    expect changed() == 1\n'
    )
    report = run_unit(session, tmp_path, {"hidden.kite": program})
    assert not report.compiled
    assert {d.line for d in report.check.diagnostics} == {5}


def test_names_the_generator_uses_are_free_for_programs(session, tmp_path):
    """A module called Kite, types called Runtime and Std, functions named like test methods and pattern variables."""
    program = (
        "module Kite\n\ntype Runtime\n    value: int\n\ntype Std\n    other: list<int>\n\n"
        "fn kite_test__0_1() -> int\n    return 1\n\nfn kite_test_0_1() -> int\n    return 2\n\n"
        "fn n__1(n: int?) -> int\n    if n != none\n        let n__2 = n + 1\n        return n__2\n    return 0\n\n"
        "fn main__u() -> int\n    return 3\n\nfn Main() -> int\n    return 4\n\n"
        'test "the program\'s names are its own"\n'
        "    expect Runtime(1) == Runtime(1)\n    expect Std([1]) == Std([1])\n"
        "    expect kite_test__0_1() + kite_test_0_1() == 3\n    expect n__1(4) == 5\n    expect main__u() + Main() == 7\n"
        "    expect len(to_str(Runtime(5))) == 17\n"
    )
    report = run_unit(session, tmp_path, {"kite.kite": program})
    assert [d.render() for d in report.check.diagnostics if d.severity is Severity.ERROR] == []
    assert outcome_lines(report) == ["pass the program's names are its own"]


def test_generated_c_sharp_escapes_every_line_end_c_sharp_knows():
    text = 'module Ends\n\nfn f() -> str\n    return "a\u2028b\u2029c\u0085d" + f"{1}\u2028"\n\ntest "x\u2028y"\n    expect f() != "\u2028"\n'
    module = read_syntax(decode("e\u2028\".kite", text.encode())).module
    csharp = generate(module, "e\u2028\".kite", UnitSymbols.of([module], ["e\u2028\".kite"]))
    assert not any(char in csharp for char in "\r\u0085\u2028\u2029")
    assert '#line (3, 4) - (3, 4) 65536 "e__.kite"' in csharp  # the function's name, in a path without its line ends


UNPRINTABLE_TEXT = "\u00e9\U0001f600\ufffe\uffff\u200b\x01\t\ufeff"  # non-ASCII, astral, non-characters, format, controls


def test_generated_c_sharp_literals_escape_every_character_but_printable_ascii_and_keep_their_meaning(session, tmp_path):
    text = (f'module Odd\n\nfn f() -> str\n    return "{UNPRINTABLE_TEXT}"\n\nfn g() -> str\n    return f"{UNPRINTABLE_TEXT}{{1}}"\n\n'
            f"fn h() -> char\n    return '\ufffe'\n\n"
            f'test "{UNPRINTABLE_TEXT}"\n    expect f() + "1" == g()\n    expect h() == "\ufffe"[0]\n    expect f() == "{UNPRINTABLE_TEXT}"\n')
    module = read_syntax(SourceFile("odd.kite", text)).module
    csharp = generate(module, "odd.kite", UnitSymbols.of([module], ["odd.kite"]))
    assert [c for c in csharp if not (" " <= c <= "~" or c == "\n")] == []
    report = session.test(Unit(SourceFile("odd.kite", text)))
    assert [(o.status, o.case.name) for o in report.outcomes] == [("pass", UNPRINTABLE_TEXT)]


def test_a_type_may_have_its_module_s_name_and_a_field_its_type_s_name(session, tmp_path):
    program = (
        "module Stack\n\ntype Stack\n    Stack: list<int>\n\nenum Kind\n    Kind\n    Other\n\n"
        "fn push(s: Stack, x: int) -> Stack\n    return Stack([x])\n\nfn items(s: Stack) -> list<int>\n    return s.Stack\n"
    )
    # The field is read in the program: a test file that reads a capitalized field is KT015 (LANGUAGE.md section 12).
    tests = 'module Stack\n\ntest "a type named like its module"\n    expect push(Stack([]), 1) == Stack([1])\n    expect items(push(Stack([]), 2)) == [2]\n    expect Kind.Kind != Kind.Other\n'
    report = run_unit(session, tmp_path, {"stack.kite": program, "stack.test.kite": tests})
    assert [d.id for d in report.check.diagnostics if d.severity is Severity.ERROR] == []
    assert outcome_lines(report) == ["pass a type named like its module"]


def test_a_file_name_with_a_quote_a_backslash_and_a_line_separator_keeps_its_compiler_diagnostics(tmp_path):
    from conftest import run_kite

    name = 'o"d\\d\u2028.kite'
    (tmp_path / name).write_text('module Odd\n\nfn f() -> int\n    let x: int = "a"\n    return x\n', encoding="utf-8")
    import json

    result = run_kite(["check", "--format", "json", name], cwd=tmp_path)
    [diagnostic] = json.loads(result.output)["diagnostics"]
    assert (diagnostic["file"], diagnostic["line"], diagnostic["id"]) == (name, 4, "CS0029")


def test_a_narrowing_ends_where_a_later_branch_assigns_the_name(session, tmp_path):
    """`x` is none-tested and the first branch returns, but an elif sets x to none and falls through: x + 1 after
    the statement is an int? again, never the stale narrowed value."""
    program = (
        "module Stale\n\nfn cond() -> bool\n    return true\n\nfn f(v: int?) -> int\n    let mut x = v\n"
        "    if x == none\n        return 0\n    elif cond()\n        x = none\n    return x + 1\n"
    )
    (tmp_path / "stale.kite").write_text(program, encoding="utf-8")
    [unit] = [found.read() for found in find_units([str(tmp_path / "stale.kite")])]
    assert [(d.line, d.id) for d in session.check(unit).diagnostics] == [(12, "CS0266")]


def test_sorting_what_has_no_order_is_a_compile_error_as_for_min_and_max(session, tmp_path):
    """sorted() of records or of lists compiled and then crashed the program; min() of them never compiled."""
    program = (
        "module Unordered\n\ntype P\n    x: int\n\nfn main()\n    print(sorted([P(2), P(1)]))\n"
        "    print(sorted([[2], [1]]))\n    let by_point = map<P, int>()\n    print(sorted(by_point))\n"
    )
    (tmp_path / "unordered.kite").write_text(program, encoding="utf-8")
    [unit] = [found.read() for found in find_units([str(tmp_path / "unordered.kite")])]
    errors = [(d.line, d.severity) for d in session.check(unit).diagnostics]
    assert errors == [(7, Severity.ERROR), (8, Severity.ERROR), (10, Severity.ERROR)]


def test_int_arithmetic_is_checked_and_an_overflow_fails_the_test_naming_the_operation(session, tmp_path):
    """LANGUAGE.md section 12: never wraps; the message names the Kite operation (the stdlib's too)."""
    program = (
        "module Overflow\n\nfn square(a: int) -> int\n    return a * a\n\n"
        "fn negated(a: int) -> int\n    return -a\n\n"
        'test "square"\n    expect square(46341) > 0\n\n'
        'test "negation of int min"\n    expect negated(-2147483647 - 1) > 0\n\n'
        'test "abs of int min"\n    expect abs(-2147483647 - 1) > 0\n\n'
        'test "sum"\n    expect sum([2147483647, 1]) > 0\n\n'
        'test "compound"\n    let mut total = 2147483647\n    total += (1)\n    expect total > 0\n\n'
        'test "division"\n    let low = -2147483647 - 1\n    expect low / -1 > 0\n\n'
        'test "nested: the outer one overflows"\n    let n = 65536\n    expect (n - 1 + 1) * (n) > 0\n'
    )
    report = run_unit(session, tmp_path, {"overflow.kite": program})
    assert outcome_lines(report) == [
        "fail square: int overflow in a * a",
        "fail negation of int min: int overflow in -a",
        "fail abs of int min: int overflow in abs(-2147483648)",
        "fail sum: int overflow in sum()",
        "fail compound: int overflow in total += 1",
        "fail division: int overflow in low / -1",
        "fail nested: the outer one overflows: int overflow in (n - 1 + 1) * n",
    ]


def test_a_built_program_stops_at_an_overflow_with_the_kite_message(tmp_path):
    import subprocess

    from conftest import run_kite

    (tmp_path / "square.kite").write_text(
        "module Square\n\nfn main()\n    let a = 46341\n    print(a + 1)\n    print(a * a)\n    print(\"never\")\n", encoding="utf-8"
    )
    built = run_kite(["build", "square.kite", "-o", str(tmp_path / "out")], cwd=tmp_path)
    assert built.exit_code == 0, built.output
    ran = subprocess.run(["dotnet", str(tmp_path / "out" / "Square.dll")], check=False, capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stdout, ran.stderr) == (1, "46342\n", "int overflow in a * a\n")


def test_a_failing_expect_shows_each_side_as_a_kite_literal(session, tmp_path):
    """LANGUAGE.md section 12: no two different values read alike ("" and " ", ["", "a, b"] and ["a", "b"])."""
    program = (
        "module Lit\n\ntype Tally\n    label: str\n    hits: int\n\n"
        'test "strings"\n    expect "" == " "\n\n'
        'test "lists"\n    expect ["", "a, b"] == ["a", "b"]\n\n'
        'test "records"\n    expect Tally("a", 2) == Tally("a\\n", 3)\n\n'
        'test "chars, none, quotes"\n    let x: str? = none\n    expect x == "q\\"t"\n    expect \'x\' == \'y\'\n\n'
        'test "maps"\n    let m = map<str, int>()\n    m["k"] = 1\n    expect m == map<str, int>()\n'
    )
    report = run_unit(session, tmp_path, {"lit.kite": program})
    assert outcome_lines(report) == [
        'fail strings: expect "" == " " (left: "", right: " ")',
        'fail lists: expect ["", "a, b"] == ["a", "b"] (left: ["", "a, b"], right: ["a", "b"])',
        'fail records: expect Tally("a", 2) == Tally("a\\n", 3) (left: Tally(label: "a", hits: 2), right: Tally(label: "a\\n", hits: 3))',
        'fail chars, none, quotes: expect x == "q\\"t" (left: none, right: "q\\"t")',
        'fail maps: expect m == map<str, int>() (left: {"k": 1}, right: {})',
    ]
