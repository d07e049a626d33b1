"""Fixes on the one Diagnostic (kite.diagnostics.Fix), made by the rules that report them, and `kite check --fix`:
each habit's fix exactly, what is safe and what only the language server offers, a fix that would not parse dropped
and said, the command's output and exit code, and JSON and SARIF carrying the fixes."""

from __future__ import annotations

import codecs
import json

import pytest
from format_corpus import corpus, parsed

from conftest import run_kite
from kite.fixing import fix_file
from kite.pipeline import kite_layer
from kite.source import SourceFile


def program(*lines: str) -> str:
    return "module Habits\n\nfn f(a: bool, b: bool, xs: list<int>) -> int\n" + "".join(f"    {line}\n" for line in lines)


def fixed(*lines: str) -> list[str]:
    """The function's body after `kite check --fix`'s fixes."""
    result = fix_file(SourceFile("habits.kite", program(*lines)))
    return [line[4:] for line in result.text.split("\n")[3:] if line]


# (the lines of a function body as written, the lines after the fixes)
HABITS = {
    "var never assigned again is let": (["var x = 1", "return x"], ["let x = 1", "return x"]),
    "var assigned again is let mut": (["var x = 1", "x = 2", "return x"], ["let mut x = 1", "x = 2", "return x"]),
    "a var a block deeper assigns": (["var n = 0", "for v in xs", "    n += v", "return n"], ["let mut n = 0", "for v in xs", "    n += v", "return n"]),
    "a statement's ;": (["let x = 1;", "return x;"], ["let x = 1", "return x"]),
    "; between two statements": (["print(1); print(2)", "return 0"], ["print(1)", "print(2)", "return 0"]),
    "&&, || and !": (["if a && b || !a", "    return 1", "return 0"], ["if a and b or not a", "    return 1", "return 0"]),
    "! before a call and a bracket": (["if !xs.Contains(1) && !(a)", "    return 1", "return 0"], ["if not xs.Contains(1) and not (a)", "    return 1", "return 0"]),
    "null": (["let s: str? = null", "return 0"], ["let s: str? = none", "return 0"]),
    "++ and -- as statements": (["let mut n = 0", "n++", "--n", "return n"], ["let mut n = 0", "n += 1", "n -= 1", "return n"]),
    "string and decimal": (["let s: string = \"a\"", "let d: decimal = 1.5", "return 0"], ["let s: str = \"a\"", "let d: dec = 1.5", "return 0"]),
    "foreach": (["foreach (var v in xs)", "    print(v)", "return 0"], ["for v in xs", "    print(v)", "return 0"]),
    "braces": (["if a {", "    print(1)", "} else if b {", "    print(2)", "}", "return 0"], ["if a", "    print(1)", "elif b", "    print(2)", "return 0"]),
    "$\" and //": (["print($\"{a}\") // shown", "return 0"], ["print(f\"{a}\") # shown", "return 0"]),
    "new": (["let s = new StringBuilder()", "return s.Length"], ["let s = StringBuilder()", "return s.Length"]),
    "nameof": (["print(nameof(xs.Count))", "return 0"], ["print(\"Count\")", "return 0"]),
    "C#'s x! (not none)": (["let s: str? = none", "return s!.Length"], ["let s: str? = none", "return s.Length"]),
    "Python's True, False, None and is None": (
        ["let s: str? = None", "if s is None or s is not None", "    return True == False", "return 0"],
        ["let s: str? = none", "if s == none or s != none", "    return true == false", "return 0"],
    ),
    "let mut never changed is let (KT002)": (["let mut y = 2", "return y"], ["let y = 2", "return y"]),
    "a header's colon (KT000)": (["if a:", "    return 1", "return 0"], ["if a", "    return 1", "return 0"]),
}


@pytest.mark.parametrize("name", HABITS)
def test_each_fix_writes_the_kite_for_the_habit(name):
    before, after = HABITS[name]
    assert fixed(*before) == after
    assert not parsed(program(*after)).diagnostics


def test_def_is_fn_and_loses_its_colon():
    text = "module Py\n\ndef add(a: int, b: int) -> int:\n    return a + b\n"
    assert fix_file(SourceFile("py.kite", text)).text == "module Py\n\nfn add(a: int, b: int) -> int\n    return a + b\n"


