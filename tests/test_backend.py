"""The back end: C# that compiles, lines that map, one diagnostic per problem, deterministic output."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import ARTICLE, FIXTURES, REPO, assert_snapshot, run_kite
from kite import standard_library
from kite.dotnet.stdlib import STDLIB_FILE, stdlib_source
from kite.errors import ToolchainError
from kite.pipeline import find_units
from kite.session import Session
from kite.source import read

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
    done = subprocess.run(["dotnet", str(tmp_path / "LanguageTour.dll")], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "4.20\nlarge\n[HELLO] {tag} 05 hello, x!\n-5\n")


def test_building_a_program_without_main_is_a_clear_error(tmp_path):
    result = run_kite(["build", "ca.kite", "-o", str(tmp_path)], cwd=ARTICLE)
    assert result.exit_code == 2
    assert result.output == "kite: error: ca.kite: no fn main(): kite build needs it as the program's entry point\n"
    assert list(tmp_path.iterdir()) == []
