"""The grader article's own programs, reproduced to the letter (shared/kite/examples)."""

from __future__ import annotations

from conftest import ARTICLE, run_kite


def expected_lines(name: str) -> list[str]:
    return (ARTICLE / f"{name}.expected").read_text().splitlines()


def test_leak_gives_exactly_its_two_lines_and_nothing_cascades():
    result = run_kite(["check", "--layer", "kite", "leak.kite"], cwd=ARTICLE)
    assert result.output.splitlines() == expected_lines("leak")
    assert result.exit_code == 1


def test_mistakes_kite_lines_come_out_exactly():
    result = run_kite(["check", "--layer", "kite", "mistakes.kite"], cwd=ARTICLE)
    kite_lines = [line for line in expected_lines("mistakes") if " KT0" in line]
    assert result.output.splitlines()[:-1] == kite_lines
    assert result.output.splitlines()[-1] == "failed: 1 errors, 2 warnings"
