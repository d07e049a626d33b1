"""`kite check --new-only --state FILE`: only what was not reported before, keyed by file, severity, code and message."""

from __future__ import annotations

import json

import pytest

from conftest import run_kite

CHANGED_LET = """module A

fn f() -> int
    let total = 1
    total = 2
    return total
"""
FIXED = CHANGED_LET.replace("let total", "let mut total")


def new_only(tmp_path, *paths, output_format="text"):
    return run_kite(["check", "--layer", "kite", "--new-only", "--state", "state.json", "--format", output_format, *paths], tmp_path)


def new_lines(result) -> list[str]:
    return [line for line in result.output.splitlines() if "): " in line]


def test_first_check_reports_everything_and_the_same_check_again_nothing_with_the_exit_code_of_kite_check(tmp_path):
    (tmp_path / "a.kite").write_text(CHANGED_LET)
    first = new_only(tmp_path, "a.kite")
    assert new_lines(first) == ["a.kite(5): error KT001: 'total' cannot be changed: declare it with let mut"]
    again = new_only(tmp_path, "a.kite")
    assert new_lines(again) == [] and again.output.splitlines()[-1] == "0 new; all of them: failed: 1 errors, 0 warnings"
    assert first.exit_code == again.exit_code == run_kite(["check", "--layer", "kite", "a.kite"], tmp_path).exit_code == 1


def test_a_diagnostic_that_moved_down_is_not_new_and_a_second_copy_is(tmp_path):
    (tmp_path / "a.kite").write_text(CHANGED_LET)
    new_only(tmp_path, "a.kite")
    (tmp_path / "a.kite").write_text(CHANGED_LET.replace("module A\n", "module A\n\n\n\n\n"))
    assert new_lines(new_only(tmp_path, "a.kite")) == []
    (tmp_path / "a.kite").write_text(CHANGED_LET + "\nfn g() -> int\n    let total = 1\n    total = 2\n    return total\n")
    assert new_lines(new_only(tmp_path, "a.kite")) == ["a.kite(10): error KT001: 'total' cannot be changed: declare it with let mut"]


def test_a_fixed_diagnostic_that_comes_back_is_new_again(tmp_path):
    (tmp_path / "a.kite").write_text(CHANGED_LET)
    new_only(tmp_path, "a.kite")
    (tmp_path / "a.kite").write_text(FIXED)
    fixed = new_only(tmp_path, "a.kite")
    assert new_lines(fixed) == [] and fixed.exit_code == 0
    (tmp_path / "a.kite").write_text(CHANGED_LET)
    assert len(new_lines(new_only(tmp_path, "a.kite"))) == 1


def test_the_key_holds_the_file_however_it_is_named_and_other_files_keep_their_state(tmp_path):
    (tmp_path / "a.kite").write_text(CHANGED_LET)
    (tmp_path / "b.kite").write_text(CHANGED_LET.replace("module A", "module B"))
    assert len(new_lines(new_only(tmp_path, "a.kite"))) == 1
    assert len(new_lines(new_only(tmp_path, "b.kite"))) == 1  # same message, another file: new
    assert new_lines(new_only(tmp_path, str(tmp_path / "a.kite"))) == []  # a's state survived b's check


def test_a_test_file_beside_the_program_is_part_of_the_unit_state(tmp_path):
    (tmp_path / "a.kite").write_text(FIXED)
    broken_test = 'module A\n\ntest "f"\n    let x = 1\n    x = 2\n    expect f() == 2\n'
    (tmp_path / "a.test.kite").write_text(broken_test)
    assert [line.split("(")[0] for line in new_lines(new_only(tmp_path, "a.kite"))] == ["a.test.kite"]
    (tmp_path / "a.test.kite").write_text(broken_test.replace("let x", "let mut x"))
    assert new_lines(new_only(tmp_path, "a.kite")) == []
    (tmp_path / "a.test.kite").write_text(broken_test)  # fixed, then back: new again
    assert [line.split("(")[0] for line in new_lines(new_only(tmp_path, "a.kite"))] == ["a.test.kite"]


def test_json_keeps_the_whole_check_and_adds_the_new_ones(tmp_path):
    (tmp_path / "a.kite").write_text(CHANGED_LET)
    new_only(tmp_path, "a.kite")
    document = json.loads(new_only(tmp_path, "a.kite", output_format="json").output)
    assert document["verdict"] == "failed" and len(document["diagnostics"]) == 1 and document["new"] == []


@pytest.mark.parametrize("args, message", [
    (["--new-only"], "--new-only and --state go together"),
    (["--state", "state.json"], "--new-only and --state go together"),
    (["--new-only", "--state", "state.json", "--format", "sarif"], "--new-only prints text or json, not sarif"),
    (["--new-only", "--state", "garbage.json"], "garbage.json: not a kite --new-only state file"),
])
def test_unusable_options_and_state_are_one_line_and_exit_2(tmp_path, args, message):
    (tmp_path / "a.kite").write_text(CHANGED_LET)
    (tmp_path / "garbage.json").write_text("[1, 2")
    result = run_kite(["check", "--layer", "kite", *args, "a.kite"], tmp_path)
    assert result.exit_code == 2 and result.output.count("\n") == 1 and message in result.output


