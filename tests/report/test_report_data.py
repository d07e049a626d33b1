"""kite report without a browser: unusable input, the embedded data that no answer can break out of, UTF-16 offsets,
diagnostic columns in fragments, and the baseline's rate changes and flipped verdicts."""

from __future__ import annotations

import json
import re

import pytest

from conftest import run_kite
from kite.report.compare import difference, flips, rate_changes
from kite.report.page import Run, Utf16, answer_view, column_offset, page_data, render
from kite.report.results import dumps_for_script, read_results
from kite.scoring.summary import summarize, wilson


def result(line: int, *, passes: bool, answer_id=None, task="t", **extra) -> dict:
    """A graded Kite result as kite score writes it, with only what these tests look at varied."""
    return {"schema": 1, "line": line, "id": answer_id, "task": task, "graded": True, "problem": None, "format": "kite",
            "score": 10.0 if passes else 0.0, "model_score": None, "final_score": None, "has_code": True, "compiles": True,
            "clean": True, "passes": passes, "leaked": False, "module": "M", "reasons": [], "blocks": [],
            "layers": {"kite": {"errors": 0, "warnings": 0}, "compiler": {"errors": 0, "warnings": 0},
                       "analyzers": {"errors": 0, "warnings": 0}, "tests": {"passed": int(passes), "failed": int(not passes)}},
            "layers_run": ["kite", "compiler", "analyzers"], "skipped": [], "rules": {"KT000": "pass"}, "diagnostics": [],
            "tests": [], "own_tests": [], "claims": [], "slop": [], **extra}


def write_results(path, results) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in results))
    return str(path)


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    (b"", "no results in it"),
    (b"\n\n", "no results in it"),
    (b"\xff\xfe binary\x00", "UTF-16 (little-endian) text, not UTF-8"),
    (b'{"schema": 1, "line": 1}\nnot json\n', "line 1 is not a result"),
    (b'{"schema": 2, "line": 1, "graded": true}\n', "schema 1"),
    (b"[1, 2]\n", "line 1 is not a result"),
])
def test_unusable_results_are_one_line_and_exit_2(tmp_path, content, message):
    path = tmp_path / "results.jsonl"
    if content is not None:
        path.write_bytes(content)
    outcome = run_kite(["report", str(path), "-o", str(tmp_path / "page.html")], cwd=tmp_path)
    assert outcome.exit_code == 2
    assert outcome.output.count("\n") == 1 and message in outcome.output and "Traceback" not in outcome.output
    assert not (tmp_path / "page.html").exists()


def test_run_and_field_go_together(tmp_path):
    path = write_results(tmp_path / "results.jsonl", [result(1, passes=True)])
    outcome = run_kite(["report", path, "--run", path], cwd=tmp_path)
    assert outcome.exit_code == 2 and "--run and --field go together" in outcome.output


@pytest.mark.parametrize("option", ["--run", "--baseline", "-o"])
def test_a_missing_run_or_baseline_or_an_unwritable_output_is_one_line_and_exit_2(tmp_path, option):
    path = write_results(tmp_path / "results.jsonl", [result(1, passes=True)])
    missing = str(tmp_path / "nowhere" / "file")
    extra = ["--field", "text"] if option == "--run" else []
    outcome = run_kite(["report", path, option, missing, *extra, *(["-o", str(tmp_path / "p.html")] if option != "-o" else [])], cwd=tmp_path)
    assert outcome.exit_code == 2 and outcome.output.count("\n") == 1 and "nowhere" in outcome.output


def test_help():
    outcome = run_kite(["report", "--help"], cwd=".")
    assert outcome.exit_code == 0 and "--baseline" in outcome.output and "--run" in outcome.output


HOSTILE_STRINGS = ["</script><script>alert(1)</script>", "</SCRIPT >", "<!--<script>", "\u2028\u2029", "\ud800", "&lt;&amp;", "]]>"]


