"""The back end: C# that compiles, lines that map, one diagnostic per problem, deterministic output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ARTICLE, FIXTURES, MESSAGES, REPO, assert_snapshot, run_kite
from kite import standard_library
from kite.dotnet.stdlib import STDLIB_FILE, stdlib_source
from kite.errors import ToolchainError
from kite.session import Session
from kite.units import find_units

GOLDEN = REPO / "tests" / "golden"
COMPILER_LINE = re.compile(r"^([^ ]+\(\d+\): (?:error|warning) (?:CS|CA)\d+):.*$")


def comparable(text: str) -> list[str]:
    """CS and CA messages are the tools' own words: compare them on file, line, severity and id."""
    return [COMPILER_LINE.sub(r"\1", line) for line in text.splitlines()]


@pytest.fixture(scope="module")
def checker():
    with Session() as session:
        yield session


@pytest.mark.parametrize("name", ["mistakes", "leak", "ca"])
def test_the_article_examples_print_exactly_their_expected_output(name):
    result = run_kite(["check", f"{name}.kite"], cwd=ARTICLE)
    assert comparable(result.output) == comparable((ARTICLE / f"{name}.expected").read_text())
    assert result.exit_code == (0 if name == "ca" else 1)


def every_program():
    return sorted(REPO.glob("samples/**/*.kite")) + sorted(FIXTURES.glob("**/*.kite")) + sorted(ARTICLE.glob("*.kite")) + sorted(GOLDEN.glob("*.kite"))


def test_no_diagnostic_ever_lands_on_generated_scaffolding(checker):
    units = [source.read() for source in find_units([str(path) for path in every_program()])]
    internal = [d.render() for unit in units for d in checker.check(unit).diagnostics if d.id == "KT900"]
    assert internal == []


def test_every_sample_is_clean_through_all_three_layers(checker):
    for unit in (source.read() for source in find_units([str(REPO / "samples")])):
        result = checker.check(unit)
        assert [d.render() for d in result.diagnostics] == [], unit.program.path
        assert result.layers_run == ("kite", "compiler", "analyzers")


@pytest.mark.parametrize("program", sorted(GOLDEN.glob("*.kite")), ids=lambda p: p.stem)
def test_generated_csharp_matches_its_golden_file(checker, program):
    unit = find_units([str(program.relative_to(REPO))])[0].read()
    os.chdir(REPO)
    analysis = checker.analyze(unit)
    [(path, text)] = analysis.generated.sources
    assert path.endswith(".kite.cs") and not path.endswith(".g.cs")
    assert_snapshot(text, program.with_suffix(".cs.golden"))
    assert analysis.result.diagnostics == ()


def test_output_is_byte_identical_across_runs_and_hash_seeds():
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-m", "kite.cli.main", "check", "--format", "json", "tests/article", "tests/fixtures/KT001", "samples"],
            cwd=REPO, capture_output=True, env=env,
            check=False,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1 and b'"diagnostics"' in outputs.pop()


def test_the_standard_library_table_has_every_function_of_the_reference():
    """The table is tied to class Std both ways (test_standard_library.py); here, to section 7 of the reference."""
    reference = (REPO / "docs" / "language.md").read_text()
    section = reference.split("## 7.", 1)[1].split("\n## ", 1)[0]
    names = set(re.findall(r"`([a-z_]+)\(", section))
    assert len(names) == 24  # len, sum, ... print: every name section 7 lists
    assert names == set(standard_library.FUNCTIONS)


def test_a_missing_standard_library_is_an_error_not_an_empty_library(monkeypatch):
    monkeypatch.setattr("kite.dotnet.stdlib.STDLIB_FILE", "NotThere.cs")
    with pytest.raises(ToolchainError, match="missing or empty"):
        stdlib_source()
    assert STDLIB_FILE == "KiteStd.cs"


def test_a_built_program_runs_under_dotnet(tmp_path):
    result = run_kite(["build", "samples/language_tour.kite", "-o", str(tmp_path)], cwd=REPO)
    assert result.exit_code == 0, result.output
    done = subprocess.run(["dotnet", str(tmp_path / "LanguageTour.dll")], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, "4.20\nlarge\n[HELLO] {tag} 05 hello, x!\n-5\n")


