"""Output formats: how results are printed, separate from how they are computed."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

from kite import __version__
from kite import diagnostics as diag
from kite.display import visible, xml_text

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
            "ruleIndex": rule_ids.index(d.id),
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
    """One line built from the outcome's fields; whatever the answer wrote is shown escaped, never raw."""
    name = visible(outcome.case.name)
    if outcome.status == "pass":
        return f"PASS {name}"
    if outcome.status == "timeout":
        why = f": {visible(outcome.message)}" if outcome.message else ""
        return f"TIMEOUT {name} after {timeout_seconds:g} s{why}"
    label = "FAIL" if outcome.status == "fail" else "CRASH"
    cut = " (output cut at 64 KiB)" if outcome.truncated else ""
    return f"{label} {name}: {visible(outcome.message)}{cut}"


def tests_text(report) -> str:
    """A line per deciding test, the answer's own tests apart, and `N passed, M failed` last."""
    lines = []
    if not report.compiled:
        lines.append(check_text(list(report.check.diagnostics)))
    lines += [describe_outcome(outcome, report.timeout_seconds) for outcome in report.outcomes]
    if report.own_outcomes:
        lines.append("the program's own tests (reported apart; the hidden tests decide):")
        lines += ["  " + describe_outcome(outcome, report.timeout_seconds) for outcome in report.own_outcomes]
    if report.tampered:
        lines.append("the answer fails: it wrote to the results channel")
    lines.append(f"{report.passed} passed, {report.failed} failed")
    return "\n".join(lines)


def _test_json(outcome) -> dict:
    return {"name": outcome.case.name, "file": outcome.case.file, "line": outcome.case.line, "status": outcome.status,
            "message": outcome.message, "seconds": round(outcome.seconds, 3), "output": outcome.output,
            "truncated": outcome.truncated}


def tests_json(reports) -> str:
    document = {
        "passed": sum(r.passed for r in reports),
        "failed": sum(r.failed for r in reports),
        "answers": [
            {
                "program": r.program,
                "sandbox": r.sandbox,
                "compiled": r.compiled,
                "passes": r.passes,
                "tampered": r.tampered,
                "diagnostics": [d.to_json() for d in r.check.diagnostics],
                "tests": [_test_json(o) for o in r.outcomes],
                "own_tests": [_test_json(o) for o in r.own_outcomes],
            }
            for r in reports
        ],
    }
    return json.dumps(document, indent=2)


def tests_junit(reports) -> str:
    """JUnit XML that parses whatever bytes the answer produced; its own tests are a suite apart."""
    suites = ElementTree.Element("testsuites", tests=str(sum(len(r.outcomes) for r in reports)), failures=str(sum(r.failed for r in reports)))
    for report in reports:
        for label, outcomes in (("", report.outcomes), (" (own tests, not counted)", report.own_outcomes)):
            if label and not outcomes:
                continue
            failures = sum(o.status != "pass" for o in outcomes)
            suite = ElementTree.SubElement(
                suites, "testsuite", name=xml_text(report.program + label), tests=str(len(outcomes)), failures=str(failures),
                time=f"{sum(o.seconds for o in outcomes):.3f}",
            )
            properties = ElementTree.SubElement(suite, "properties")
            ElementTree.SubElement(properties, "property", name="sandbox", value=report.sandbox)
            for outcome in outcomes:
                case = ElementTree.SubElement(suite, "testcase", classname=xml_text(report.program), name=visible(outcome.case.name),
                                              time=f"{outcome.seconds:.3f}")
                if outcome.status != "pass":
                    kind = "failure" if outcome.status == "fail" else "error"
                    ElementTree.SubElement(case, kind, type=outcome.status, message=describe_outcome(outcome, report.timeout_seconds))
                if outcome.output:
                    ElementTree.SubElement(case, "system-out").text = xml_text(outcome.output)
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True)
