"""GitHub Actions workflow commands: each diagnostic, or each failed test, annotated on its file and line."""

from __future__ import annotations

from kite import diagnostics as diag
from kite.cli.emitters.text import describe_outcome
from kite.display import visible


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _command(level: str, file: str, line: int, column: int, title: str, message: str) -> str:
    # Any of the three can quote the answer (a test's name, a diagnostic about it): escaped like the text report, so
    # no terminal escape or bidi control reaches the log raw.
    where = [f"file={_property(visible(file))}", f"line={max(line, 1)}", f"endLine={max(line, 1)}"]
    if column:
        where.append(f"col={column}")
    return f"::{level} {','.join(where)},title={_property(visible(title))}::{_data(visible(message))}"


def _annotation(d) -> str:
    # Compiler and analyzer columns are the generated C#'s (docs/cli.md): only Kite's own are shown.
    column = d.column if d.layer is diag.Layer.KITE else 0
    return _command("error" if d.severity is diag.Severity.ERROR else "warning", d.file, d.line, column, d.id, d.message)


def check(reports) -> str:
    found = [d for report in reports for d in report.diagnostics]
    lines = [_annotation(d) for d in found]
    return "\n".join([*lines, diag.summary(found)])


def test(reports) -> str:
    tested = [report.tests for report in reports if report.tests is not None]
    lines = []
    for answer in tested:
        lines += [_annotation(d) for d in answer.check.diagnostics]
        for outcome in answer.outcomes:
            if outcome.status != "pass":
                lines.append(_command("error", outcome.case.file, outcome.case.line, 0, f"{outcome.status}: {outcome.case.name}",
                                      describe_outcome(outcome, answer.limits)))
    lines.append(f"{sum(t.passed for t in tested)} passed, {sum(t.failed for t in tested)} failed")
    return "\n".join(lines)
