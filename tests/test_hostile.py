"""kite test against hostile code: every fixture's bad test fails, the grader survives and goes on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import ARTICLE, REPO, run_kite
from kite.testing.limits import Limits

HOSTILE = REPO / "tests" / "hostile"


def kite_test(*args: str, cwd: Path = HOSTILE):
    return run_kite(["test", *args], cwd=cwd)


def test_the_article_words_program_passes_its_hidden_tests():
    result = kite_test("words.kite", "--tests", "words.test.kite", cwd=ARTICLE)
    assert (result.exit_code, result.output) == (0, "PASS word_count counts words\n1 passed, 0 failed\n")


def test_a_wrong_solution_fails_the_right_test():
    result = kite_test("wrong_words.kite", "--tests", str(ARTICLE / "words.test.kite"))
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        'FAIL word_count counts words: expect word_count("  one   two three  ") == 3 (left: 9, right: 3)',
        "0 passed, 1 failed",
    ]


def test_an_endless_loop_times_out_within_its_limit_and_the_next_test_still_runs():
    result = kite_test("endless_loop.kite", "--timeout", "1", "--format", "json")
    import json

    [answer] = json.loads(result.output)["answers"]
    loop, after = answer["tests"]
    assert (loop["status"], after["status"]) == ("timeout", "pass")
    assert loop["seconds"] >= 1  # stopped at its limit, not before; how soon after is load's, not a bound to assert
    assert result.exit_code == 1


def test_endless_recursion_crashes_the_worker_and_the_next_test_still_runs():
    result = kite_test("stack_overflow.kite")
    lines = result.output.splitlines()
    assert lines[0].startswith("CRASH recurses forever: the test host died")
    assert lines[1:] == ["PASS still runs afterwards", "1 passed, 1 failed"]


def test_a_memory_hog_is_stopped_and_the_next_test_still_runs():
    result = kite_test("memory_hog.kite", "--timeout", "20")
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
    result = kite_test(fixture)
    assert result.exit_code == 1
    assert f"error KT007: '{api}' is not allowed" in result.output
    assert result.output.splitlines()[-2].endswith(": the program does not compile")
    assert result.output.splitlines()[-1] == "0 passed, 1 failed"
    assert not Path("/tmp/kite-hostile-file").exists() and not Path("/tmp/kite-hostile-process").exists()


def test_printing_a_fake_pass_line_never_counts():
    result = kite_test("fakes_pass.kite")
    assert result.exit_code == 1
    assert result.output.splitlines() == ["FAIL fakes a pass: expect answer() == 42 (left: 41, right: 42)", "0 passed, 1 failed"]


def test_a_test_file_for_another_module_is_a_clear_error():
    result = kite_test(str(ARTICLE / "words.kite"), "--tests", "other_module.test.kite")
    assert result.exit_code == 2
    assert result.output == "kite: error: this test file is for module 'NotWords', but " + str(ARTICLE / "words.kite") + " is module 'Words'\n"


def test_an_answer_cannot_take_over_a_helper_of_the_hidden_tests():
    # close_to(int, int) returning true would be the overload the hidden test's int call reaches: a wrong add passed.
    result = kite_test("takes_over_a_helper.kite", "--tests", "wallet_hidden.test.kite")
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == ("takes_over_a_helper.kite(3): error KT015: 'close_to' is also a function of "
                                             "wallet_hidden.test.kite: a program and its tests share one module, choose another name")
    assert result.output.splitlines()[-1] == "0 passed, 1 failed"


# An answer that re-means a name of the hidden tests (issue 20, point 1): each must get a KT015 on its own line and
# fail every hidden test; the right answer beside it still passes.
REBINDING = [
    # fn Item beside type Item: the tests' Item("ink", 0.5) called the answer's fn, which returns none.
    ("shop_fakes_the_constructor.kite", "shop_hidden.test.kite",
     ("shop_fakes_the_constructor.kite(7): error KT015: 'Item' is already a type: a name is one thing in a module, choose another name "
      "[see shop_fakes_the_constructor.kite(3): the type 'Item' is declared here]")),
    # let Int32 = Bounds(0): the tests' Int32.MinValue read the answer's constant.
    ("peaks_rebinds_int32.kite", "peaks_hidden.test.kite",
     "peaks_rebinds_int32.kite(6): error KT015: constant 'Int32' takes the name of the .NET type Int32: it would hide that type in every file of the module, choose another name"),
    # No type Item at all: a fn Item returning none (beside a type Thing, or a type spelled `item`) stood in for the
    # type the tests construct, and both tests passed.
    ("shop_fakes_the_type_with_a_function.kite", "shop_hidden.test.kite",
     "shop_fakes_the_type_with_a_function.kite(7): error KT015: 'Item' is used as a type in shop_hidden.test.kite: a function named like a type would stand in for it, choose a snake_case name"),
    ("shop_fakes_the_type_in_lowercase.kite", "shop_hidden.test.kite",
     "shop_fakes_the_type_in_lowercase.kite(7): error KT015: 'Item' is used as a type in shop_hidden.test.kite: a function named like a type would stand in for it, choose a snake_case name"),
    # No enum Size: a constant Size of a record whose fields Small and Large are none stood in for it.
    ("sizes_fakes_the_enum_with_a_constant.kite", "sizes_hidden.test.kite",
     "sizes_fakes_the_enum_with_a_constant.kite(7): error KT015: 'Size' is used as a type in sizes_hidden.test.kite: a constant named like a type would stand in for it, choose a snake_case name"),
    # All capitals is a type's spelling too (`type RGB`, `enum HTTP`): a fn RGB returning none, and a constant HTTP of a
    # record whose PascalCase field NotFound is none, stood in for them, and every test passed.
    ("colors_fakes_all_capitals_types.kite", "colors_hidden.test.kite",
     "colors_fakes_all_capitals_types.kite(13): error KT015: 'RGB' is used as a type in colors_hidden.test.kite: a function named like a type would stand in for it, choose a snake_case name"),
    ("colors_fakes_all_capitals_types.kite", "colors_hidden.test.kite",
     ("colors_fakes_all_capitals_types.kite(7): error KT015: field 'NotFound' is read as a member in colors_hidden.test.kite: a field named "
     "like a .NET member or an enum member would stand in for it, choose a snake_case name")),
    # The tests read .NET's xs.Count and xs.Contains("ink") on what names() returns: an answer returning a record of its
    # own with fields Count = 2 and Contains = a lambda giving true passed both.
    ("names_fakes_dotnet_members_with_fields.kite", "names_hidden.test.kite",
     ("names_fakes_dotnet_members_with_fields.kite(5): error KT015: field 'Contains' is read as a member in names_hidden.test.kite: a field named "
     "like a .NET member or an enum member would stand in for it, choose a snake_case name")),
    # An answer's -> set<int> made the tests' list literal [4, 2, 4] a set: order and repeats were lost on both sides,
    # and an answer that lost them passed. A list literal is a list (KT016).
    ("evens_answers_a_set.kite", "evens_hidden.test.kite",
     ("evens_hidden.test.kite(4): error KT016: a list literal is a list, and here it would become a set<int>, which has no order or repeats: "
     "make a set<int> with set<int>() and add to it, or compare with a list")),
    # The answer called the hidden tests' reference solution and cleared their expected list: both tests passed. A
    # program reads none of its test files' values, as if compiled alone.
    ("sums_reads_the_tests_values.kite", "sums_hidden.test.kite",
     "sums_reads_the_tests_values.kite(6): error CS0103: The name 'expected' does not exist in the current context"),
]


@pytest.mark.parametrize("answer, hidden, diagnostic", REBINDING)
def test_an_answer_cannot_re_mean_a_name_of_the_hidden_tests(answer, hidden, diagnostic):
    result = kite_test(answer, "--tests", hidden)
    lines = result.output.splitlines()
    assert result.exit_code == 1
    assert diagnostic in lines
    assert [line for line in lines if line.startswith(("PASS", "FAIL", "CRASH", "TIME"))] == [
        line for line in lines if line.startswith("FAIL") and line.endswith(": the program does not compile")]
    assert lines[-1].startswith("0 passed, ")


@pytest.mark.parametrize("answer, hidden", [("shop_right.kite", "shop_hidden.test.kite"), ("sums_right.kite", "sums_hidden.test.kite"),
                                            ("sizes_right.kite", "sizes_hidden.test.kite"), ("colors_right.kite", "colors_hidden.test.kite"),
                                            ("evens_right.kite", "evens_hidden.test.kite"), ("names_right.kite", "names_hidden.test.kite")])
def test_the_right_answer_passes_the_same_hidden_tests(answer, hidden):
    result = kite_test(answer, "--tests", hidden)
    last = result.output.splitlines()[-1]
    assert result.exit_code == 0 and last.endswith(" passed, 0 failed") and not last.startswith("0 "), result.output


# Names a program chose that met the generated code's own names (issue 20, point 4): each is a correct program, and
# must pass its tests and, where it has a fn main, build into a program that runs (None: no fn main to build).
NAMED_LIKE_GENERATED_CODE = [
    ("module_named_system.kite", "PASS total", ("System.kite.dll", "1.5\n")),  # was KT900: `using System` met it
    ("module_named_kitestd.kite", "PASS total", ("KiteStd.dll", "1.5\n")),  # was TypeLoadException: the stdlib's name
    ("module_named_kitetesthost.kite", "PASS total", ("KiteTestHost.dll", "1.5\n")),  # was the test host's name
    ("module_named_main.kite", "PASS total", ("Main.dll", "1.5\n")),  # was KT900 CS0542 under kite build
    ("type_named_system.kite", "PASS system", ("Shop.dll", "x\n")),  # was KT900: the type hid namespace System
    ("module_named_like_its_function.kite", "PASS t", None),  # was KT900 CS0542: fn Shop in class Shop
    ("module_spelled_like_an_escaped_type.kite", "PASS t", None),  # was CS0101: type Equals is spelled Equals__u in C#
]


@pytest.mark.parametrize("program, passed, built", NAMED_LIKE_GENERATED_CODE)
def test_a_name_the_program_chose_never_meets_the_generated_code(program, passed, built, tmp_path):
    import subprocess

    result = kite_test(program)
    assert (result.exit_code, result.output.splitlines()) == (0, [passed, "1 passed, 0 failed"])
    if built is None:
        return
    file_name, printed = built
    result = run_kite(["build", program, "--output", str(tmp_path)], cwd=HOSTILE)
    assert (result.exit_code, result.output.splitlines()[-1]) == (0, f"built {tmp_path / file_name}")
    ran = subprocess.run(["dotnet", str(tmp_path / file_name)], check=False, capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, printed, "")


def test_output_is_capped_and_the_report_says_so():
    import json

    result = kite_test("floods_output.kite", "--format", "json")
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



# Run lines that fooled kite score once (tests/hostile/runs/README.md): scored in one run per set of options, every
# line gets a result (never a grader fault, exit 3, or a hang) holding what its fixture expects.
RUNS = HOSTILE / "runs"
RUN_FIXTURES = sorted(path for path in RUNS.glob("*.json"))
BUDGET_SECONDS = "3"  # only the fixtures that attack the compile budget reach a compiler at all


def holds(expected, actual) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(key in actual and holds(value, actual[key]) for key, value in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(map(holds, expected, actual))
    return expected == actual


def test_holds_reads_objects_by_key_and_lists_item_by_item():
    assert holds({"a": [{"id": 1}]}, {"a": [{"id": 1, "b": 2}], "c": 3})
    assert not holds({"a": [{"id": 1}]}, {"a": [{"id": 1}, {"id": 2}]}) and not holds({"a": 1}, {"b": 1}) and not holds([1], 1)


@pytest.fixture(scope="module")
def scored_runs(tmp_path_factory) -> dict[str, dict]:
    import json

    folder = tmp_path_factory.mktemp("runs")
    groups: dict[tuple[str, ...], list[tuple[str, dict]]] = {}
    for path in RUN_FIXTURES:
        fixture = json.loads(path.read_text())
        line = {"id": path.stem, **fixture["line"]}
        line["text"] = line["text"] * fixture.get("repeat", 1)
        groups.setdefault(tuple(fixture.get("options", ())), []).append((path.stem, line))
    results = {}
    for index, (options, lines) in enumerate(groups.items()):
        (folder / f"run{index}.jsonl").write_text("".join(json.dumps(line) + "\n" for _, line in lines))
        result = run_kite(["score", f"run{index}.jsonl", "--field", "text", "--id-field", "id", "--format-field", "format",
                           "--tasks", str(RUNS / "tasks"), "--out", f"results{index}.jsonl", "--compile-timeout", BUDGET_SECONDS,
                           *options], cwd=folder)
        assert result.exit_code == 0, result.output
        results.update((r["id"], r) for r in map(json.loads, (folder / f"results{index}.jsonl").read_text().splitlines()))
    return results


@pytest.mark.parametrize("name", [path.stem for path in RUN_FIXTURES])
def test_a_hostile_run_line_gets_what_it_earned(name, scored_runs):
    import json

    expected = json.loads((RUNS / f"{name}.json").read_text())["expect"]
    assert holds(expected, scored_runs[name]), scored_runs[name]


def test_a_file_name_that_is_not_utf8_reaches_no_compiler_as_it_is(tmp_path):
    # Such a name reads as lone surrogates (\udcff): the compile process died of it once.
    folder = tmp_path / "d"
    folder.mkdir()
    Path(os.fsdecode(bytes(folder) + b"/bad\xffname.kite")).write_bytes(b"module Bad\n\nfn f() -> str\n    return missing\n")
    result = run_kite(["check", str(folder)], cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert "error CS0103: The name 'missing' does not exist in the current context" in result.output


# ---- what a result reveals of the hidden tests (--reveal): a model fed the results must not learn the tests from them

WORDS_TESTS = str(ARTICLE / "words.test.kite")


@pytest.mark.parametrize(("reveal", "line"), [
    ("tests", 'FAIL word_count counts words: expect word_count("  one   two three  ") == 3 (left: 9, right: 3)'),
    ("names", "FAIL word_count counts words: an expectation failed"),
    ("none", "FAIL hidden test 1: an expectation failed"),
])
def test_reveal_chooses_what_kite_test_shows_of_a_hidden_test(reveal, line):
    result = kite_test("wrong_words.kite", "--tests", WORDS_TESTS, "--reveal", reveal)
    assert (result.exit_code, result.output.splitlines()) == (1, [line, "0 passed, 1 failed"])


def test_reveal_names_shows_no_place_value_output_or_diagnostic_message_of_the_hidden_tests(tmp_path):
    import json

    # A hidden test calls a function the answer lacks: the compiler's message quotes the test's code.
    (tmp_path / "words.kite").write_text('module Words\n\nfn word_count(s: str) -> int\n    print(s)\n    return 0\n')
    hidden_text = (ARTICLE / "words.test.kite").read_text()
    (tmp_path / "hidden.test.kite").write_text(hidden_text + '\ntest "more"\n    expect missing_helper(41) == 42\n')
    shown = {}
    for reveal in ("tests", "names"):
        result = run_kite(["test", "words.kite", "--tests", "hidden.test.kite", "--reveal", reveal, "--format", "json"], cwd=tmp_path)
        assert result.exit_code == 1, result.output
        shown[reveal] = result.output
    assert "missing_helper" in shown["tests"] and "hidden.test.kite" in shown["tests"]
    for secret in ("one   two three", "missing_helper", "hidden.test.kite", "41", "expect"):
        assert secret not in shown["names"], secret
    [answer] = json.loads(shown["names"])["answers"]
    assert [(d["file"], d["line"], d["id"], d["message"]) for d in answer["diagnostics"]] == [
        ("hidden tests", 0, "CS0103", "in the hidden tests (not shown)")]
    assert [(t["name"], t["file"], t["line"], t["output"]) for t in answer["tests"]] == [("word_count counts words", "hidden tests", 0, ""),
                                                                                       ("more", "hidden tests", 0, "")]


def test_reveal_none_keeps_kite_score_s_results_free_of_the_hidden_tests(tmp_path):
    import json

    task = tmp_path / "tasks" / "words"
    task.mkdir(parents=True)
    (task / "words.test.kite").write_text((ARTICLE / "words.test.kite").read_text())
    answer = "```kite\n" + (HOSTILE / "wrong_words.kite").read_text() + "```\n"
    (tmp_path / "run.jsonl").write_text(json.dumps({"task_id": "words", "text": answer}) + "\n")
    lines = {}
    for reveal in ("tests", "none"):
        result = run_kite(["score", "run.jsonl", "--field", "text", "--tasks", "tasks", "--out", f"{reveal}.jsonl", "--reveal", reveal], cwd=tmp_path)
        assert result.exit_code == 0, result.output
        lines[reveal] = (tmp_path / f"{reveal}.jsonl").read_text()
    assert "one   two three" in lines["tests"]
    [result] = map(json.loads, lines["none"].splitlines())
    assert [(t["name"], t["file"], t["line"], t["status"], t["message"]) for t in result["tests"]] == [
        ("hidden test 1", "hidden tests", 0, "fail", "an expectation failed")]
    assert (result["passes"], result["score"]) == (False, 0.0)
    for secret in ("one   two three", "word_count counts words", "words.test.kite", "right: 3"):
        assert secret not in lines["none"], secret


def test_a_run_line_over_the_size_limit_or_not_unicode_is_a_result_with_a_problem_and_the_run_goes_on(tmp_path):
    import json

    lines = [json.dumps({"text": "short, no code"}), json.dumps({"text": "x" * 200}), json.dumps({"text": "a\nb\ud800"}),
             json.dumps({"text": "after"})]
    (tmp_path / "run.jsonl").write_text("\n".join(lines) + "\n")
    result = run_kite(["score", "run.jsonl", "--field", "text", "--max-line-bytes", "100"], cwd=tmp_path)
    assert result.exit_code == 0, result.output
    results = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [(r["line"], r["problem"]) for r in results] == [
        (1, None),
        (2, {"kind": "line too long", "message": "more than 100 bytes, the limit of a run line (--max-line-bytes)"}),
        (3, {"kind": "not unicode", "message": "text: not Unicode text (a lone surrogate U+D800 at line 2, column 2)"}),
        (4, None),
    ]
