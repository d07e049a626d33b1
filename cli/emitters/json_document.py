"""One JSON document for scripts (docs/cli.md has the schema)."""

from __future__ import annotations

import json

from kite import diagnostics as diag
from kite.scoring.slop import CLEAN_MEANS


def problems(reports) -> list[dict]:
    """Units that have no result, and why; an internal error keeps its traceback."""
    return [
        {"program": r.program, "kind": r.problem.kind, "message": r.problem.message,
         **({"traceback": r.problem.traceback} if r.problem.traceback else {})}
        for r in reports if r.problem is not None
    ]


def check(reports) -> str:
    return json.dumps(check_document(reports), indent=2)


def check_new(reports, new) -> str:
    """`kite check --new-only`: the whole check's document, and `new`, the diagnostics the state had not reported."""
    return json.dumps({**check_document(reports), "new": [d.to_json() for d in new]}, indent=2)


def check_document(reports) -> dict:
    found = [d for report in reports for d in report.diagnostics]
    checked = [report.check for report in reports if report.check is not None]
    return {
        "verdict": diag.verdict(found).value,
        "errors": sum(d.severity is diag.Severity.ERROR for d in found),
        "warnings": sum(d.severity is diag.Severity.WARNING for d in found),
        "layers": sorted({layer for result in checked for layer in result.layers_run}),
        "skipped": sorted({f"{report.program}: {reason}" for report in reports if report.check is not None for reason in report.check.skipped}),
        "problems": problems(reports),
        "diagnostics": [d.to_json() for d in found],
    }


def _test_json(outcome) -> dict:
    return {"name": outcome.case.name, "file": outcome.case.file, "line": outcome.case.line, "status": outcome.status,
            "message": outcome.message, "seconds": round(outcome.seconds, 3), "output": outcome.output,
            "truncated": outcome.truncated}


def test(reports) -> str:
    tested = [report.tests for report in reports if report.tests is not None]
    document = {
        "passed": sum(t.passed for t in tested),
        "failed": sum(t.failed for t in tested),
        "problems": problems(reports),
        "skipped": [{"program": r.program, "reason": r.skipped} for r in reports if r.skipped],
        "answers": [
            {
                "program": t.program,
                "sandbox": t.sandbox,
                "compiled": t.compiled,
                "passes": t.passes,
                "tampered": t.tampered,
                "diagnostics": [d.to_json() for d in t.check.diagnostics],
                "tests": [_test_json(o) for o in t.outcomes],
                "own_tests": [_test_json(o) for o in t.own_outcomes],
            }
            for t in tested
        ],
    }
    return json.dumps(document, indent=2)


def score(summary) -> str:
    """The summary document, as written beside the results (docs/scoring.md has its schema)."""
    return json.dumps(summary, indent=1, sort_keys=True)


def prose(report) -> str:
    """Offsets are characters into the file's text (line ends read as LF); line and column are 1-based."""
    hits = []
    for hit in report.hits:
        line, column = report.line_column(hit.start)
        hits.append({"category": hit.category, "phrase": hit.phrase, "start": hit.start, "end": hit.end, "line": line, "column": column})
    document = {"file": report.path, "count": len(report.hits), "by_category": report.by_category(), "hits": hits,
                "note": CLEAN_MEANS}
    return json.dumps(document, indent=2)