def test_building_a_program_without_main_is_a_clear_error(tmp_path):
    result = run_kite(["build", "ca.kite", "-o", str(tmp_path)], cwd=ARTICLE)
    assert result.exit_code == 2
    assert result.output == "kite: error: ca.kite: no fn main(): kite build needs it as the program's entry point\n"
    assert list(tmp_path.iterdir()) == []


CONTINUED = """module Continued

fn add3(a: int, b: int, c: int) -> int
    return a + b + c

fn main()
    let maybe: int? = 3
    let total = add3(
        1,
        maybe,  # error
        2)
    let names: list<str> = [
        "a",
        4,  # error
        "c"]
    let shout = upper(trim(
        5))  # error
    let ok = [1, 2].Select(fn(x) => (
        x * "a")).Count()  # error
    if add3(1, 2,
            "x") > 0  # error
        print(shout + to_str(total + ok))
"""


def test_a_mistake_on_a_continuation_line_is_reported_on_that_line(checker, tmp_path):
    program = tmp_path / "continued.kite"
    program.write_text(CONTINUED, encoding="utf-8")
    marked = [number for number, line in enumerate(CONTINUED.splitlines(), start=1) if line.endswith("# error")]
    [unit] = [source.read() for source in find_units([str(program)])]
    errors = [d for d in checker.check(unit).diagnostics if d.severity.value == "error"]
    assert [d.line for d in errors] == marked, [d.render() for d in errors]


UNTYPED = {
    "untyped.kite": "module Untyped\n\nfn main()\n    for x in none\n        print(to_str(x))\n    let xs = []\n"
    "    print(to_str(sorted(none)))\n    print(to_str(max(1, \"a\")))\n    let nothing = fn() => none\n",
    "untyped.test.kite": "module Untyped\n\ntest \"compares\"\n    expect 1 == \"a\"\n",
}


def test_what_c_sharp_cannot_type_is_said_in_kite_words_never_naming_a_generated_helper(checker, tmp_path):
    for name, text in UNTYPED.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    [unit] = [source.read() for source in find_units([str(tmp_path / "untyped.kite")])]
    said = [(Path(d.file).name, d.line, d.id, d.message) for d in checker.check(unit).diagnostics]
    assert [where[:3] for where in said] == [
        ("untyped.kite", 4, "CS0411"), ("untyped.kite", 6, "CS0411"), ("untyped.kite", 7, "CS0411"),
        ("untyped.kite", 8, "CS0411"), ("untyped.kite", 9, "CS8917"), ("untyped.test.kite", 4, "CS0411"),
    ], said
    for *_, message in said:
        assert message.startswith(("cannot tell", "cannot compare")), message
        assert not any(word in message for word in ("Runtime", "Std.", "<T>", "delegate", "inferred")), message
    assert "sorted()" in said[2][3] and "max()" in said[3][3] and "for loop" in said[0][3]


SPELLED = (
    "module Spelled\n\nfn f(xs: list<int>) -> int\n    for x in xs\n        let step = x\n        print(step)\n"
    "    let step = 2\n    let a__b = 3\n    let _ = 4\n    return 0\n"
)


def test_a_c_sharp_message_names_a_local_as_the_program_wrote_it_never_as_the_generator_spelled_it(checker, tmp_path):
    """`step` declared again after its block is `step__1` in the C#, `a__b` is `a__b__u`, `_` is `v___u`."""
    (tmp_path / "spelled.kite").write_text(SPELLED, encoding="utf-8")
    [unit] = [source.read() for source in find_units([str(tmp_path / "spelled.kite")])]
    said = [(d.line, d.id, d.message) for d in checker.check(unit).diagnostics if d.id == "CS0219"]
    assert said == [
        (7, "CS0219", "The variable 'step' is assigned but its value is never used"),
        (8, "CS0219", "The variable 'a__b' is assigned but its value is never used"),
        (9, "CS0219", "The variable '_' is assigned but its value is never used"),
    ], said


