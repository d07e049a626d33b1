"""`kite score` end to end: every answer gets a result, hidden tests decide, bad input is a result, nothing is
graded twice, and a run killed with kill -9 resumes to the same summary."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import run_kite
from kite.errors import UnusableInput
from kite.own_files import own_files
from kite.scoring import cache as verdict_cache, executors, resume

ADDER = "module Adder\n\nfn add(a: int, b: int) -> int\n    return a + b\n"
HIDDEN = 'module Adder\n\ntest "adds"\n    expect add(1, 2) == 3\n\ntest "adds negatives"\n    expect add(-1, -2) == -3\n'


def kite_block(code: str) -> str:
    return f"Here it is.\n\n```kite\n{code}```\n"


def write_run(path, answers, *, task="add") -> None:
    with open(path, "w") as run:
        run.writelines(json.dumps({"id": f"a{index}", "task_id": task, "text": answer}) + "\n" for index, answer in enumerate(answers))


@pytest.fixture
def tasks(tmp_path):
    folder = tmp_path / "tasks" / "add"
    folder.mkdir(parents=True)
    (folder / "adder.test.kite").write_text(HIDDEN)
    (folder / "task.toml").write_text('module = "Adder"\nprompt = "kept for another tool: unknown keys are fine"\n')
    return tmp_path / "tasks"


def score(tmp_path, *args):
    out = tmp_path / "results.jsonl"
    result = run_kite(["score", "run.jsonl", "--field", "text", "--id-field", "id", "--out", str(out), *args], cwd=tmp_path)
    results = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return result, results


def test_hidden_tests_decide_and_the_answers_own_tests_are_reported_apart(tmp_path, tasks):
    own_test_passes_but_hidden_fail = "module Adder\n\nfn add(a: int, b: int) -> int\n    return a * b\n\ntest \"mine\"\n    expect add(2, 2) == 4\n"
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER), kite_block(own_test_passes_but_hidden_fail)])
    result, (right, wrong) = score(tmp_path, "--tasks", str(tasks))
    assert result.exit_code == 0, result.output
    assert right["passes"] and right["layers"]["tests"] == {"passed": 2, "failed": 0}
    assert not wrong["passes"] and wrong["compiles"] and [t["status"] for t in wrong["tests"]] == ["fail", "fail"]
    assert [t["status"] for t in wrong["own_tests"]] == ["pass"]


def test_a_forged_channel_fails_the_answer_even_when_every_deciding_test_passed():
    """The answer's own tests run after the hidden ones, in the same process: a line they forge comes after every
    deciding test has passed, and still fails the answer."""
    from kite.scoring.grading import assemble, prepare
    from kite.scoring.tasks import Task
    from kite.source import SourceFile

    task = Task("add", "Adder", (SourceFile("add/adder.test.kite", HIDDEN),))
    prepared = prepare(1, "a0", kite_block(ADDER), task, "kite", "dotnet", None)
    passed = [{"name": name, "file": "add/adder.test.kite", "line": 3, "status": "pass", "message": ""} for name in ("adds", "adds negatives")]
    verdict = {"reason": "", "tests": passed, "own_tests": [], "limits": None, "diagnostics": [], "skipped": [],
               "layers_run": ["kite", "compiler", "analyzers"], "applies": {}}
    assert assemble(prepared, {**verdict, "tampered": False})["passes"] is True
    forged = assemble(prepared, {**verdict, "tampered": True})
    assert forged["passes"] is False and forged["score"] == 0 and "the answer forged its test results" in forged["reasons"]


def test_an_answer_cannot_overload_a_helper_of_the_hidden_tests(tmp_path):
    folder = tmp_path / "tasks" / "add"
    folder.mkdir(parents=True)
    (folder / "task.toml").write_text('module = "Adder"\n')
    (folder / "adder.test.kite").write_text('module Adder\n\nfn close_to(got: dec, want: dec) -> bool\n    return got == want\n\n'
                                            'test "adds"\n    expect close_to(add(1, 2), 3)\n')
    # A wrong add, and a more specific close_to that C# overload resolution prefers for the hidden test's int call.
    hijack = "module Adder\n\nfn close_to(got: int, want: int) -> bool\n    return true\n\nfn add(a: int, b: int) -> int\n    return 0\n"
    write_run(tmp_path / "run.jsonl", [kite_block(hijack), kite_block(ADDER)])
    _, (hijacked, honest) = score(tmp_path, "--tasks", str(tmp_path / "tasks"))
    assert hijacked["passes"] is False and hijacked["compiles"] is False
    assert [(d["id"], d["line"]) for d in hijacked["diagnostics"]] == [("KT015", 3)] and "close_to" in hijacked["diagnostics"][0]["message"]
    assert honest["passes"] is True and honest["reasons"] == []


def test_another_module_is_graded_and_fails_with_that_reason(tmp_path, tasks):
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER.replace("Adder", "Solution")), kite_block(ADDER)])
    result, (other, right) = score(tmp_path, "--tasks", str(tasks))
    assert result.exit_code == 0
    assert other["compiles"] and other["passes"] is False and other["reasons"] == ["the answer is module 'Solution', the task's module is 'Adder'"]
    assert right["passes"]


def test_code_without_a_module_line_gets_the_tasks_module(tmp_path, tasks):
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER.removeprefix("module Adder\n"))])
    _, [answer] = score(tmp_path, "--tasks", str(tasks))
    assert answer["passes"] and answer["module"] == "Adder" and answer["blocks"][0]["read_as"] == "no module line"


def test_a_missing_task_folder_is_one_line_and_exit_2(tmp_path, tasks):
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER)], task="subtract")
    result, _results = score(tmp_path, "--tasks", str(tasks))
    assert result.exit_code == 2 and result.output.strip().splitlines() == [f"kite: error: {tasks}: no task folder for subtract"]
    result, _ = score(tmp_path, "--tasks", str(tmp_path / "nowhere"))
    assert result.exit_code == 2 and "no such tasks folder" in result.output


def test_bad_input_is_a_result_and_never_stops_the_run(tmp_path):
    many_blocks = "\n".join(f"Step {i}:\n\n```kite\nfn f{i}() -> int\n    return {i}\n```\n" for i in range(50))
    huge = "word " * 1_000_000 + "\n\n```kite\n" + ADDER + "```\n"
    lines = [
        b'{"id": "broken", "text": "no closing brace"\n',
        json.dumps({"id": "no-text"}).encode() + b"\n",
        json.dumps({"id": "number", "text": 42}).encode() + b"\n",
        json.dumps({"id": "empty", "text": ""}).encode() + b"\n",
        b'{"id": "latin-1", "text": "caf\xe9"}\n',
        b"[1, 2, 3]\n",
        json.dumps({"id": "many", "text": many_blocks}).encode() + b"\n",
        json.dumps({"id": "huge", "text": huge}).encode() + b"\n",
        json.dumps({"id": {"not": "an id"}, "text": "x"}).encode() + b"\n",
    ]
    (tmp_path / "run.jsonl").write_bytes(b"".join(lines))
    result, results = score(tmp_path)
    assert result.exit_code == 0, result.output
    by_line = {r["line"]: r for r in results}
    assert sorted(by_line) == list(range(1, len(lines) + 1))
    kinds = {line: r["problem"]["kind"] for line, r in by_line.items() if not r["graded"]}
    assert kinds == {1: "broken line", 2: "missing field", 3: "missing field", 5: "invalid utf-8", 6: "broken line", 9: "missing field"}
    assert by_line[4]["has_code"] is False and by_line[4]["compiles"] is False
    assert len(by_line[7]["blocks"]) == 50 and by_line[7]["compiles"] and by_line[7]["module"] == "Answer"
    assert by_line[8]["compiles"] and by_line[8]["module"] == "Adder"
    summary = json.loads((tmp_path / "results.summary.json").read_text())
    assert summary["ungradable"]["count"] == 6 and summary["rates"]["compiles"]["of"] == 9


def test_an_id_that_is_not_finite_cannot_make_the_results_file_invalid_json(tmp_path):
    (tmp_path / "run.jsonl").write_text('{"id": NaN, "text": "x"}\n{"id": -Infinity, "text": "x"}\n{"id": 1e999, "text": "x"}\n')
    result, _ = score(tmp_path)
    assert result.exit_code == 0, result.output

    def strict(constant):
        raise ValueError(f"{constant} is not JSON")

    for path in ("results.jsonl", "results.summary.json"):
        text = (tmp_path / path).read_text()
        documents = [json.loads(line, parse_constant=strict) for line in text.splitlines()] if path.endswith("l") else [json.loads(text, parse_constant=strict)]
        assert documents
    results = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [(r["id"], r["problem"]["kind"]) for r in results] == [(None, "missing field")] * 3


def test_a_diagnostic_points_at_its_line_in_the_answer_through_quotes_and_crlf(tmp_path):
    answer = "Look:\r\n\r\n> ```kite\r\n> module M\r\n>\r\n> fn f() -> int\r\n>     let mut n = 1\r\n>     return n\r\n> ```\r\n"
    write_run(tmp_path / "run.jsonl", [answer])
    _, [result] = score(tmp_path)
    [found] = result["diagnostics"]
    assert found["id"] == "KT002" and found["span"]["block_line"] == 4
    assert answer[found["span"]["start"]:found["span"]["end"]] == "n"  # KT002's range is the name, past the quote's "> "


def test_a_rule_that_judges_only_whole_files_is_not_applicable_to_a_fragment(tmp_path):
    body = "let mut shout = upper(name)\nupper(name)\nreturn shout\n"
    whole = "module M\n\nfn f(name: str) -> str\n    let mut shout = upper(name)\n    upper(name)\n    return shout\n"
    write_run(tmp_path / "run.jsonl", [kite_block(body), kite_block(whole)])
    _, (fragment, module) = score(tmp_path)
    assert fragment["blocks"][0]["read_as"] == "function body"
    assert fragment["rules"]["KT002"] == fragment["rules"]["KT006"] == "n/a"
    assert not {"KT002", "KT006"} & {d["id"] for d in fragment["diagnostics"]}
    assert module["rules"]["KT002"] == module["rules"]["KT006"] == "fail"
    assert module["rules"]["KT005"] == "n/a" and module["rules"]["KT004"] == "pass"


def test_a_usage_snippet_beside_a_whole_module_does_not_hide_what_the_module_is_judged_on(tmp_path):
    whole = "module M\n\nfn f(name: str) -> str\n    let mut shout = upper(name)\n    upper(name)\n    return shout\n"
    snippet = "```kite\nlet mut kept = f(\"a\")\nreturn kept\n```\n"  # its own KT002 stays unjudged: a fragment
    write_run(tmp_path / "run.jsonl", [kite_block(whole) + "\nUsage:\n\n" + snippet, snippet + kite_block(whole)])
    _, results = score(tmp_path)
    for result in results:
        assert [b["read_as"] for b in result["blocks"]] in (["module", "function body"], ["function body", "module"])
        assert result["rules"]["KT002"] == result["rules"]["KT006"] == "fail" and not result["clean"]
        found = sorted((d["id"], d["span"]["block_line"]) for d in result["diagnostics"] if d["id"] in ("KT002", "KT006"))
        assert found == [("KT002", 4), ("KT006", 5)]


def test_indenting_a_whole_program_does_not_take_it_out_of_the_whole_file_rules(tmp_path):
    items = "fn add(a: int, b: int) -> int\n    let mut total = a + b\n    add(0, 0)\n    return total\n"
    indented = "".join("    " + line for line in items.splitlines(keepends=True))
    write_run(tmp_path / "run.jsonl", [kite_block(items), kite_block(indented)])
    _, (flush, shifted) = score(tmp_path)
    assert (flush["blocks"][0]["read_as"], shifted["blocks"][0]["read_as"]) == ("no module line", "items")
    for result in (flush, shifted):
        assert result["rules"]["KT002"] == result["rules"]["KT006"] == "fail" and not result["clean"]
    assert [(d["id"], d["span"]["block_line"]) for d in flush["diagnostics"]] == [(d["id"], d["span"]["block_line"]) for d in shifted["diagnostics"]]


def test_false_claims_and_slop_come_with_spans_into_the_answer(tmp_path):
    answer = "Certainly! " + kite_block("module M\n\nfn f() -> int\n    var x = 1;\n    return x\n") + "\nIt uses no C# syntax."
    write_run(tmp_path / "run.jsonl", [answer])
    _, [result] = score(tmp_path)
    [claim] = [c for c in result["claims"] if c["false"]]
    assert answer[claim["start"]:claim["end"]] == "It uses no C# syntax." and result["leaked"]
    assert any(answer[hit["start"]:hit["end"]] == hit["phrase"] for hit in result["slop"])




@pytest.fixture
def judged(monkeypatch):
    """The requests the run's sessions were asked to judge (--jobs 1 judges in this process)."""
    asked = []
    real = executors.judge

    def judge(session, request):
        asked.append(request)
        return real(session, request)

    monkeypatch.setattr(executors, "judge", judge)
    return asked


