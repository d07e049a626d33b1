"""GitHub Actions workflow commands: each diagnostic, or each failed test, annotated on its file and line."""

from __future__ import annotations

import re

from kite import diagnostics as diag
from kite.cli.emitters.text import describe_outcome
from kite.display import visible


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _file(name: str) -> str:
    """A file name as GitHub decodes it back (`%0A` is its newline), so the annotation lands on that very file; the
    other unsafe characters are spelled out as in the text report."""
    return _property(re.sub("[^\r\n]+", lambda part: visible(part.group()), name))


def _command(level: str, file: str, line: int, title: str, message: str, *, column: int = 0, end_line: int = 0, end_column: int = 0) -> str:
    # Any of the three can quote the answer (a test's name, a diagnostic about it): escaped like the text report, so
    # no terminal escape or bidi control reaches the log raw.
    where = [f"file={_file(file)}", f"line={max(line, 1)}", f"endLine={max(end_line, line, 1)}"]
    if column and end_line <= line:  # GitHub takes columns only for an annotation on one line
        where.append(f"col={column}")
        if end_column > column:
            where.append(f"endColumn={end_column - 1}")  # GitHub's is the last character's: it defaults to col
    return f"::{level} {','.join(where)},title={_property(visible(title))}::{_data(visible(message))}"


def _annotation(d) -> str:
    level = "error" if d.severity is diag.Severity.ERROR else "warning"
    return _command(level, d.file, d.line, d.id, d.message, column=d.column, end_line=d.end_line, end_column=d.end_column)


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
                lines.append(_command("error", outcome.case.file, outcome.case.line, f"{outcome.status}: {outcome.case.name}",
                                      describe_outcome(outcome, answer.limits)))
    lines.append(f"{sum(t.passed for t in tested)} passed, {sum(t.failed for t in tested)} failed")
    return "\n".join(lines)
