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