def test_a_use_of_a_namespace_always_in_scope_is_no_compiler_warning(checker, tmp_path):
    """LANGUAGE.md §2: System, System.Linq and System.Collections.Generic are always in scope; writing `use` for one
    is redundant, never the C# compiler's CS0105 about a using the generated file already has."""
    program = tmp_path / "redundant.kite"
    program.write_text("module Redundant\n\nuse System.Linq\nuse System.Collections.Generic\nuse System\n\n"
                       "fn total(xs: list<int>) -> int\n    return xs.Sum()\n", encoding="utf-8")
    [unit] = [source.read() for source in find_units([str(program)])]
    result = checker.check(unit)
    assert [d.render() for d in result.diagnostics] == []
    assert result.layers_run == ("kite", "compiler", "analyzers")


def test_compiler_messages_about_what_kite_lacks_or_about_a_mixed_list_say_it_in_kite_s_terms(tmp_path):
    """LANGUAGE.md section 12: no "checked mode" (Kite has none); a list of two types, or a for over an int, is not
    an "empty [] or a bare none"."""
    (tmp_path / "w.kite").write_text(
        'module W\n\nlet big = 2147483647 + 1\n\nfn f()\n    let xs = [1, "two"]\n    for ch in 42\n        print(ch)\n'
    )
    lines = run_kite(["check", "w.kite"], cwd=tmp_path).output.splitlines()
    assert lines[0] == "w.kite(3): error CS0220: this int arithmetic leaves int's range (-2147483648 to 2147483647): Kite has no long"
    assert lines[1] == "w.kite(6): error CS0411: cannot tell the element type of this list: its elements are of different types (int and str), and a list holds one: write every element as one type"
    assert lines[2] == "w.kite(7): error CS0411: cannot tell what this for loop goes over: a list, set, map or str, and an int is none of them: to count, write for i in range(n)"


def test_each_cs0411_is_explained_from_the_shape_of_its_code(tmp_path):
    """LANGUAGE.md section 12: a list of two types names them, on the line of the element that differs; a for over an
    int says it cannot be iterated; a for over a record says so; only an empty [] or a bare none has "no type of its
    own"."""
    (tmp_path / "shapes.kite").write_text(
        "module Shapes\n\ntype Point\n    x: int\n\nfn f(n: int, p: Point)\n    let xs = [1, \"two\"]\n    let ys = [\n        1.5,\n"
        "        2,\n        \"three\",\n    ]\n    for ch in 42\n        print(ch)\n    for c in n\n        print(c)\n"
        "    for q in p\n        print(q)\n    let zs = []\n    let nones = [none, none]\n    print(xs)\n    print(ys)\n"
        "    print(zs)\n    print(nones)\n"
    )
    assert_snapshot(run_kite(["check", "shapes.kite"], cwd=tmp_path).output, MESSAGES / "cs0411_shapes.expected")


FUNCTION_WORDS = (
    "module Words\n\nfn apply(f: fn(int) -> int, x: int) -> int\n    return f(x)\n\n"
    "fn add(a: int, b: int) -> int\n    return a + b\n\n"
    "fn size(xs: list<int>) -> int\n    return xs.len()\n\n"
    "fn run() -> int\n    return apply(add, 1) + apply(fn(a, b) => a + b, 2)\n"
)


def test_a_c_sharp_message_about_a_function_type_or_a_std_function_says_it_in_kite_words(checker, tmp_path):
    """LANGUAGE.md section 12: `System.Func<int, int>` is `fn(int) -> int`, and `xs.len()` is written len(xs)."""
    (tmp_path / "words.kite").write_text(FUNCTION_WORDS, encoding="utf-8")
    [unit] = [source.read() for source in find_units([str(tmp_path / "words.kite")])]
    said = {d.id: d.message for d in checker.check(unit).diagnostics if d.id.startswith("CS")}
    assert said["CS1503"] == "Argument 1: cannot convert from a named function to 'fn(int) -> int'"
    assert said["CS1593"] == "A function of type 'fn(int) -> int' does not take 2 arguments"
    assert said["CS1061"].endswith(": len is a function: write len(x), not x.len()") and "no accessible" not in said["CS1061"]