def test_grading_with_hidden_tests_parses_the_program_once(tmp_path, tasks, monkeypatch):
    """The rules' applicability reads the module session.test parsed: the program is not parsed a second time."""
    from kite.syntax import frontend

    parsed = []
    real = frontend.parse_module
    monkeypatch.setattr(frontend, "parse_module", lambda text, *rest: parsed.append(text) or real(text, *rest))
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER)])
    _, [result] = score(tmp_path, "--tasks", str(tasks))
    assert result["passes"] and result["rules"]["KT002"] == "n/a"
    assert sum("fn add(a: int, b: int)" in text for text in parsed) == 1


def test_made_up_test_output_in_an_output_block_is_a_claim(tmp_path):
    broken = kite_block("module Adder\n\nfn add(a: int, b: int) -> int\n    return a +\n")
    shown = ["```\n$ kite test adder.kite\nAll 6 tests passed\n```\n", "```text\n6 passed, 0 failed\n```\n"]
    csharp = "```csharp\n// all tests pass\nint x = 1;\n```\n"  # a comment in code of another language is no output
    write_run(tmp_path / "run.jsonl", [broken + "\nRunning it:\n\n" + block + csharp for block in shown])
    _, results = score(tmp_path)
    for result, block in zip(results, shown):
        answer = broken + "\nRunning it:\n\n" + block + csharp
        [claim] = result["claims"]
        assert claim["kind"] == "passes tests" and claim["false"] and not result["compiles"]
        assert block.splitlines()[-2] in answer[claim["start"]:claim["end"]]
        assert not result["slop"]


