"""What `kite test` reports: each test case, its outcome, and an answer's report (kite.session runs them)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

from kite import diagnostics as diag
from kite.pipeline import CheckResult
from kite.syntax.nodes import Module
from kite.testing.limits import Limits


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


# ---- what a result reveals of the hidden tests (`--reveal`): results that go back to a model must not teach it the tests

DOES_NOT_COMPILE = "the program does not compile"
CONCEALED_FILE = "hidden tests"  # where a concealed test or diagnostic is: no path, no line
# A hidden test file's diagnostic keeps its layer, severity and id only: a message can quote the test's code (a
# constant, a name, a type), a fix its text.
CONCEALED_DIAGNOSTIC = {"file": CONCEALED_FILE, "line": 0, "column": 0, "end_line": 0, "end_column": 0,
                        "message": "in the hidden tests (not shown)"}
_IN_GENERAL = {"pass": "", "fail": "an expectation failed", "timeout": "timed out", "crash": "crashed"}


def concealed_name(name: str, number: int, reveal: str) -> str:
    """A hidden test's name as `reveal` shows it; `number` counts the hidden tests from 1."""
    return name if reveal in ("tests", "names") else f"hidden test {number}"


def concealed_message(status: str, message: str, reveal: str) -> str:
    """A hidden test's message: with `names` or `none`, only why in general terms (an expectation quotes the test's
    code and values, and the answer's own crash or output can quote the inputs it was given)."""
    if reveal == "tests" or message == DOES_NOT_COMPILE:
        return message
    return _IN_GENERAL.get(status, status)


def conceal(report: TestReport, hidden: Collection[str], reveal: str) -> TestReport:
    """The report as `reveal` lets it be seen: the deciding tests' names, messages, places and output, and the
    diagnostics located in the `hidden` test files."""
    if reveal == "tests":
        return report
    outcomes = tuple(
        replace(outcome, case=replace(outcome.case, name=concealed_name(outcome.case.name, number, reveal), file=CONCEALED_FILE, line=0),
                message=concealed_message(outcome.status, outcome.message, reveal), output="", truncated=False)
        for number, outcome in enumerate(report.outcomes, start=1)
    )
    diagnostics = tuple(concealed_diagnostic(d) if d.file in hidden else d for d in report.check.diagnostics)
    return replace(report, outcomes=outcomes, check=replace(report.check, diagnostics=diagnostics))


def concealed_diagnostic(d: diag.Diagnostic) -> diag.Diagnostic:
    return diag.Diagnostic.from_json({**{k: v for k, v in d.to_json().items() if k != "fix"}, **CONCEALED_DIAGNOSTIC})