@pytest.mark.parametrize("hostile", HOSTILE_STRINGS)
def test_no_answer_text_can_end_the_embedded_data(hostile):
    embedded = dumps_for_script({"text": hostile, "id": hostile})
    assert re.search(r"[<>&\u2028\u2029]", embedded) is None and embedded.isascii()
    assert json.loads(embedded) == {"text": hostile, "id": hostile}


def test_the_page_holds_exactly_one_script_end_per_script(tmp_path):
    hostile = " ".join(HOSTILE_STRINGS)
    results = [result(1, passes=False, answer_id=hostile, reasons=[hostile],
                      tests=[{"name": hostile, "file": "t.test.kite", "line": 1, "status": "fail", "message": hostile}])]
    page = render(Run(hostile, results, {1: hostile + "\n```kite\nmodule M\n```\n"}))
    assert page.lower().count("</script") == 2 and page.count("<!--") == 0
    data = page.split('<script type="application/json" id="kite-data">')[1].split("</script>")[0]
    assert json.loads(data)["answers"][0]["id"] == hostile


def test_an_answer_is_named_in_one_safe_line():
    view = answer_view(result(7, passes=True, answer_id="evil\u202e\nPASS"), None)
    assert view["label"] == "line 7 · evil\\u202e\\nPASS"
    assert answer_view(result(8, passes=True), None)["label"] == "line 8"


def test_offsets_are_converted_to_utf16_code_units():
    text = "😀a💥b"
    to16 = Utf16(text)
    assert [to16(i) for i in range(len(text) + 1)] == [0, 2, 3, 5, 6]
    assert [Utf16("plain")(i) for i in range(6)] == list(range(6))
    view = answer_view(result(1, passes=True, slop=[{"category": "c", "phrase": "b", "start": 3, "end": 4}]), text)
    assert (view["slop"][0]["start"], view["slop"][0]["end"]) == (5, 6)
    assert text.encode("utf-16-le")[2 * 5:2 * 6].decode("utf-16-le") == "b"


@pytest.mark.parametrize("block, read_as, offset", [
    ("module M\nfn f()\n    pass", "module", 0),
    ("  module M\n  fn f()\n      pass", "module", -2),  # read dedented
    ("fn f()\n    pass", "no module line", 0),
    ("    fn f()\n        pass", "items", -4),
    ("let x = 1\nreturn x", "function body", 4),
    ("  let x = 1\n\n  return x", "function body", 2),
    ("}{;", "unreadable", 0),
])
def test_how_far_a_reading_moved_a_fragments_columns(block, read_as, offset):
    assert column_offset(block, read_as) == offset


def test_a_point_diagnostic_marks_its_token_in_the_answer():
    text = "Here:\n\n```kite\n  let loud = upper(name);\n  return loud\n```\n"
    start = text.index("  let")
    end = text.index("\n", start)
    diagnostic = {"file": "answer.kite", "line": 3, "column": 27, "end_line": 3, "end_column": 27, "severity": "error",
                  "id": "KT004", "message": "';' is C#, not Kite", "layer": "kite",
                  "span": {"block": 0, "block_line": 1, "start": start, "end": end}}
    blocks = [{"language": "kite", "fence": "```", "is_kite": True, "start": text.index("  let"), "end": text.index("\n```\n", start),
               "read_as": "function body"}]
    view = answer_view(result(1, passes=False, diagnostics=[diagnostic], blocks=blocks), text)
    [shown] = view["diagnostics"]
    assert text[shown["at"][0]:shown["at"][1]] == ";" and shown["code_line"] == start


def test_a_range_marks_its_span_as_kite_score_wrote_it():
    text = "```kite\nmodule M\nfn f()\n    let mut x = 1\n```\n"
    start = text.index("mut x")
    diagnostic = {"file": "answer.kite", "line": 3, "column": 9, "end_line": 3, "end_column": 14, "severity": "warning",
                  "id": "KT002", "message": "never changed", "layer": "kite",
                  "span": {"block": 0, "block_line": 3, "start": start, "end": start + 5}}
    blocks = [{"language": "kite", "fence": "```", "is_kite": True, "start": 8, "end": text.index("\n```\n"), "read_as": "module"}]
    [shown] = answer_view(result(1, passes=False, diagnostics=[diagnostic], blocks=blocks), text)["diagnostics"]
    assert text[shown["at"][0]:shown["at"][1]] == "mut x" and shown["block"] == 0


