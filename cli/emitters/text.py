"""LANGUAGE.md section 10 for `check`; a line per test and `N passed, M failed` for `test`."""

from __future__ import annotations

from kite import diagnostics as diag
from kite.display import visible
from kite.scoring.slop import CLEAN_MEANS


def diagnostics_text(found) -> str:
    """One line per diagnostic, then the summary."""
    return "\n".join([*(d.render() for d in found), diag.summary(found)])


def check(reports) -> str:
    """Nothing when no unit could be checked at all: its one-line problem is the whole story."""
    if not any(report.check is not None for report in reports):
        return ""
    return diagnostics_text([d for report in reports for d in report.diagnostics])


def describe_outcome(outcome, limits) -> str:
    """One line built from the outcome's fields; whatever the answer wrote is shown escaped, never raw."""
    name = visible(outcome.case.name)
    if outcome.status == "pass":
        return f"PASS {name}"
    if outcome.status == "timeout":
        why = f": {visible(outcome.message)}" if outcome.message else ""
        return f"TIMEOUT {name} after {limits.timeout_seconds:g} s{why}"
    label = "FAIL" if outcome.status == "fail" else "CRASH"
    cut = f" (output cut at {limits.output_chars // 1024} KiB)" if outcome.truncated else ""
    return f"{label} {name}: {visible(outcome.message)}{cut}"


def answer_lines(tests) -> list[str]:
    """One answer: its diagnostics when it did not compile, a line per deciding test, its own tests apart."""
    lines = []
    if not tests.compiled:
        lines.append(diagnostics_text(list(tests.check.diagnostics)))
    lines += [describe_outcome(outcome, tests.limits) for outcome in tests.outcomes]
    if tests.own_outcomes:
        lines.append("the program's own tests (reported apart; the hidden tests decide):")
        lines += ["  " + describe_outcome(outcome, tests.limits) for outcome in tests.own_outcomes]
    if tests.tampered:
        lines.append("the answer fails: it wrote to the results channel")
    return lines


def test(reports) -> str:
    """One answer prints as it always has; several get a heading each. The last line counts every deciding test."""
    tested = [report for report in reports if report.tests is not None]
    if not tested and not any(report.skipped for report in reports):
        return ""
    lines = []
    for report in reports:
        if len(reports) > 1:
            lines.append(f"== {visible(report.program)}" + (f": {report.skipped}" if report.skipped else ""))
        if report.tests is not None:
            lines += answer_lines(report.tests)
    passed = sum(report.tests.passed for report in tested)
    failed = sum(report.tests.failed for report in tested)
    lines.append(f"{passed} passed, {failed} failed")
    return "\n".join(lines)


def prose(report) -> str:
    """A line per slop phrase (file:line:column: category: "phrase"), then the count by category."""
    lines = []
    for hit in report.hits:
        line, column = report.line_column(hit.start)
        lines.append(f'{visible(report.path)}:{line}:{column}: {hit.category}: "{visible(hit.phrase)}"')
    counts = ", ".join(f"{name} {count}" for name, count in report.by_category().items() if count)
    found = f"{len(report.hits)} slop phrase{'s' if len(report.hits) != 1 else ''} ({counts})" if report.hits else "no known slop phrase"
    lines.append(f"{found}; {CLEAN_MEANS}")
    return "\n".join(lines)
