"""Each CA rule Kite switches on fires on its own Kite fixture, on the line marked `# CAxxxx`."""

from __future__ import annotations

import json
import re

import pytest

from conftest import REPO, run_kite
from kite.dotnet.roslyn import AnalyzerRules

ANALYZER_FIXTURES = REPO / "tests" / "analyzers"
ENABLED = sorted(AnalyzerRules.load().on)


def test_every_enabled_rule_has_a_fixture_and_every_fixture_a_rule():
    assert sorted(path.stem for path in ANALYZER_FIXTURES.glob("*.kite")) == ENABLED


@pytest.mark.parametrize("rule_id", ENABLED)
def test_the_rule_fires_on_its_marked_line(rule_id):
    fixture = ANALYZER_FIXTURES / f"{rule_id}.kite"
    marked = [number for number, line in enumerate(fixture.read_text().splitlines(), start=1) if f"# {rule_id}" in line]
    assert marked, f"{fixture.name} marks no line with '# {rule_id}'"
    result = run_kite(["check", fixture.name], cwd=ANALYZER_FIXTURES)
    fired = [int(m.group(1)) for m in re.finditer(rf"^{re.escape(fixture.name)}\((\d+)\): warning {rule_id}:", result.output, re.MULTILINE)]
    assert fired == marked, result.output  # once per marked line: one problem, one line


def test_the_rules_read_tests_as_they_read_functions():
    """LANGUAGE.md §12: CA rules apply inside `test` blocks, of the program and of its test files."""
    folder = ANALYZER_FIXTURES / "in_tests"
    result = run_kite(["check", "counting.kite"], cwd=folder)
    for fixture in sorted(folder.glob("*.kite")):
        lines = fixture.read_text().splitlines()
        marked = sorted((number, rule) for number, line in enumerate(lines, start=1) for rule in re.findall(r"# (CA\d{4})", line))
        fired = sorted((int(m.group(1)), m.group(2)) for m in re.finditer(rf"^{re.escape(fixture.name)}\((\d+)\): warning (CA\d{{4}}):", result.output, re.MULTILINE))
        assert marked and fired == marked, result.output


def test_a_call_continued_over_lines_is_reported_on_the_line_of_its_method():
    """Roslyn reports an invocation where its receiver starts: kite moves it to the method's name, and leaves a
    diagnostic about the receiver itself on the receiver's line (docs/language.md, "Where a diagnostic is")."""
    folder = ANALYZER_FIXTURES / "continued"
    result = run_kite(["check", "--format", "json", "calls.kite", "receiver.kite"], cwd=folder)
    reported = json.loads(result.output)["diagnostics"]
    for fixture in sorted(folder.glob("*.kite")):
        lines = fixture.read_text().splitlines()
        marked = sorted((number, rule) for number, line in enumerate(lines, start=1) for rule in re.findall(r"# (C[AS]\d{4})", line))
        fired = sorted((d["line"], d["id"]) for d in reported if d["file"].endswith(fixture.name) and d["id"].startswith("C"))
        assert marked and fired == marked, result.output
    count = next(d for d in reported if d["line"] == 6)
    assert (count["column"], count["end_line"], count["end_column"]) == (10, 6, 17)  # `Count()`, not `xs`