def test_identical_programs_are_judged_once_per_run_and_once_per_cache(tmp_path, tasks, judged):
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER), "Same code, other words:\n\n" + kite_block(ADDER), kite_block(ADDER) + "\nDone, and it compiles."])
    _, first = score(tmp_path, "--tasks", str(tasks), "--cache", str(tmp_path / "cache"))
    assert len(judged) == 1 and all(r["passes"] for r in first)
    _, again = score(tmp_path, "--tasks", str(tasks), "--cache", str(tmp_path / "cache"))
    assert len(judged) == 1 and again == first


WRONG_ADDER = "module Adder\n\nfn add(a: int, b: int) -> int\n    return a - b\n"


def test_a_planted_or_edited_cache_entry_is_ignored_and_judged_again(tmp_path, tasks, judged):
    # The entry's name is a hash anyone can compute: an edited verdict (passes, every test a pass) was served as it
    # was, and JSON that is not a verdict crashed the run. Entries are signed with the user's key now.
    write_run(tmp_path / "run.jsonl", [kite_block(WRONG_ADDER)])
    cache = tmp_path / "cache"
    _, [first] = score(tmp_path, "--tasks", str(tasks), "--cache", str(cache))
    [entry] = cache.glob("*.json")
    forged = dict(first, passes=True, tests=[dict(test, status="pass", message="") for test in first["tests"]])
    for planted in (json.dumps(forged), "[]", json.dumps({"key": entry.stem, "verdict": forged})):
        entry.write_text(planted)
        result, [again] = score(tmp_path, "--tasks", str(tasks), "--cache", str(cache))
        assert (result.exit_code, again["passes"], again["score"]) == (0, False, 0), planted
    assert len(judged) == 4


