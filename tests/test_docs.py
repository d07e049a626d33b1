"""Docs generated from code stay in step with it."""

from conftest import REPO
from kite.rule_docs import render


def test_rules_doc_is_up_to_date():
    assert (REPO / "docs" / "rules.md").read_text() == render(), "run: python -m kite.rule_docs > docs/rules.md"
