"""kite test against hostile code: every fixture's bad test fails, the grader survives and goes on."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conftest import ARTICLE, REPO, run_kite
from kite.testing.worker import Limits

HOSTILE = REPO / "tests" / "hostile"


def kite_test(*args: str, cwd: Path = HOSTILE):
    started = time.monotonic()
    result = run_kite(["test", *args], cwd=cwd)
    return result, time.monotonic() - started


def test_the_article_words_program_passes_its_hidden_tests():
    result, _ = kite_test("words.kite", "--tests", "words.test.kite", cwd=ARTICLE)
    assert (result.exit_code, result.output) == (0, "PASS word_count counts words\n1 passed, 0 failed\n")


def test_a_wrong_solution_fails_the_right_test():
    result, _ = kite_test("wrong_words.kite", "--tests", str(ARTICLE / "words.test.kite"))
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        'FAIL word_count counts words: expect word_count("  one   two three  ") == 3 (left: 9, right: 3)',
        "0 passed, 1 failed",
    ]


def test_an_endless_loop_times_out_within_its_limit_and_the_next_test_still_runs():
    result, _elapsed = kite_test("endless_loop.kite", "--timeout", "1", "--format", "json")
    import json

    [answer] = json.loads(result.output)["answers"]
    loop, after = answer["tests"]
    assert (loop["status"], after["status"]) == ("timeout", "pass")
    assert loop["seconds"] < 1 + 0.5
    assert result.exit_code == 1


def test_endless_recursion_crashes_the_worker_and_the_next_test_still_runs():
    result, _ = kite_test("stack_overflow.kite")
    lines = result.output.splitlines()
    assert lines[0].startswith("CRASH recurses forever: the test host died")
    assert lines[1:] == ["PASS still runs afterwards", "1 passed, 1 failed"]


def test_a_memory_hog_is_stopped_and_the_next_test_still_runs():
    result, _ = kite_test("memory_hog.kite", "--timeout", "20")
    lines = result.output.splitlines()
    assert lines[0].startswith("CRASH eats memory: ")
    assert lines[1:] == ["PASS still runs afterwards", "1 passed, 1 failed"]


@pytest.mark.parametrize("fixture, api", [
    ("exits.kite", "System.Environment.Exit"),
    ("starts_process.kite", "System.Diagnostics.Process.Start"),
    ("writes_file.kite", "System.IO.File.WriteAllText"),
    ("runs_later.kite", "System.Timers.Timer"),
    ("reflects.kite", "dynamic"),
    ("reads_passwd.kite", "System.Xml.XmlReader.Create"),
])
def test_reaching_outside_fails_before_anything_runs(fixture, api):
    result, _ = kite_test(fixture)
    assert result.exit_code == 1
    assert f"error KT007: '{api}' is not allowed" in result.output
    assert result.output.splitlines()[-2].endswith(": the program does not compile")
    assert result.output.splitlines()[-1] == "0 passed, 1 failed"
    assert not Path("/tmp/kite-hostile-file").exists() and not Path("/tmp/kite-hostile-process").exists()


def test_printing_a_fake_pass_line_never_counts():
    result, _ = kite_test("fakes_pass.kite")
    assert result.exit_code == 1
    assert result.output.splitlines() == ["FAIL fakes a pass: expect answer() == 42 (left: 41, right: 42)", "0 passed, 1 failed"]


def test_a_test_file_for_another_module_is_a_clear_error():
    result, _ = kite_test(str(ARTICLE / "words.kite"), "--tests", "other_module.test.kite")
    assert result.exit_code == 2
    assert result.output == "kite: error: this test file is for module 'NotWords', but " + str(ARTICLE / "words.kite") + " is module 'Words'\n"


def test_an_answer_cannot_take_over_a_helper_of_the_hidden_tests():
    # close_to(int, int) returning true would be the overload the hidden test's int call reaches: a wrong add passed.
    result, _ = kite_test("takes_over_a_helper.kite", "--tests", "wallet_hidden.test.kite")
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == ("takes_over_a_helper.kite(3): error KT015: 'close_to' is also a function of "
                                             "wallet_hidden.test.kite (line 3): a program and its tests share one module, choose another name")
    assert result.output.splitlines()[-1] == "0 passed, 1 failed"


def test_output_is_capped_and_the_report_says_so():
    import json

    result, _ = kite_test("floods_output.kite", "--format", "json")
    [test] = json.loads(result.output)["answers"][0]["tests"]
    assert (test["status"], test["truncated"], len(test["output"])) == ("pass", True, Limits().output_chars)


def test_hostile_answers_in_flight_beside_correct_ones_never_change_their_verdicts(tmp_path):
    # kite score judges two answers at once on one session: a spinning or crashing answer must not reach the
    # correct one beside it, and every verdict lands on its own line, in run order.
    import json

    task = tmp_path / "tasks" / "add"
    task.mkdir(parents=True)
    (task / "adder.test.kite").write_text('module Adder\n\ntest "adds"\n    expect add(1, 2) == 3\n\ntest "adds negatives"\n    expect add(-1, -2) == -3\n')
    header = "module Adder\n\nfn add(a: int, b: int) -> int\n"
    good = header + "    return a + b\n"
    spins = header + "    while true\n        pass\n    return a + b\n"
    recurses = header + "    return add(a, b)\n"
    answers = [spins, good, recurses, good, spins, good]
    with open(tmp_path / "run.jsonl", "w") as run:
        run.writelines(json.dumps({"id": index, "task_id": "add", "text": f"```kite\n{code}```\n"}) + "\n" for index, code in enumerate(answers))
    result = run_kite(["score", "run.jsonl", "--field", "text", "--id-field", "id", "--tasks", str(tmp_path / "tasks"),
                       "--timeout", "1", "--budget", "2"], cwd=tmp_path)
    assert result.exit_code == 0, result.output
    results = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in results] == list(range(len(answers)))
    assert [r["passes"] for r in results] == [False, True, False, True, False, True]
    assert {t["status"] for r in results[0::2] for t in r["tests"]} <= {"timeout", "crash"}


# Answers that fooled kite score once: what each must get now.
ANSWERS = HOSTILE / "answers"
SCORED_ANSWERS = {
    "usage_snippet_hides_the_module.md": lambda r: r["rules"]["KT002"] == r["rules"]["KT006"] == "fail" and not r["clean"],
    "indented_program.md": lambda r: r["rules"]["KT002"] == r["rules"]["KT006"] == "fail" and not r["clean"],
    "made_up_test_run.md": lambda r: not r["compiles"] and [(c["kind"], c["false"]) for c in r["claims"]] == [("passes tests", True)],
}


def test_every_hostile_answer_is_scored():
    assert sorted(path.name for path in ANSWERS.glob("*.md") if path.name != "README.md") == sorted(SCORED_ANSWERS)


@pytest.mark.parametrize("name", sorted(SCORED_ANSWERS))
def test_a_hostile_answer_gets_what_it_earned(name, tmp_path):
    import json

    (tmp_path / "run.jsonl").write_text(json.dumps({"id": name, "text": (ANSWERS / name).read_text()}) + "\n")
    run_kite(["score", "run.jsonl", "--field", "text", "--id-field", "id", "--out", "results.jsonl"], cwd=tmp_path)
    [result] = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert SCORED_ANSWERS[name](result), result