def test_a_cache_folder_another_user_can_write_is_refused(tmp_path, tasks):
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER)])
    (tmp_path / "shared").mkdir(mode=0o777)
    (tmp_path / "shared").chmod(0o777)
    result, _ = score(tmp_path, "--tasks", str(tasks), "--cache", str(tmp_path / "shared"))
    assert result.exit_code == 2 and "another user can write it" in result.output


SPINNING_ADDER = "module Adder\n\nfn add(a: int, b: int) -> int\n    while true\n        pass\n    return a + b\n"


def test_the_cache_key_covers_the_grammar_and_the_standard_library_wherever_they_are_installed():
    from importlib import resources

    fingerprinted = {path for _, path in own_files()}
    for package, name in (("kite.grammar", "kite.lark"), ("kite.stdlib", "KiteStd.cs")):
        assert Path(str(resources.files(package) / name)).resolve() in fingerprinted, f"{package}/{name} does not key the cache"


def test_the_cache_key_covers_the_installed_dotnet_runtimes(monkeypatch):
    from kite.dotnet import runtime

    monkeypatch.setattr(runtime, "installed_runtimes", lambda: "Microsoft.NETCore.App 10.0.12 [/usr/share/dotnet]\n")
    before = verdict_cache.toolchain_fingerprint()
    monkeypatch.setattr(runtime, "installed_runtimes", lambda: "Microsoft.NETCore.App 10.0.13 [/usr/share/dotnet]\n")
    assert verdict_cache.toolchain_fingerprint() != before


def test_the_budget_bounds_an_answer_and_a_cached_verdict_keeps_its_limits(tmp_path, tasks, judged):
    write_run(tmp_path / "run.jsonl", [kite_block(SPINNING_ADDER)])
    cache = str(tmp_path / "cache")
    _, [bounded] = score(tmp_path, "--tasks", str(tasks), "--cache", cache, "--timeout", "5", "--budget", "1")
    # Both hidden tests would take 5 s each; the answer's budget of 1 s stops them all.
    assert [t["status"] for t in bounded["tests"]] == ["timeout", "timeout"]
    assert "the answer's time budget of 1 s ran out" in bounded["tests"][-1]["message"]
    _, [again] = score(tmp_path, "--tasks", str(tasks), "--cache", cache, "--timeout", "0.5", "--budget", "1")
    assert len(judged) == 2, "a verdict judged under other limits was served from the cache"
    assert (bounded["limits"], again["limits"]) == ({"timeout_seconds": 5, "budget_seconds": 1}, {"timeout_seconds": 0.5, "budget_seconds": 1})


