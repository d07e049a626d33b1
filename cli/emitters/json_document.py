"""One JSON document for scripts (docs/cli.md has the schema)."""

from __future__ import annotations

import json

from kite import diagnostics as diag

FORMAT = "json"  # the format's name: a module named json would read as the standard library's


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
    from kite.scoring.slop import CLEAN_MEANS  # here: every command imports its formats, only prose needs this

    hits = []
    for hit in report.hits:
        line, column = report.line_column(hit.start)
        hits.append({"category": hit.category, "phrase": hit.phrase, "start": hit.start, "end": hit.end, "line": line, "column": column})
    document = {"file": report.path, "count": len(report.hits), "by_category": report.by_category(), "hits": hits,
                "note": CLEAN_MEANS}
    return json.dumps(document, indent=2)


def _span_json(span) -> dict:
    line, column, end_line, end_column = span
    return {"line": line, "column": column, "end_line": end_line, "end_column": end_column}


def find(pattern, searched) -> str:
    """Each match with its range (end column just past the last character) and what each metavariable bound."""
    matches = [
        {"file": file.path, **_span_json(found.span), "text": found.text,
         "bindings": {name: {"text": bound.text, **(_span_json(bound.span) if bound.span else {})} for name, bound in found.bindings.items()}}
        for file in searched for found in file.found
    ]
    document = {"pattern": pattern.text, "context": pattern.context, "count": len(matches),
                "files_searched": sum(file.problem is None for file in searched),
                "problems": [file.problem for file in searched if file.problem], "matches": matches}
    return json.dumps(document, indent=2)


def _problem_json(problem) -> dict:
    return {"file": problem.file, "line": problem.line, "message": problem.message}


def tasks_check(checks) -> str:
    document = {
        "tasks": [{"task": c.task_id, "ok": c.ok, "unusable": c.unusable or None, "problems": [_problem_json(p) for p in c.problems]}
                  for c in checks],
        "ok": sum(check.ok for check in checks),
        "failed": sum(not check.ok for check in checks),
    }
    return json.dumps(document, indent=2)


def _mutant_json(result) -> dict:
    m = result.mutant
    return {"line": m.line, "kind": m.kind, "description": m.description, "status": result.status,
            "test": result.test or None, "diff": result.diff or None, "told": result.told or None}


def tasks_mutate(measured, min_score) -> str:
    document = {
        "min_score": min_score,
        "score": "killed / (compiled - likely_equivalent)",
        "tasks": [
            {"task": t.task_id, "score": t.score, "killed": t.killed, "timed_out": t.count("timeout"), "compiled": t.compiled,
             "not_compiled": t.count("not compiled"), "survived": t.count("survived"), "likely_equivalent": t.count("equivalent"),
             "checked": {"survivors": t.checked, "inputs": t.inputs, "unchecked": t.unchecked or None},
             "mutants_made": t.made, "problem": t.problem or t.unusable or None, "mutants": [_mutant_json(r) for r in t.results]}
            for t in measured
        ],
    }
    return json.dumps(document, indent=2)


def tasks_augment(augmented) -> str:
    def task_json(t) -> dict:
        done = t.after is not None
        return {
            "task": t.task_id, "tests_before": t.tests_before, "tests_after": t.tests_after if done else None,
            "score_before": t.before.score if t.before is not None else None, "score_after": t.after.score if done else None,
            "survivors": [{**_mutant_json(r), "likely_equivalent": r.status == "equivalent"}
                          for r in (t.after.results if done else ()) if r.status in ("survived", "equivalent")],
            "reference_failures": [{"input": given, "what": what} for given, what in t.reference_failures],
            "expects": [{"input": e.input.shown(), "kills": e.kills} for e in t.expects],
            "inputs": t.inputs, "answered": t.answered, "no_inputs": list(t.skipped), "written": t.written or None,
            "problem": t.problem or t.unusable or None,
        }

    return json.dumps({"score": "killed / (compiled - likely_equivalent)", "tasks": [task_json(t) for t in augmented]}, indent=2)


def _symbol_json(symbol) -> dict:
    if not symbol.file:  # a standard-library function: no file of the graph's
        return {"id": symbol.id, "name": symbol.name, "kind": symbol.kind, "file": None, "range": None}
    return symbol.to_json()


def graph(graph, found) -> str:
    """docs/graph.md: {"symbols": [...], "edges": [...]} for the whole graph, a list of symbols for a query."""
    if found is not None:
        return json.dumps([_symbol_json(symbol) for symbol in found], indent=2)
    document = {
        "symbols": [_symbol_json(symbol) for symbol in graph.workspace.symbols],
        "edges": [{"from": a, "to": b, "kind": kind} for a, b, kind in graph.workspace.edges()],
    }
    return json.dumps(document, indent=2)
