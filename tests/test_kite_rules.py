"""Ruff-style: every rule has fixtures that must trigger it and look-alikes that must not (all layers run)."""

from __future__ import annotations

import pytest

from conftest import FIXTURES, assert_snapshot, run_kite
from kite.rules import ALL_RULES

FIXTURE_FILES = sorted(FIXTURES.glob("KT*/*.kite"))


@pytest.mark.parametrize("fixture", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_output_matches_its_snapshot(fixture):
    options = fixture.parent / "check.args"  # a folder's own options, such as a small compile budget
    result = run_kite(["check", *(options.read_text().split() if options.exists() else []), fixture.name], cwd=fixture.parent)
    assert_snapshot(result.output, fixture.with_suffix(".expected"))
    has_errors = " error " in result.output
    assert result.exit_code == (1 if has_errors else 0)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.RULE.id)
def test_every_rule_has_a_fixture_that_fires_it_and_one_that_must_not(rule):
    folder = FIXTURES / rule.RULE.id
    expected = {path.name: path.read_text() for path in folder.glob("*.expected")}
    firing = [name for name, text in expected.items() if f" {rule.RULE.id}: " in text]
    look_alikes = [name for name, text in expected.items() if name.startswith("ok_")]
    assert firing, f"no fixture in {folder} makes {rule.RULE.id} fire"
    assert look_alikes, f"no ok_ look-alike in {folder}"
    for name in look_alikes:
        assert f" {rule.RULE.id}: " not in expected[name], f"{name} must not trigger {rule.RULE.id}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.RULE.id)
def test_every_rule_documents_itself(rule):
    described = rule.RULE
    assert rule.__name__.rsplit(".", 1)[-1].startswith(described.id.lower() + "_")
    for text in (described.summary, described.rationale, described.example, described.fix):
        assert text.strip()