def test_a_verdict_that_ran_out_of_time_is_not_kept_for_later_runs(tmp_path, tasks, judged):
    write_run(tmp_path / "run.jsonl", [kite_block(SPINNING_ADDER), kite_block(ADDER)])
    limits = ("--tasks", str(tasks), "--cache", str(tmp_path / "cache"), "--timeout", "0.3", "--budget", "0.5")
    _, first = score(tmp_path, *limits)
    _, again = score(tmp_path, *limits)
    assert [r["passes"] for r in first] == [r["passes"] for r in again] == [False, True]
    spinning = ["while true" in request.text for request in judged]
    assert spinning.count(True) == 2  # the spinning answer, judged by each run
    assert spinning.count(False) == 1  # the passing one, once: the second run had its verdict from the cache


def test_format_key_scores_ten_or_zero_and_averages_with_the_model(tmp_path):
    rows = [
        {"id": "j", "format": "json", "text": '{"a": 1}', "judge": {"score": 6}},
        {"id": "n", "format": "json", "text": '{"a": NaN}', "judge": {"score": 8}},
        {"id": "p", "format": "python", "text": "Here:\n```python\nx = 1\n```", "judge": {"score": 10}},
        {"id": "r", "format": "regex", "text": r"^\d+$", "judge": {"score": 2}},
        {"id": "k", "text": kite_block(ADDER), "judge": {"score": 4}},
        {"id": "x", "format": "yaml", "text": "a: 1", "judge": {"score": 4}},
        {"id": "m", "format": "json", "text": "{}", "judge": {}},
    ]
    (tmp_path / "run.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    result, results = score(tmp_path, "--format-field", "format", "--model-score-field", "judge.score")
    assert result.exit_code == 0, result.output
    scores = {r["id"]: (r["score"], r["final_score"]) for r in results if r["graded"]}
    assert scores == {"j": (10.0, 8.0), "n": (0.0, 4.0), "p": (0.0, 5.0), "r": (10.0, 6.0), "k": (10.0, 7.0)}
    assert {r["id"]: r["problem"]["kind"] for r in results if not r["graded"]} == {"x": "bad format", "m": "missing field"}


def test_a_model_score_off_the_0_to_10_scale_is_a_problem_and_the_run_goes_on(tmp_path):
    # A 400-digit score overflowed float() and ended the whole run (exit 3); 11 gave a final_score of 10.5.
    scores = {"huge": "1" + "0" * 400, "over": "11", "under": "-1", "nan": "NaN", "inf": "1e999", "low": "0", "high": "10"}
    text = json.dumps('{"a": 1}')
    (tmp_path / "run.jsonl").write_text("".join(
        f'{{"id": "{name}", "format": "json", "text": {text}, "judge": {value}}}\n' for name, value in scores.items()))
    result, results = score(tmp_path, "--format-field", "format", "--model-score-field", "judge")
    assert result.exit_code == 0, result.output
    assert {r["id"]: r["final_score"] for r in results if r["graded"]} == {"low": 5.0, "high": 10.0}
    assert {r["id"]: r["problem"]["message"] for r in results if not r["graded"]} == {
        name: "no model score (a number from 0 to 10) at 'judge'" for name in ("huge", "over", "under", "nan", "inf")}


def test_format_items_are_scored_beside_kite_tasks_in_their_own_rates(tmp_path, tasks):
    """Seed 003: a json, python, regex or csharp item needs no Kite task: without a task id, or with one that names
    no folder, it is graded by its format, and counted in its format's rate, never as a failed Kite answer."""
    rows = [
        {"id": "k", "task_id": "add", "text": kite_block(ADDER)},
        {"id": "j", "format": "json", "text": '{"a": 1}'},
        {"id": "q", "format": "json", "task_id": "json_items", "text": "[1,"},
        {"id": "r", "format": "regex", "task_id": "add", "text": r"^\d+$"},
    ]
    (tmp_path / "run.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    result, results = score(tmp_path, "--tasks", str(tasks), "--format-field", "format")
    assert result.exit_code == 0, result.output
    assert all(r["graded"] for r in results), results
    assert [(r["id"], r["task"], r["score"]) for r in results] == [("k", "add", 10.0), ("j", None, 10.0), ("q", "json_items", 0.0),
                                                                   ("r", "add", 10.0)]
    summary = json.loads((tmp_path / "results.summary.json").read_text())
    assert summary["rates"]["passes"]["of"] == summary["rates"]["compiles"]["of"] == 1  # Kite answers only
    assert {fmt: (rate["count"], rate["of"]) for fmt, rate in summary["formats"].items()} == {"json": (1, 2), "regex": (1, 1)}


def test_the_summary_is_written_before_the_workers_are_stopped(tmp_path, tasks, monkeypatch):
    """Stopping the sessions and their processes took up to 24 s: the summary does not wait for it."""
    seen = []
    real = executors.InlineExecutor.shutdown

    def shutdown(self, *args, **kwargs):
        seen.append((tmp_path / "results.summary.json").exists())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(executors.InlineExecutor, "shutdown", shutdown)
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER)])
    result, _ = score(tmp_path, "--tasks", str(tasks))
    assert result.exit_code == 0 and seen == [True]


