"""Kite's own rules, one module each (`ktNNN_name.py`), found by file name: adding a file adds the rule.

A rule module is a `RuleModule`: its `RULE` (a kite.diagnostics.Rule) names every stage that reports it, and each
stage finds the rule there: kite.syntax.frontend (Stage.SYNTAX, declared in kite.syntax.rules), the module's own
`check` (Stage.AST, run by `check_module`), kite.pipeline.front_end across a unit's files (Stage.UNIT), a Roslyn
analyzer in compiler/dotnet (Stage.ANALYZER), kite.session (Stage.SESSION). A module that breaks the contract
stops the import, naming what it lacks.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable
from typing import Protocol, cast

from kite.analyze import Facts, gather
from kite.diagnostics import Diagnostic, Rule, Stage
from kite.syntax.nodes import Module


class RuleModule(Protocol):
    """What every rule module holds."""

    RULE: Rule
    judges_fragments: bool  # whether code read as a fragment (items, or a function body) is judged; a whole module always is

    def applies(self, module: Module) -> bool:
        """Whether the code has anything the rule judges: where it has not, `kite score` counts the rule N/A."""


class AstRule(RuleModule, Protocol):
    """A rule with Stage.AST among its stages."""

    def check(self, module: Module, facts: Facts, file: str) -> Iterable[Diagnostic]:
        """The rule's diagnostics in one parsed file."""


def contract_problems(name: str, module) -> list[str]:
    """What a rule module named `name` (ktNNN_...) lacks of the contract; empty when it keeps it."""
    rule = getattr(module, "RULE", None)
    if not isinstance(rule, Rule):
        return ["no RULE (a kite.diagnostics.Rule)"]
    problems = []
    if not re.fullmatch(rule.id.lower() + r"_\w+", name):
        problems.append(f"declares {rule.id}, but its file name says otherwise")
    if not rule.reported_by or not all(isinstance(stage, Stage) for stage in rule.reported_by):
        problems.append("RULE.reported_by names no stage")
    if not isinstance(getattr(module, "judges_fragments", None), bool):
        problems.append("no judges_fragments (True or False)")
    if not callable(getattr(module, "applies", None)):
        problems.append("no applies(module)")
    if (Stage.AST in rule.reported_by) != callable(getattr(module, "check", None)):
        problems.append("a check(module, facts, file) goes with Stage.AST, and only with it")
    return problems


def _load(name: str) -> RuleModule:
    module = importlib.import_module(f"{__name__}.{name}")
    problems = contract_problems(name, module)
    if problems:
        raise TypeError(f"rule module {module.__name__}: {'; '.join(problems)}")
    return module


ALL_RULES: tuple[RuleModule, ...] = tuple(
    _load(module.name) for module in sorted(pkgutil.iter_modules(__path__), key=lambda module: module.name)
    if module.name.startswith("kt")
)
AST_RULES = tuple(cast(AstRule, rule) for rule in ALL_RULES if Stage.AST in rule.RULE.reported_by)


def check_module(module: Module, file: str) -> list[Diagnostic]:
    """Every Stage.AST rule over one parsed module."""
    facts = gather(module)
    found: list[Diagnostic] = []
    for rule in AST_RULES:
        found.extend(rule.check(module, facts, file))
    return found
