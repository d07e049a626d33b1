"""Ruff-style: every rule has fixtures that must trigger it and look-alikes that must not (all layers run)."""

from __future__ import annotations

import ast
import dataclasses
import re
import types

import pytest

from conftest import FIXTURES, REPO, assert_snapshot, run_kite
from kite.diagnostics import Rule, Stage
from kite.rules import ALL_RULES, contract_problems
from kite.syntax import rules as syntax_rules

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


STAGES = {rule.RULE.id: rule.RULE.reported_by for rule in ALL_RULES}


def declaring(stage: Stage) -> set[str]:
    return {rule_id for rule_id, stages in STAGES.items() if stage in stages}


def rules_imported_by(path) -> set[str]:
    """The KT ids of the rule modules a file imports (kite.rules.ktNNN_...)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "kite.rules":
            found |= {alias.name[:5].upper() for alias in node.names if re.fullmatch(r"kt\d{3}_\w+", alias.name)}
    return found


def test_each_stage_reports_exactly_the_rules_that_name_it():
    """A rule's reported_by is where its diagnostics are made: the syntax stage declares its own rules, the unit stage
    (kite.pipeline) and the session import theirs, kite's Roslyn analyzers spell their ids."""
    in_syntax = {rule.id for rule in vars(syntax_rules).values() if isinstance(rule, Rule)}
    assert in_syntax == declaring(Stage.SYNTAX) == {"KT000", "KT004"}
    assert rules_imported_by(REPO / "compiler" / "pipeline.py") == declaring(Stage.UNIT)
    assert rules_imported_by(REPO / "compiler" / "session.py") == declaring(Stage.SESSION)
    analyzers = {found for source in (REPO / "compiler" / "dotnet").glob("*.cs") for found in re.findall(r'"(KT\d{3})"', source.read_text())}
    assert analyzers == declaring(Stage.ANALYZER) == {"KT007", "KT012", "KT016"}


def test_a_rule_module_that_breaks_the_contract_is_refused_with_what_it_lacks():
    kt002 = next(rule for rule in ALL_RULES if rule.RULE.id == "KT002")
    good = types.SimpleNamespace(RULE=kt002.RULE, judges_fragments=False, applies=kt002.applies, check=kt002.check)
    assert contract_problems("kt002_mut_never_changed", good) == []
    assert contract_problems("kt016_mut_never_changed", good) == ["declares KT002, but its file name says otherwise"]
    assert contract_problems("kt002_x", types.SimpleNamespace()) == ["no RULE (a kite.diagnostics.Rule)"]
    no_check = types.SimpleNamespace(**{**vars(good), "check": None})
    assert contract_problems("kt002_x", no_check) == ["a check(module, facts, file) goes with Stage.AST, and only with it"]
    analyzer_only = dataclasses.replace(kt002.RULE, reported_by=frozenset({Stage.ANALYZER}))
    assert contract_problems("kt002_x", types.SimpleNamespace(**{**vars(good), "RULE": analyzer_only})) == [
        "a check(module, facts, file) goes with Stage.AST, and only with it"]
    unflagged = types.SimpleNamespace(RULE=kt002.RULE, applies=None, check=kt002.check)
    assert contract_problems("kt002_x", unflagged) == ["no judges_fragments (True or False)", "no applies(module)"]
    nowhere = types.SimpleNamespace(**{**vars(good), "RULE": dataclasses.replace(kt002.RULE, reported_by=frozenset())})
    assert "RULE.reported_by names no stage" in contract_problems("kt002_x", nowhere)
