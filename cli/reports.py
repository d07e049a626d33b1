"""Output formats: how results are printed, separate from how they are computed."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

from kite import __version__
from kite import diagnostics as diag

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def check_text(found: list[diag.Diagnostic]) -> str:
    """LANGUAGE.md section 10: one line per diagnostic, then the summary."""
    return "\n".join([*(d.render() for d in found), diag.summary(found)])


def check_json(found: list[diag.Diagnostic], layers: set[str], skipped: set[str]) -> str:
    document = {
        "verdict": diag.verdict(found).value,
        "errors": sum(d.severity is diag.Severity.ERROR for d in found),
        "warnings": sum(d.severity is diag.Severity.WARNING for d in found),
        "layers": sorted(layers),
        "skipped": sorted(skipped),
        "diagnostics": [d.to_json() for d in found],
    }
    return json.dumps(document, indent=2)


def check_sarif(found: list[diag.Diagnostic]) -> str:
    """SARIF 2.1.0, as GitHub code scanning reads it: one run, one result per diagnostic."""
    from kite.rules import ALL_RULES

    kite_rules = {rule.RULE.id: rule.RULE for rule in ALL_RULES}
    rule_ids = sorted({d.id for d in found})
    rule_index = {rule_id: index for index, rule_id in enumerate(rule_ids)}
    rules = []
    for rule_id in rule_ids:
        entry = {"id": rule_id}
        if rule_id in kite_rules:
            entry["shortDescription"] = {"text": kite_rules[rule_id].summary}
            entry["fullDescription"] = {"text": kite_rules[rule_id].rationale}
        rules.append(entry)
    results = [
        {
            "ruleId": d.id,
            "ruleIndex": rule_index[d.id],
            "level": "error" if d.severity is diag.Severity.ERROR else "warning",
            "message": {"text": d.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": d.file.replace("\\", "/")},
                "region": {"startLine": max(d.line, 1), **({"startColumn": d.column} if d.column else {})},
            }}],
        }
        for d in found
    ]
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "kite", "version": __version__, "informationUri": "https://example.invalid/kite", "rules": rules}}, "results": results}],
    }
    return json.dumps(document, indent=2)


def describe_outcome(outcome, timeout_seconds: float) -> str:
    name = outcome.case.name
    if outcome.status == "pass":
        return f"PASS {name}"
    if outcome.status == "timeout":
        return f"TIMEOUT {name} after {timeout_seconds:g} s"
    label = "FAIL" if outcome.status == "fail" else "CRASH"
    cut = " (output cut at 64 KiB)" if outcome.truncated else ""
    return f"{label} {name}: {outcome.message}{cut}"


def tests_json(reports) -> str:
    document = {
        "passed": sum(r.passed for r in reports),
        "failed": sum(r.failed for r in reports),
        "answers": [
            {
                "program": r.program,
                "compiled": r.compiled,
                "passes": r.passes,
                "diagnostics": [d.to_json() for d in r.check.diagnostics],
                "tests": [
                    {"name": o.case.name, "file": o.case.file, "line": o.case.line, "status": o.status,
                     "message": o.message, "seconds": round(o.seconds, 3), "output": o.output, "truncated": o.truncated}
                    for o in r.outcomes
                ],
            }
            for r in reports
        ],
    }
    return json.dumps(document, indent=2)


def tests_junit(reports) -> str:
    suites = ElementTree.Element("testsuites", tests=str(sum(len(r.outcomes) for r in reports)), failures=str(sum(r.failed for r in reports)))
    for report in reports:
        suite = ElementTree.SubElement(
            suites, "testsuite", name=report.program, tests=str(len(report.outcomes)), failures=str(report.failed),
            time=f"{sum(o.seconds for o in report.outcomes):.3f}",
        )
        for outcome in report.outcomes:
            case = ElementTree.SubElement(suite, "testcase", classname=report.program, name=outcome.case.name, time=f"{outcome.seconds:.3f}")
            if outcome.status != "pass":
                kind = "failure" if outcome.status == "fail" else "error"
                ElementTree.SubElement(case, kind, type=outcome.status, message=describe_outcome(outcome, report.timeout_seconds))
            if outcome.output:
                ElementTree.SubElement(case, "system-out").text = outcome.output
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True)
