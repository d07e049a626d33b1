"""Every layer's diagnostics cover a range of the Kite file. The expectations below are written by hand from the Kite
source (the column of the first character, and the one just past the last), never copied from kite's output."""

from __future__ import annotations

import pytest

from conftest import ARTICLE, REPO
from kite.session import Session
from kite.units import UnitSource


@pytest.fixture(scope="module")
def session():
    with Session() as shared:
        yield shared


def ranges(session, path) -> dict[str, list[tuple[int, int, int, int]]]:
    found: dict[str, list[tuple[int, int, int, int]]] = {}
    for d in session.check(UnitSource(str(path)).read()).diagnostics:
        found.setdefault(d.id, []).append((d.line, d.column, d.end_line, d.end_column))
    return found


def ranges_of(session, tmp_path, text: str) -> dict[str, list[tuple[int, int, int, int]]]:
    program = tmp_path / "program.kite"
    program.write_text(text)
    return ranges(session, program)


def test_the_article_s_mistakes_cover_what_they_are_about(session):
    found = ranges(session, ARTICLE / "mistakes.kite")
    # line 5: `    total = total + 0.0`: the target `total` is columns 5-9.
    assert found["KT001"] == [(5, 5, 5, 10)]
    # line 6: `    let mut count = len(xs)`: the name `count` is columns 13-17.
    assert found["KT002"] == [(6, 13, 6, 18)]
    # line 7: `    upper("unused")`: the call is columns 5-19.
    assert found["KT006"] == [(7, 5, 7, 20)]
    # line 11: `    return name.Split(' ')[0]`: the possibly-none `name` is columns 12-15 (C# reports the receiver).
    assert found["CS8602"] == [(11, 12, 11, 16)]


def test_an_analyzer_warning_covers_the_call_it_is_about(session):
    found = ranges(session, ARTICLE / "ca.kite")
    # line 4: `    if xs.Count() > 0`: the call `xs.Count()` is columns 8-17.
    assert found["CA1829"] == [(4, 8, 4, 18)]
    # line 6: `    return xs.Any()`: the call `xs.Any()` is columns 12-19.
    assert found["CA1860"] == [(6, 12, 6, 20)]


def test_a_leak_covers_the_leaked_token(session):
    found = ranges(session, ARTICLE / "leak.kite")
    # line 4: `    var sum = a + b;`: `var` is columns 5-7, `;` column 20.
    assert found["KT004"] == [(4, 5, 4, 8), (4, 20, 4, 21)]


def test_a_compiler_error_covers_the_value_it_is_about_on_one_line_or_two(session, tmp_path):
    found = ranges_of(
        session, tmp_path, 'module Convert\n\nfn f() -> int\n    let x: int = "a"\n    let y: int = upper(\n        "b")\n    return x + y\n'
    )
    # line 4: the string `"a"` is columns 18-20; lines 5-6: the call starts at `upper` (column 18 of line 5) and
    # ends with the `)` in column 12 of line 6.
    assert found["CS0029"] == [(4, 18, 4, 21), (5, 18, 6, 13)]


def test_kite_s_own_analyzers_cover_the_call_and_the_operand_they_refuse(session, tmp_path):
    found = ranges_of(
        session, tmp_path,
        'module Sandbox\n\nfn f(done: bool) -> str\n    let text = System.IO.File.ReadAllText("/etc/passwd")\n    return "done: " + done\n',
    )
    # line 4: the call `System.IO.File.ReadAllText("/etc/passwd")` is columns 16-56.
    assert found["KT007"] == [(4, 16, 4, 57)]
    # line 5: `    return "done: " + done`: the bool `done` is columns 23-26.
    assert found["KT012"] == [(5, 23, 5, 27)]


