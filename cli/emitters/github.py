"""GitHub Actions workflow commands: each diagnostic, or each failed test, annotated on its file and line."""

from __future__ import annotations

from kite import diagnostics as diag


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _command(level: str, file: str, line: int, column: int, title: str, message: str) -> str:
    where = [f"file={_property(file)}", f"line={max(line, 1)}", f"endLine={max(line, 1)}"]
    if column:
        where.append(f"col={column}")
    return f"::{level} {','.join(where)},title={_property(title)}::{_data(message)}"


def check(reports) -> str:
    found = [d for report in reports for d in report.diagnostics]
    lines = [_command("error" if d.severity is diag.Severity.ERROR else "warning", d.file, d.line, d.column, d.id, d.message) for d in found]
    return "\n".join([*lines, diag.summary(found)])


def test(reports) -> str:
    tested = [report.tests for report in reports if report.tests is not None]
    lines = []
    for answer in tested:
        for diagnostic in answer.check.diagnostics:
            level = "error" if diagnostic.severity is diag.Severity.ERROR else "warning"
            lines.append(_command(level, diagnostic.file, diagnostic.line, diagnostic.column, diagnostic.id, diagnostic.message))
        for outcome in answer.outcomes:
            if outcome.status != "pass":
                lines.append(_command("error", outcome.case.file, outcome.case.line, 0, f"{outcome.status}: {outcome.case.name}", outcome.message))
    lines.append(f"{sum(t.passed for t in tested)} passed, {sum(t.failed for t in tested)} failed")
    return "\n".join(lines)