def test_a_bom_before_the_first_line_of_the_run_is_dropped(tmp_path):
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER), "prose only"])
    (tmp_path / "run.jsonl").write_bytes(b"\xef\xbb\xbf" + (tmp_path / "run.jsonl").read_bytes())
    result, results = score(tmp_path)
    assert result.exit_code == 0, result.output
    assert [(r["id"], r["graded"]) for r in results] == [("a0", True), ("a1", True)]


def test_resume_drops_a_line_cut_short_and_keeps_the_rest(tmp_path):
    out = tmp_path / "results.jsonl"
    out.write_text(json.dumps({"schema": 1, "line": 1}) + "\n" + json.dumps({"schema": 1, "line": 2}) + "\n" + '{"schema": 1, "li')
    assert set(resume.resumed_lines(out)) == {1, 2}
    assert out.read_text().endswith('"line": 2}\n')
    out.write_text("not a result\n")
    with pytest.raises(UnusableInput):
        resume.resumed_lines(out)


def test_resume_refuses_results_of_a_changed_run(tmp_path):
    write_run(tmp_path / "run.jsonl", ["first text", "second text"])
    score(tmp_path)
    kept = (tmp_path / "results.jsonl").read_text()
    write_run(tmp_path / "run.jsonl", ["first text", "another second text"])  # same ids, same lines, another answer
    result, _ = score(tmp_path, "--resume")
    assert result.exit_code == 2 and "line 2" in result.output and "Traceback" not in result.output
    assert (tmp_path / "results.jsonl").read_text() == kept
    write_run(tmp_path / "run.jsonl", ["first text", "second text"])
    result, _ = score(tmp_path, "--resume", "--timeout", "3")  # the same lines judged under other limits
    assert result.exit_code == 2 and "line 1" in result.output
    write_run(tmp_path / "run.jsonl", ["first text", "another second text", "a third"])
    (tmp_path / "results.jsonl").write_text(kept.splitlines(keepends=True)[0])
    result, results = score(tmp_path, "--resume")  # the kept line is still the run's: only the others are graded
    assert result.exit_code == 0 and [r["line"] for r in results] == [1, 2, 3]


@pytest.mark.parametrize("changed", [
    ("--max-line-bytes", "100"), ("--reveal", "none"), ("--reveal", "names"), ("--timeout", "3"), ("--budget", "9"),
    ("--compile-timeout", "7"), ("--no-sandbox",), ("--regex-flavor", "python"), ("--format-field", "fmt"),
    ("--model-score-field", "m"), ("--field", "other"),
])
def test_resume_refuses_every_option_that_changes_a_verdict_in_one_line(tmp_path, changed):
    write_run(tmp_path / "run.jsonl", ["first text", "second text"])
    score(tmp_path)
    kept = (tmp_path / "results.jsonl").read_text()
    result, _ = score(tmp_path, "--resume", *changed)
    assert (result.exit_code, result.output.count("\n")) == (2, 1), result.output
    assert "cannot resume with a changed run" in result.output and (tmp_path / "results.jsonl").read_text() == kept
    result, _ = score(tmp_path, "--resume", "--cache", str(tmp_path / "cache"))  # where verdicts are kept changes none
    assert result.exit_code == 0 and (tmp_path / "results.jsonl").read_text() == kept


def test_two_runs_never_write_one_results_file(tmp_path):
    import fcntl

    write_run(tmp_path / "run.jsonl", ["some text"])
    score(tmp_path)
    kept = (tmp_path / "results.jsonl").read_text()
    with open(tmp_path / "results.jsonl", "a") as other_run:  # a run still writing (a job started twice)
        fcntl.flock(other_run, fcntl.LOCK_EX | fcntl.LOCK_NB)
        for args in ((), ("--resume",)):
            result, _ = score(tmp_path, *args)
            assert result.exit_code == 2 and "another kite score" in result.output and "Traceback" not in result.output
            assert (tmp_path / "results.jsonl").read_text() == kept
    result, _ = score(tmp_path, "--resume")
    assert result.exit_code == 0 and (tmp_path / "results.jsonl").read_text() == kept