def fixes_of(text: str) -> dict:
    _, found = kite_layer(SourceFile("habits.kite", text))
    return {d.id + ": " + d.message: d.fix for d in found}


def test_a_fix_that_could_change_the_meaning_is_offered_but_not_applied():
    """C#'s !a == b is (!a) == b; Kite's not a == b is not (a == b): the language server offers it, --fix does not."""
    text = program("if !a == b", "    return 1", "return 0")
    [fix] = [f for message, f in fixes_of(text).items() if message.startswith("KT004: '!'")]
    assert fix.title == "Replace '!' with 'not'" and not fix.safe
    assert fix_file(SourceFile("habits.kite", text)).text == text


def test_a_rename_is_offered_by_the_language_server_only():
    text = "module Names\n\nfn AddItem(itemName: str) -> str\n    return itemName + f\"{itemName}\"\n\nfn main()\n    print(AddItem(\"a\"))\n"
    fixes = fixes_of(text)
    rename = fixes["KT003: 'itemName' should be snake_case: item_name"]
    assert not rename.safe and rename.title == "Rename 'itemName' to 'item_name'"
    assert [(e.line, e.column, e.text) for e in rename.edits] == [(3, 12, "item_name"), (4, 12, "item_name"), (4, 26, "item_name")]
    function = fixes["KT003: 'AddItem' should be snake_case: add_item"]
    assert [(e.line, e.column) for e in function.edits] == [(3, 4), (7, 11)]
    assert fix_file(SourceFile("names.kite", text)).fixed == ()


def test_a_fix_that_would_not_parse_is_dropped_and_said():
    text = program("let ys = new List<int>()", "var n = 1;", "return n")
    result = fix_file(SourceFile("habits.kite", text))
    assert result.text == program("let ys = new List<int>()", "let n = 1", "return n")
    [dropped] = result.not_fixed
    assert (dropped.line, dropped.rule, dropped.title) == (4, "KT004", "Remove 'new': calling a type makes one")
    assert dropped.reason.startswith("the fix would be a syntax error: unexpected '>'")


def test_fixing_the_repo_never_adds_a_syntax_error_and_leaves_nothing_to_fix_again():
    touched = 0
    for path, text in corpus():
        result = fix_file(SourceFile(path, text))
        touched += bool(result.fixed)
        errors = lambda text: [d for d in parsed(text).diagnostics if d.id == "KT000"]  # noqa: E731
        assert len(errors(result.text)) <= len(errors(text)), path
        assert fix_file(SourceFile(path, result.text)).fixed == (), path
    assert touched >= 8  # the KT000, KT002 and KT004 fixtures, the article's programs


# ---- kite check --fix

HABITS_FILE = """module Habits

fn total(words: list<str>, strict: bool) -> int
    var count = 0;
    var size = len(words)
    let mut step = 1
    let shown = !strict == true
    foreach (var w in words) {
        if w != null && !strict {
            count += step;
        } else if strict || len(w) > size {
            count++;
        }
    }
    return count
"""
HABITS_FIXED = """module Habits

fn total(words: list<str>, strict: bool) -> int
    let mut count = 0
    let size = len(words)
    let step = 1
    let shown = !strict == true
    for w in words
        if w != none and not strict
            count += step
        elif strict or len(w) > size
            count += 1
    return count
"""


