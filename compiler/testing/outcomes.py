"""What `kite test` reports: each test case, its outcome, and an answer's report (kite.session runs them)."""

from __future__ import annotations

from dataclasses import dataclass

from kite import diagnostics as diag
from kite.pipeline import CheckResult
from kite.syntax.nodes import Module
from kite.testing.worker import Limits


@dataclass(frozen=True)
class TestCase:
    __test__ = False  # a Kite test's data, not a pytest class

    name: str
    file: str
    line: int
    type_name: str
    method: str


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False  # a Kite test's data, not a pytest class

    case: TestCase
    status: str  # pass, fail, timeout, crash
    message: str
    seconds: float
    output: str = ""
    truncated: bool = False
    tampered: bool = False  # the answer forged its results channel


@dataclass(frozen=True)
class TestReport:
    __test__ = False  # a Kite test's data, not a pytest class

    program: str
    check: CheckResult
    outcomes: tuple[TestOutcome, ...]  # the tests that decide: the hidden tests when there are any
    limits: Limits  # what the tests ran under: the report quotes its caps
    sandbox: str  # "bubblewrap" or "none"
    own_outcomes: tuple[TestOutcome, ...] = ()  # the answer's own tests when hidden tests decide: reported apart
    modules: tuple[Module | None, ...] = ()  # each file as the check parsed it (None where it did not): read it, never parse again

    @property
    def compiled(self) -> bool:
        return self.check.verdict is not diag.Verdict.FAILED

    @property
    def passed(self) -> int:
        return sum(outcome.status == "pass" for outcome in self.outcomes)

    @property
    def failed(self) -> int:
        return len(self.outcomes) - self.passed

    @property
    def tampered(self) -> bool:
        return any(outcome.tampered for outcome in (*self.outcomes, *self.own_outcomes))

    @property
    def passes(self) -> bool:
        """Compiles, every deciding test passes (and there is one), and nothing was forged."""
        return self.compiled and bool(self.outcomes) and self.failed == 0 and not self.tampered