def test_a_syntax_error_covers_the_offending_token(session, tmp_path):
    found = ranges_of(session, tmp_path, "module Syntax\n\nfn f() -> int\n    return 1 +* 2\n")
    # line 4: `    return 1 +* 2`: the `*` that cannot follow `+` is column 15.
    assert found["KT000"] == [(4, 15, 4, 16)]


def test_github_gives_columns_only_to_a_range_on_one_line_and_sarif_gives_every_range():
    import json
    from types import SimpleNamespace

    from kite.cli.emitters import github, sarif
    from kite.diagnostics import Diagnostic, Layer, Severity

    one_line = Diagnostic("a.kite", 4, 8, Severity.WARNING, "CA1829", "m", Layer.ANALYZERS, 4, 18)
    two_lines = Diagnostic("a.kite", 5, 18, Severity.ERROR, "CS0029", "m", Layer.COMPILER, 6, 13)
    reports = [SimpleNamespace(diagnostics=[one_line, two_lines], problem=None, program="a.kite")]
    annotations = github.check(reports).splitlines()
    assert annotations[0] == "::warning file=a.kite,line=4,endLine=4,col=8,endColumn=17,title=CA1829::m"
    assert annotations[1] == "::error file=a.kite,line=5,endLine=6,title=CS0029::m"
    results = json.loads(sarif.check(reports))["runs"][0]["results"]
    assert [result["locations"][0]["physicalLocation"]["region"] for result in results] == [
        {"startLine": 4, "startColumn": 8, "endLine": 4, "endColumn": 18},
        {"startLine": 5, "startColumn": 18, "endLine": 6, "endColumn": 13},
    ]


def test_a_layout_problem_covers_the_indentation_or_the_header_without_a_block(session, tmp_path):
    # line 4: two spaces of indentation (columns 1-2).
    assert ranges_of(session, tmp_path, "module Layout\n\nfn f() -> int\n  let x = 1\n    return x\n")["KT000"][0] == (4, 1, 4, 3)
    # line 4: `if x > 0` (columns 5-12) has no block under it.
    assert ranges_of(session, tmp_path, "module Layout\n\nfn f(x: int) -> int\n    if x > 0\n    return x\n")["KT000"] == [(4, 5, 4, 13)]


def test_a_line_longer_than_a_marker_can_name_keeps_its_line(session, tmp_path):
    found = ranges_of(session, tmp_path, f'module Long\n\nfn f() -> int\n    return len("{"a" * 70_000}") + missing\n')
    assert "KT900" not in found and "CS8938" not in found
    assert [start_line for start_line, _, _, _ in found["CS0103"]] == [4]


def test_a_message_that_quotes_the_code_quotes_it_without_the_generator_s_markers(session):
    [found] = [d for d in session.check(UnitSource(str(REPO / "tests" / "analyzers" / "CA1508.kite")).read()).diagnostics if d.id == "CA1508"]
    assert found.message.startswith("'n == 3' is always 'true'")


def test_compiler_errors_come_back_to_the_file_they_are_in_by_its_own_name(session, tmp_path):
    """The file half of the #line markers: each file of a unit marks its C# with its own name (here one a marker
    cannot spell as it is: a quote), and the session maps the name back, so each range lands in its own file."""
    program = tmp_path / 'say "hi".kite'
    program.write_text('module Say\n\nfn f() -> int\n    let x: int = "a"\n    return x\n')
    tests = tmp_path / 'say "hi".test.kite'
    tests.write_text('module Say\n\ntest "t"\n    let y: str = 1\n    expect f() == 1\n')
    unit = UnitSource(str(program), (str(tests),)).read()
    found = [(d.file, d.id, d.line, d.column, d.end_line, d.end_column) for d in session.check(unit).diagnostics]
    # line 4 of each: `"a"` is columns 18-20 of `    let x: int = "a"`, and `1` column 18 of `    let y: str = 1`.
    assert found == [(str(program), "CS0029", 4, 18, 4, 21), (str(tests), "CS0029", 4, 18, 4, 19)]