def kite_score(tmp_path, out, *extra) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "kite.cli.main", "score", "run.jsonl", "--field", "text", "--id-field", "id",
         "--tasks", "tasks", "--out", out, *extra],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.name.isdigit() and int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def test_a_sigtermed_run_with_workers_leaves_no_worker_behind(tmp_path, tasks):
    """Its workers die with it, whatever they were judging: a worker left behind judged on for minutes."""
    spinning = "module Adder\n\nfn add(a: int, b: int) -> int\n    while true\n        pass\n    return 0\n"
    write_run(tmp_path / "run.jsonl", [kite_block(spinning.replace("0\n", f"{i}\n")) for i in range(6)])
    run = kite_score(tmp_path, "results.jsonl", "--jobs", "2", "--timeout", "60")
    workers: list[int] = []
    for _ in range(6000):  # until both workers judge (a count of polls, not a time bound)
        workers = [pid for pid in children_of(run.pid) if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        if (len(workers) == 2 and all(children_of(worker) for worker in workers)) or run.poll() is not None:
            break
        time.sleep(0.05)
    assert len(workers) == 2, run.stderr.read() if run.poll() is not None else workers
    run.send_signal(signal.SIGTERM)
    run.wait()
    def running(pid: int) -> bool:  # a zombie has ended: only its parent's (or init's) reaping is left
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    for _ in range(200):  # the kernel kills them as their parent dies; the bug left them for two minutes
        if not any(map(running, workers)):
            break
        time.sleep(0.05)
    alive = [pid for pid in workers if running(pid)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert alive == []


def test_a_run_killed_with_kill_9_and_resumed_ends_with_the_same_summary(tmp_path, tasks):
    answers = [kite_block(ADDER.replace("a + b", f"a + b + {i} - {i}" if i % 3 else "a - b")) for i in range(24)]
    write_run(tmp_path / "run.jsonl", answers)
    whole = kite_score(tmp_path, "whole.jsonl")
    assert whole.wait(timeout=600) == 0, whole.stderr.read()
    killed = kite_score(tmp_path, "killed.jsonl")
    results = tmp_path / "killed.jsonl"
    deadline = time.monotonic() + 600
    while not (results.exists() and results.read_text().count("\n") >= 5) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    written = results.read_text().count("\n")
    assert 5 <= written < len(answers), "the kill came too late to interrupt anything"
    resumed = kite_score(tmp_path, "killed.jsonl", "--resume")
    assert resumed.wait(timeout=600) == 0, resumed.stderr.read()
    summary = lambda name: json.loads((tmp_path / name).read_text())  # noqa: E731
    assert summary("killed.summary.json") == summary("whole.summary.json")
    lines = [json.loads(line)["line"] for line in results.read_text().splitlines()]
    assert sorted(lines) == list(range(1, len(answers) + 1))


def graded_answers(results: list[dict]) -> list[dict]:
    return sorted(results, key=lambda r: r["line"])


@pytest.fixture
def mixed_run(tmp_path, tasks):
    wrong = ADDER.replace("a + b", "a - b")
    answers = [kite_block(ADDER), kite_block(wrong), "prose only", kite_block(ADDER.replace("return", "return;")),
               kite_block(ADDER) + "\nThe same program again.", kite_block(wrong.removeprefix("module Adder\n"))]
    write_run(tmp_path / "run.jsonl", answers)
    _, alone = score(tmp_path, "--tasks", str(tasks))
    return graded_answers(alone)


def test_worker_processes_give_the_results_of_one_process(tmp_path, tasks, mixed_run):
    result, results = score(tmp_path, "--tasks", str(tasks), "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert graded_answers(results) == mixed_run


def test_a_dask_cluster_gives_the_results_of_one_process(tmp_path, tasks, mixed_run):
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        result, results = score(tmp_path, "--tasks", str(tasks), "--dask", cluster.scheduler_address)
    assert result.exit_code == 0, result.output
    assert graded_answers(results) == mixed_run



def test_a_task_folder_without_hidden_tests_stops_the_run_before_it_starts(tmp_path, tasks):
    (tasks / "empty").mkdir()
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER)], task="empty")
    result, results = score(tmp_path, "--tasks", str(tasks))
    assert result.exit_code == 2 and "no hidden tests" in result.output and results == []


def test_score_has_help_and_its_text_table_shows_intervals(tmp_path):
    shown = run_kite(["score", "--help"], cwd=tmp_path).output
    assert shown.startswith("Usage: ")
    from kite.cli.emitters import formats_for

    refused = {"full", "sarif", "junit", "github"} - set(formats_for("score"))
    assert refused and not [name for name in refused if f"{name}:" in " ".join(shown.split())]  # only formats it accepts
    assert "results.summary.json" in " ".join(shown.split())
    write_run(tmp_path / "run.jsonl", ["prose only", kite_block(ADDER)])
    result, _ = score(tmp_path)
    assert "compiles         50.0% [9.5%, 90.5%]          1/2" in result.output


def test_results_that_cannot_be_written_are_one_line_and_exit_2(tmp_path):
    write_run(tmp_path / "run.jsonl", ["prose"])
    result = run_kite(["score", "run.jsonl", "--field", "text", "--out", str(tmp_path / "no" / "such" / "dir.jsonl")], cwd=tmp_path)
    assert result.exit_code == 2 and result.output.startswith("kite: error: ") and "cannot write the results" in result.output