def test_a_change_and_its_interval():
    unchanged = difference(wilson(50, 100), wilson(50, 100))
    assert unchanged["change"] == 0 and unchanged["low"] < 0 < unchanged["high"]
    better = difference(wilson(90, 100), wilson(50, 100))
    assert better["change"] == pytest.approx(0.4) and 0.27 < better["low"] < 0.29 and 0.50 < better["high"] < 0.52  # Newcombe 1998, method 10
    assert difference(wilson(0, 0), wilson(3, 10)) == {"change": None, "low": None, "high": None}
    at_the_edges = difference(wilson(10, 10), wilson(0, 10))
    assert at_the_edges["change"] == 1 and 0.5 < at_the_edges["low"] < 1 and at_the_edges["high"] == 1


def test_rate_changes_cover_every_rate_and_rule_both_runs_have():
    new = summarize([result(1, passes=True), result(2, passes=True)])
    old = summarize([result(1, passes=False), result(2, passes=True)])
    rows = {row["name"]: row for row in rate_changes(new, old)}
    assert rows["passes"]["change"] == 0.5 and "rule KT000" in rows and rows["compiles"]["change"] == 0


def test_flipped_verdicts_both_ways_matched_by_id_or_by_line():
    old = [result(1, passes=False, answer_id="a"), result(2, passes=True, answer_id="b"), result(3, passes=True, answer_id="c")]
    new = [result(1, passes=True, answer_id="c"), result(2, passes=True, answer_id="a"), result(3, passes=False, answer_id="b")]
    by_id = flips(new, old)
    assert by_id["matched_by"] == "id" and by_id["matched"] == 3
    assert [(f["line"], f["old_line"]) for f in by_id["to_pass"]] == [(2, 1)]
    assert [(f["line"], f["old_line"]) for f in by_id["to_fail"]] == [(3, 2)]
    without_ids = [dict(r, id=None) for r in new]
    by_line = flips(without_ids, old)
    assert by_line["matched_by"] == "line" and [f["line"] for f in by_line["to_pass"]] == [1]
    assert [f["line"] for f in by_line["to_fail"]] == [3]


def test_an_answer_that_could_not_be_graded_counts_as_failed(tmp_path):
    ungraded = {"schema": 1, "line": 2, "id": None, "task": "t", "graded": False, "problem": {"kind": "broken line", "message": "x"}}
    old = [result(1, passes=True), result(2, passes=True)]
    new = read_results(write_results(tmp_path / "new.jsonl", [result(1, passes=True), ungraded]))
    data = page_data(Run("new", new, {}), [Run("old", old, {})])
    assert [f["line"] for f in data["comparisons"][0]["flips"]["to_fail"]] == [2]
    assert [a["passed"] for a in data["answers"]] == [True, False]


def test_the_per_task_table_counts_only_kite_answers_and_ungraded_lines():
    """An answer in another format is in its format's rate, never a failed Kite answer of its task."""
    from kite.report.page import task_rows

    kite = [result(1, passes=True), result(2, passes=False)]
    json_item = {"schema": 1, "line": 3, "id": None, "task": "t", "graded": True, "problem": None, "format": "json",
                 "score": 0.0, "valid": False, "reasons": ["not JSON"], "diagnostics": [], "model_score": None, "final_score": None}
    broken = {"schema": 1, "line": 4, "id": None, "task": "t", "graded": False, "problem": {"kind": "missing field", "message": "m"}}
    [row] = task_rows([*kite, json_item, broken])
    assert row["answers"] == 3 and (row["passes"]["count"], row["passes"]["of"]) == (1, 3)
    assert summarize([*kite, json_item, broken])["rates"]["passes"]["of"] == 3  # the headline's denominator too