# A diagnostic that names an earlier declaration says where it is in a related location, never in its message: when
# code above moves, the message (and so the key) stays the same (issue 22: KT011 and KT015 said "on line 4").
MOVED = [
    ("module A\n\nfn f(n: int) -> int\n    let n = 2\n    return n\n", "fn f(n: int)", "\nfn f(n: int)"),  # KT011
    ("module A\n\nfn area(x: int) -> int\n    return x\n\nfn area(x: dec) -> dec\n    return x\n",
     "fn area(x: int)", "\nfn area(x: int)"),  # KT015
]


@pytest.mark.parametrize("text, earlier, moved", MOVED, ids=["KT011", "KT015"])
def test_a_diagnostic_whose_earlier_declaration_moved_is_not_new(tmp_path, text, earlier, moved):
    (tmp_path / "a.kite").write_text(text)
    assert len(new_lines(new_only(tmp_path, "a.kite"))) == 1
    (tmp_path / "a.kite").write_text(text.replace(earlier, moved))  # the earlier declaration one line down
    assert new_lines(new_only(tmp_path, "a.kite")) == []


def test_no_kite_rule_writes_a_line_number_into_its_message():
    """Every message of the rules and of the compiler-message rewrites: a position goes in a related location."""
    import re

    from conftest import REPO
    sources = [*sorted((REPO / "compiler" / "rules").glob("*.py")), REPO / "compiler" / "csharp_words.py",
               REPO / "compiler" / "syntax" / "frontend.py", REPO / "compiler" / "pipeline.py"]
    line_in_message = re.compile(r"""\b(on )?lines? \{""")
    offenders = [f"{path.name}: {line.strip()}" for path in sources for line in path.read_text().splitlines()
                 if ('f"' in line or "f'" in line) and line_in_message.search(line.split("#")[0])]
    assert offenders == []


def test_related_locations_go_through_json_and_say_where_the_earlier_declaration_is(tmp_path):
    (tmp_path / "a.kite").write_text(MOVED[0][0])
    document = json.loads(run_kite(["check", "--layer", "kite", "--format", "json", "a.kite"], tmp_path).output)
    (kt011,) = [d for d in document["diagnostics"] if d["id"] == "KT011"]
    assert kt011["related"] == [{"file": "a.kite", "line": 3, "column": 6, "message": "a parameter 'n' is declared here"}]
    from kite.diagnostics import Diagnostic
    assert Diagnostic.from_json(kt011).to_json() == kt011


def test_a_check_of_some_layers_updates_only_those_layers_part_of_the_state(tmp_path):
    """`--layer kite` between two full checks must not make the next full check repeat every C# diagnostic."""
    from kite.diagnostics import Diagnostic, Layer, Severity
    from kite.new_only import ReportedState

    path = str(tmp_path / "a.kite")
    kite = Diagnostic(path, 5, 5, Severity.ERROR, "KT001", "'total' cannot be changed: declare it with let mut", Layer.KITE)
    csharp = Diagnostic(path, 7, 1, Severity.WARNING, "CS8602", "Dereference of a possibly null reference.", Layer.COMPILER)
    analyzer = Diagnostic(path, 8, 1, Severity.WARNING, "CA1829", "Use Length/Count property instead of Count()", Layer.ANALYZERS)
    state_path = str(tmp_path / "state.json")
    state = ReportedState()
    assert state.update([path], [kite, csharp, analyzer]) == [kite, csharp, analyzer]
    state.save(state_path)
    state = ReportedState.load(state_path)
    assert state.update([path], [], (Layer.KITE,)) == []  # the kite layer fixed; the C# layers did not run
    assert state.update([path], [csharp, analyzer]) == []  # the next full check: the C# ones are not new
    assert state.update([path], [kite, csharp, analyzer], (Layer.KITE,)) == [kite]  # KT001 came back: new again


def test_an_older_state_file_is_read_as_empty_not_as_unusable(tmp_path):
    (tmp_path / "a.kite").write_text(CHANGED_LET)
    (tmp_path / "state.json").write_text(json.dumps({"version": 1, "files": {}}))
    assert len(new_lines(new_only(tmp_path, "a.kite"))) == 1


def test_the_language_server_gives_a_related_location_as_related_information():
    from kite.diagnostics import Diagnostic, Layer, Related, Severity
    from kite.lsp.server import lsp_diagnostic

    lines = ["module A", "", "fn f(n: int) -> int", "    let n = 2", "    return n"]
    d = Diagnostic("/w/a.kite", 4, 9, Severity.ERROR, "KT011", "'n' is already a parameter, still in scope: choose another name",
                   Layer.KITE, 4, 10, related=(Related("/w/a.kite", 3, 6, "a parameter 'n' is declared here"),))
    (info,) = lsp_diagnostic(d, lines).related_information
    assert (info.location.uri, info.location.range.start.line, info.location.range.start.character, info.message) == (
        "file:///w/a.kite", 2, 5, "a parameter 'n' is declared here")
    assert lsp_diagnostic(Diagnostic("/w/a.kite", 4, 9, Severity.ERROR, "KT001", "m", Layer.KITE), lines).related_information is None
