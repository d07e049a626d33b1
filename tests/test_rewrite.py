"""kite rewrite: a plan first (diff, counts, content hashes, nothing written), then applied whole or not at all."""

from __future__ import annotations

import json

import pytest

from conftest import run_kite
from kite.search import rewrite

PROGRAM = "module {name}\n\nfn f(a: int, b: int) -> int\n    print(upper(\"{name}\"))\n    return old(a + b, b)\n"


@pytest.fixture
def three(tmp_path):
    for name in ("A", "B", "C"):
        (tmp_path / f"{name.lower()}.kite").write_text(PROGRAM.format(name=name))
    return tmp_path


def contents(folder) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.glob("*.kite"))}


def test_preparing_prints_the_diff_and_the_counts_and_writes_only_the_plan(three):
    before = contents(three)
    result = run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($Y, $X * 2)", "."], cwd=three)
    assert result.exit_code == 0
    assert "--- a/a.kite\n+++ b/a.kite\n" in result.output
    assert "-    return old(a + b, b)\n+    return fresh(b, (a + b) * 2)\n" in result.output
    assert "3 matches in 3 files; nothing written. Plan: kite-rewrite.plan.json" in result.output
    assert contents(three) == before
    plan = json.loads((three / "kite-rewrite.plan.json").read_text())
    assert [len(entry["sha256"]) for entry in plan["files"]] == [64, 64, 64]


def test_applying_writes_every_file_of_the_plan(three):
    run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($Y)", "."], cwd=three)
    result = run_kite(["rewrite", "--apply", "kite-rewrite.plan.json", "--check"], cwd=three)
    assert result.exit_code == 0
    assert all(text.endswith(b"    return fresh(b)\n") for text in contents(three).values())


def test_a_template_of_several_lines_is_indented_as_the_line_it_replaces(three):
    run_kite(["rewrite", "print(upper($S))", "--to", "let shout = upper($S)\nprint(shout)", "a.kite"], cwd=three)
    result = run_kite(["rewrite", "--apply", "kite-rewrite.plan.json", "--check"], cwd=three)
    assert result.exit_code == 0, result.output
    assert '    let shout = upper("A")\n    print(shout)\n    return old(a + b, b)\n' in (three / "a.kite").read_text()


def test_nothing_matched_is_exit_1_and_no_plan(three):
    result = run_kite(["rewrite", "missing($X)", "--to", "other($X)", "."], cwd=three)
    assert result.exit_code == 1 and not (three / "kite-rewrite.plan.json").exists()


def test_a_plan_is_refused_whole_when_one_of_its_files_changed_since(three):
    run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($Y)", "."], cwd=three)
    (three / "b.kite").write_text(PROGRAM.format(name="B") + "# edited by hand\n")
    before = contents(three)
    result = run_kite(["rewrite", "--apply", "kite-rewrite.plan.json"], cwd=three)
    assert result.exit_code == 1
    assert "plan refused, no file written" in result.output and "b.kite: changed since the plan was made" in result.output
    assert contents(three) == before


def test_a_failed_write_half_way_puts_back_every_file_already_written(three, monkeypatch):
    run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($Y)", "."], cwd=three)
    before = contents(three)
    real_write, calls = rewrite.rewrite_in_place, []

    def failing_on_the_second_file(path, data, mode):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_write(path, data, mode)

    monkeypatch.setattr(rewrite, "rewrite_in_place", failing_on_the_second_file)
    with pytest.raises(OSError):
        rewrite.apply(str(three / "kite-rewrite.plan.json"))
    assert len(calls) == 3  # the first file written, the second failed, the first put back
    assert contents(three) == before
    assert not [path for path in three.iterdir() if path.name.startswith(".")]  # no temporary file left


def test_check_refuses_a_plan_whose_result_does_not_parse(three):
    run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($Y,,)", "."], cwd=three)
    before = contents(three)
    result = run_kite(["rewrite", "--apply", "kite-rewrite.plan.json", "--check"], cwd=three)
    assert result.exit_code == 1 and "the rewritten file does not parse (line 5:" in result.output
    assert contents(three) == before


def test_a_template_may_only_use_what_the_pattern_binds(three):
    result = run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($Z)", "."], cwd=three)
    assert result.exit_code == 2 and "the template uses $Z, which the pattern does not bind" in result.output


def test_crlf_line_ends_are_kept(tmp_path):
    (tmp_path / "w.kite").write_bytes(PROGRAM.format(name="W").replace("\n", "\r\n").encode())
    run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($Y)", "w.kite"], cwd=tmp_path)
    assert run_kite(["rewrite", "--apply", "kite-rewrite.plan.json"], cwd=tmp_path).exit_code == 0
    assert (tmp_path / "w.kite").read_bytes() == PROGRAM.format(name="W").replace("old(a + b, b)", "fresh(b)").replace("\n", "\r\n").encode()


def test_a_plan_that_is_not_one_is_exit_2(tmp_path):
    (tmp_path / "plan.json").write_text('{"files": 3}')
    result = run_kite(["rewrite", "--apply", "plan.json"], cwd=tmp_path)
    assert result.exit_code == 2 and "not a kite rewrite plan" in result.output


def test_no_plan_is_written_when_a_file_named_could_not_be_searched(three):
    (three / "empty.kite").write_text("")
    result = run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($Y)", "."], cwd=three)
    assert result.exit_code == 2 and "empty.kite: empty file" in result.output and "no plan written" in result.output
    assert not (three / "kite-rewrite.plan.json").exists()


def test_a_template_fills_metavariables_in_code_only_never_in_its_strings_or_comments(three):
    result = run_kite(["rewrite", "old($X, $Y)", "--to", 'fresh("$X", $Y)  # was $X', "a.kite"], cwd=three)
    assert '+    return fresh("$X", b)  # was $X\n' in result.output


def test_the_diff_shows_control_characters_of_an_answer_spelled_out(tmp_path):
    (tmp_path / "e.kite").write_text('module E\n\nfn f() -> str\n    return old("\x1b[2J", 1)\n')
    result = run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($X)", "e.kite"], cwd=tmp_path)
    assert '+    return fresh("\\e[2J")\n' in result.output and "\x1b" not in result.output


def test_a_plan_that_cannot_be_written_is_one_line_and_exit_2(three):
    result = run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($Y)", "--plan", "missing/plan.json", "."], cwd=three)
    assert result.exit_code == 2 and "missing/plan.json: cannot write the plan" in result.output


@pytest.mark.parametrize(("text", "command"), [
    (PROGRAM.format(name="A"), ["rewrite", "--apply", "kite-rewrite.plan.json"]),  # the plan made below
    ("module A\nfn f( a:int )->int\n    return a+1\n", ["fmt", "a.kite"]),
    ("module A\n\nfn f() -> int\n    var x = 1;\n    return x\n", ["check", "--fix", "--layer", "kite", "a.kite"]),
])
def test_a_file_rewritten_in_place_loses_setuid_and_setgid_and_keeps_its_permissions(three, text, command):
    # New content must not run with the owner's rights: the kernel drops these bits on a write, so must a replace.
    import os

    path = three / "a.kite"
    path.write_text(text)
    run_kite(["rewrite", "old($X, $Y)", "--to", "fresh($Y)", "a.kite"], cwd=three)
    os.chmod(path, 0o6754)
    run_kite(command, cwd=three)
    assert path.read_text() != text
    assert os.stat(path).st_mode & 0o7777 == 0o754