def test_jobs_1_keeps_a_booted_test_process_for_each_answer_in_flight():
    """Two answers are judged at once in this process: each takes a booted test process, never one still starting."""
    executor = executors.InlineExecutor(executors.SessionSettings())
    try:
        assert executor.session.processes_ahead == executors.ANSWERS_IN_FLIGHT == 2
    finally:
        executor.shutdown()


def test_a_lost_worker_stops_the_run_and_resume_grades_the_answers_it_held(tmp_path, tasks, monkeypatch):
    """A worker killed (out of memory) fails every answer it held with BrokenProcessPool: none of them is written as
    a grader fault, which --resume would keep forever; the run stops, and --resume grades them."""
    from concurrent.futures.process import BrokenProcessPool

    write_run(tmp_path / "run.jsonl", [kite_block(ADDER), kite_block(ADDER.replace("a + b", "b + a")), "prose only"])
    clean, expected = score(tmp_path, "--tasks", str(tasks))
    assert clean.exit_code == 0
    real = executors.judge

    def judge(session, request):
        if "b + a" in request.text:
            raise BrokenProcessPool("A process in the process pool was terminated abruptly")
        return real(session, request)

    monkeypatch.setattr(executors, "judge", judge)
    lost, kept = score(tmp_path, "--tasks", str(tasks))
    assert lost.exit_code == 2 and "--resume goes on" in lost.output
    assert all(r["graded"] for r in kept) and len(kept) < 3
    monkeypatch.setattr(executors, "judge", real)
    resumed, results = score(tmp_path, "--tasks", str(tasks), "--resume")
    assert resumed.exit_code == 0 and results == expected


def test_a_tasks_hidden_tests_are_read_once_for_all_its_answers(tmp_path, tasks, monkeypatch):
    """The session keeps the Kite layer of each hidden test file: every answer of a task meets the same file."""
    from kite.syntax import frontend

    parsed = []
    real = frontend.parse_module

    def slow_parse(text, *rest):
        """A slow read (as a cold parser's first is) lets the answers in flight on other threads reach the same file."""
        parsed.append(text)
        time.sleep(0.3 if 'test "adds"' in text else 0)
        return real(text, *rest)

    monkeypatch.setattr(frontend, "parse_module", slow_parse)
    write_run(tmp_path / "run.jsonl", [kite_block(ADDER), kite_block(ADDER.replace("a + b", "b + a")), kite_block("module Adder\n\nfn add(a: int) -> int\n    return a\n")])
    _, results = score(tmp_path, "--tasks", str(tasks))
    assert [r["passes"] for r in results] == [True, True, False]
    assert sum('test "adds"' in text for text in parsed) == 1


SHOP_SOLUTION = """module Shop

type Item
    name: str
    price: dec

fn names(items: list<Item>) -> list<str>
    let mut found: list<str> = []
    for item in items
        found.Add(item.name)
    return found
"""
SHOP_HIDDEN = """module Shop

test "has ink"
    expect "ink" in names([Item("ink", 0.5), Item("pen", 1.0)])

test "no ruler"
    expect not ("ruler" in names([Item("ink", 0.5), Item("pen", 1.0)]))
"""
# Wrong: one string, not a list of names; `in` reads a str as well, so the hidden tests pass it.
JOINED_NAMES = """module Shop

type Item
    name: str
    price: dec

fn names(things: list<Item>) -> str
    return "ink,pen"
"""


@pytest.mark.parametrize("answer, passes", [
    (SHOP_SOLUTION.replace("items", "things"), True),  # its own parameter names: the shape is the types
    (JOINED_NAMES, False),
    (SHOP_SOLUTION.replace("item.name", "item.label").replace("name: str", "label: str"), False),  # the task's fields
])
def test_an_answer_keeps_the_shape_the_task_declares_for_what_its_hidden_tests_use(tmp_path, answer, passes):
    folder = tmp_path / "tasks" / "shop"
    folder.mkdir(parents=True)
    (folder / "shop.test.kite").write_text(SHOP_HIDDEN)
    write_run(tmp_path / "run.jsonl", [kite_block(answer)], task="shop")
    without_solution, (graded,) = score(tmp_path, "--tasks", str(tmp_path / "tasks"))
    assert without_solution.exit_code == 0 and all(t["status"] == "pass" for t in graded["tests"])
    (folder / "solution.kite").write_text(SHOP_SOLUTION)
    result, (judged,) = score(tmp_path, "--tasks", str(tmp_path / "tasks"))
    assert result.exit_code == 0, result.output
    assert judged["passes"] is passes
    assert len(judged["reasons"]) == (0 if passes else 1)
    for reason in judged["reasons"]:  # the answer's shape, never the hidden solution's
        assert "not as the task declares it" in reason
        assert "fn names(list<Item>) -> list<str>" not in reason and "type Item(name: str, price: dec)" not in reason