def test_check_fix_says_what_it_fixed_then_what_is_left(tmp_path):
    (tmp_path / "habits.kite").write_text(HABITS_FILE)
    result = run_kite(["check", "--fix", "--layer", "kite", "habits.kite"], cwd=tmp_path)
    assert (tmp_path / "habits.kite").read_text() == HABITS_FIXED
    assert result.output == (
        "habits.kite(4): fixed KT004: var count = 0; → let mut count = 0\n"
        "habits.kite(5): fixed KT004: var size = len(words) → let size = len(words)\n"
        "habits.kite(6): fixed KT002: let mut step = 1 → let step = 1\n"
        "habits.kite(8): fixed KT004: foreach (var w in words) { → for w in words\n"
        "habits.kite(9): fixed KT004: if w != null && !strict { → if w != none and not strict\n"
        "habits.kite(10): fixed KT004: count += step; → count += step\n"
        "habits.kite(11): fixed KT004: } else if strict || len(w) > size { → elif strict or len(w) > size\n"
        "habits.kite(12): fixed KT004: count++; → count += 1\n"
        "habits.kite(13): fixed KT004: } → (line removed)\n"
        "habits.kite(14): fixed KT004: } → (line removed)\n"
        "habits.kite(7): error KT004: '!' is C#, not Kite\n"
        "failed: 1 errors, 0 warnings\n"
    )
    assert result.exit_code == 1
    again = run_kite(["check", "--fix", "--layer", "kite", "habits.kite"], cwd=tmp_path)
    assert (tmp_path / "habits.kite").read_text() == HABITS_FIXED
    assert " fixed " not in again.output and again.exit_code == 1


@pytest.mark.dotnet
def test_check_fix_exits_as_check_does_on_the_fixed_files_through_every_layer(tmp_path):
    (tmp_path / "habits.kite").write_text(HABITS_FILE.replace("    let shown = !strict == true\n", ""))
    result = run_kite(["check", "--fix", "habits.kite"], cwd=tmp_path)
    assert result.output.endswith("habits.kite(13): fixed KT004: } → (line removed)\nclean: 0 errors, 0 warnings\n")
    assert result.exit_code == 0


def test_check_fix_keeps_a_bom_and_crlf_and_the_files_it_need_not_touch(tmp_path):
    (tmp_path / "crlf.kite").write_bytes(codecs.BOM_UTF8 + b"module A\r\n\r\nfn f() -> int\r\n    return 1;\r\n")
    (tmp_path / "clean.kite").write_text("module B\n\nfn g() -> int\n    return 1\n")
    clean_before = (tmp_path / "clean.kite").stat().st_mtime_ns
    result = run_kite(["check", "--fix", "--layer", "kite", "."], cwd=tmp_path)
    assert (tmp_path / "crlf.kite").read_bytes() == codecs.BOM_UTF8 + b"module A\r\n\r\nfn f() -> int\r\n    return 1\r\n"
    assert (tmp_path / "clean.kite").stat().st_mtime_ns == clean_before
    assert result.exit_code == 0


def test_check_fix_in_json_says_what_it_fixed_on_stderr_and_the_document_on_stdout(tmp_path):
    (tmp_path / "a.kite").write_text("module A\n\nfn f() -> int\n    var x = 1;\n    let y = !true == false\n    return x\n")
    result = run_kite(["check", "--fix", "--layer", "kite", "--format", "json", "a.kite"], cwd=tmp_path)
    document = json.loads(result.stdout)
    assert "a.kite(4): fixed KT004: var x = 1; → let x = 1" in result.stderr
    [left] = [d for d in document["diagnostics"] if d["id"] == "KT004"]
    assert left["fix"] == {"title": "Replace '!' with 'not'", "safe": False,
                           "edits": [{"line": 5, "column": 13, "end_line": 5, "end_column": 14, "text": "not "}]}


def test_json_and_sarif_carry_each_fix(tmp_path):
    (tmp_path / "a.kite").write_text("module A\n\nfn f() -> int\n    var x = 1\n    return x\n")
    document = json.loads(run_kite(["check", "--layer", "kite", "--format", "json", "a.kite"], cwd=tmp_path).stdout)
    [leak] = document["diagnostics"]
    assert leak["fix"] == {"title": "Replace 'var' with 'let'", "safe": True,
                           "edits": [{"line": 4, "column": 5, "end_line": 4, "end_column": 8, "text": "let"}]}
    sarif = json.loads(run_kite(["check", "--layer", "kite", "--format", "sarif", "a.kite"], cwd=tmp_path).stdout)
    [result] = sarif["runs"][0]["results"]
    assert result["fixes"] == [{
        "description": {"text": "Replace 'var' with 'let'"},
        "artifactChanges": [{"artifactLocation": {"uri": "a.kite"}, "replacements": [{
            "deletedRegion": {"startLine": 4, "startColumn": 5, "endLine": 4, "endColumn": 8}, "insertedContent": {"text": "let"},
        }]}],
    }]