def test_the_funnel_counts_each_step_over_the_step_before():
    from kite.report.page import funnel

    rows = [result(1, passes=True), result(2, passes=False), result(3, passes=True, clean=False),
            result(4, passes=False, compiles=False, clean=False), result(5, passes=False, has_code=False, compiles=False, clean=False)]
    steps = {step["key"]: step for step in funnel(rows)}
    assert [(s["rate"]["count"], s["rate"]["of"]) for s in steps.values()] == [(4, 5), (3, 5), (2, 5), (1, 5)]
    assert [(s["lost"]["count"], s["lost"]["of"]) for s in steps.values()] == [(1, 5), (1, 4), (1, 3), (1, 2)]


def embedded(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="kite-data">(.*?)</script>', page, re.DOTALL)
    return json.loads(found.group(1))


def test_several_runs_side_by_side_and_the_baseline_is_the_two_run_case(tmp_path):
    first = write_results(tmp_path / "a.jsonl", [result(1, passes=True, answer_id="x"), result(2, passes=True, answer_id="y")])
    second = write_results(tmp_path / "b.jsonl", [result(1, passes=False, answer_id="x"), result(2, passes=True, answer_id="y")])
    third = write_results(tmp_path / "c.jsonl", [result(1, passes=True, answer_id="x"), result(2, passes=False, answer_id="y")])
    outcome = run_kite(["report", first, second, third, "-o", str(tmp_path / "three.html")], cwd=tmp_path)
    assert outcome.exit_code == 0, outcome.output
    data = embedded((tmp_path / "three.html").read_text())
    assert [c["name"] for c in data["comparisons"]] == ["b.jsonl", "c.jsonl"]
    passes = [next(row for row in c["changes"] if row["name"] == "passes") for c in data["comparisons"]]
    assert [row["change"] for row in passes] == [0.5, 0.5] and all(row["low"] < row["change"] < row["high"] for row in passes)
    assert [c["flips"]["to_pass"] for c in data["comparisons"]] == [[{"line": 1, "old_line": 1}], [{"line": 2, "old_line": 2}]]
    assert [[row["task"] for row in c["tasks"]] for c in data["comparisons"]] == [["t"], ["t"]]
    run_kite(["report", first, "--baseline", second, "-o", str(tmp_path / "two.html")], cwd=tmp_path)
    assert embedded((tmp_path / "two.html").read_text())["comparisons"] == data["comparisons"][:1]


def test_each_results_file_needs_its_own_run(tmp_path):
    first = write_results(tmp_path / "a.jsonl", [result(1, passes=True)])
    outcome = run_kite(["report", first, first, "--run", first, "--field", "text", "-o", str(tmp_path / "p.html")], cwd=tmp_path)
    assert outcome.exit_code == 2 and "give --run once per RESULTS (2 results, 1 runs)" in outcome.output


def test_the_tasks_prompts_go_beside_the_answers(tmp_path):
    (tmp_path / "tasks" / "t").mkdir(parents=True)
    (tmp_path / "tasks" / "t" / "prompt.md").write_text("Write add(a, b).\n")
    (tmp_path / "tasks" / "u").mkdir()
    path = write_results(tmp_path / "a.jsonl", [result(1, passes=True)])
    outcome = run_kite(["report", path, "--tasks", str(tmp_path / "tasks"), "-o", str(tmp_path / "p.html")], cwd=tmp_path)
    assert outcome.exit_code == 0, outcome.output
    assert embedded((tmp_path / "p.html").read_text())["prompts"] == {"t": "Write add(a, b).\n"}


def test_every_rule_has_its_text_on_the_page_and_a_leak_is_counted_per_answer():
    from kite.rules import ALL_RULES

    data = page_data(Run("r", [result(1, passes=True, diagnostics=[{"id": "KT004", "file": "answer.kite", "line": 1, "column": 1,
                                                                     "severity": "error", "message": "m", "layer": "kite"}])], {}))
    assert set(data["rule_docs"]) == {rule.RULE.id for rule in ALL_RULES} and all(doc["summary"] for doc in data["rule_docs"].values())
    assert data["answers"][0]["leaks"] == 1
