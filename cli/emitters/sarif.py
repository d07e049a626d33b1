"""SARIF 2.1.0 for code scanning; units that could not be checked are the run's tool notifications."""

from __future__ import annotations

import json
import re
import urllib.parse

from kite import __version__, diagnostics as diag

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# The metadata's project URL (pyproject.toml's [project.urls]) that names the page of kite's rules (docs/rules.md).
RULES_PAGE_LABEL = "Documentation"
# What a path segment of a URI may hold as it is (RFC 3986 pchar without pct-encoded); the rest is percent-encoded.
_SEGMENT_SAFE = "!$&'()*+,;=:@-._~"


def uri_reference(path: str) -> str:
    """A file name as an RFC 3986 URI reference, as SARIF's artifactLocation.uri must be: `\\` as `/`, every other
    character outside a segment's set percent-encoded (UTF-8), and `./` before a relative path whose first segment
    has a `:` (else it would read as a scheme); a leading `//` (an authority) is one `/`."""
    path = path.replace("\\", "/")
    path = re.sub("^/{2,}", "/", path)
    encoded = "/".join(urllib.parse.quote(segment.encode("utf-8", "surrogateescape"), safe=_SEGMENT_SAFE) for segment in path.split("/"))
    if not encoded.startswith("/") and ":" in encoded.split("/", 1)[0]:
        encoded = "./" + encoded
    return encoded


def rules_page() -> str | None:
    """The page of kite's rules on the project's home, as the installed metadata names it; None when it names none
    (kite has no public home yet): a file:// path into one machine's checkout is no page a code-scanning viewer can
    open, and informationUri is optional."""
    from importlib import metadata

    try:
        urls = metadata.metadata("kite-lang").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip() == RULES_PAGE_LABEL and url.strip().startswith("https://"):
            return url.strip()
    return None


def _tool(rules: list) -> dict:
    driver = {"name": "kite", "version": __version__, "rules": rules}
    page = rules_page()
    if page is not None:
        driver["informationUri"] = page
    return {"driver": driver}


def _region(d: diag.Diagnostic) -> dict:
    """SARIF's region: 1-based, endColumn just past the last character, as Diagnostic has it; no column when the
    layer knew none."""
    region = {"startLine": max(d.line, 1)}
    if d.column:
        end_column = d.end_column if d.end_line > d.line else max(d.end_column, d.column)
        region |= {"startColumn": d.column, "endLine": max(d.end_line, d.line), "endColumn": end_column}
    return region


def _related(index: int, related: diag.Related) -> dict:
    """SARIF's relatedLocations entry: a location with an id unique within its result, and what is there."""
    region = {"startLine": max(related.line, 1), **({"startColumn": related.column} if related.column else {})}
    return {"id": index, "physicalLocation": {"artifactLocation": {"uri": uri_reference(related.file)}, "region": region},
            "message": {"text": related.message}}


def _fix(d: diag.Diagnostic, fix: diag.Fix) -> dict:
    """SARIF's fix: the edits as replacements of the file's regions (same columns as the diagnostic's)."""
    replacements = [
        {"deletedRegion": {"startLine": e.line, "startColumn": e.column, "endLine": e.end_line, "endColumn": e.end_column},
         "insertedContent": {"text": e.text}}
        for e in fix.edits
    ]
    return {"description": {"text": fix.title}, "artifactChanges": [{"artifactLocation": {"uri": uri_reference(d.file)}, "replacements": replacements}]}


def check(reports) -> str:
    """SARIF 2.1.0, as GitHub code scanning reads it: one run, one result per diagnostic."""
    from kite.rules import ALL_RULES

    found = [d for report in reports for d in report.diagnostics]
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
                "artifactLocation": {"uri": uri_reference(d.file)},
                "region": _region(d),
            }}],
            **({"relatedLocations": [_related(index, related) for index, related in enumerate(d.related)]} if d.related else {}),
            **({"fixes": [_fix(d, d.fix)]} if d.fix is not None else {}),
        }
        for d in found
    ]
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": _tool(rules),
            "invocations": [{
                "executionSuccessful": not any(report.problem for report in reports),
                "toolExecutionNotifications": [
                    {"level": "error", "message": {"text": report.problem.message},
                     "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri_reference(report.program)}}}]}
                    for report in reports if report.problem is not None
                ],
            }],
            "results": results,
        }],
    }
    return json.dumps(document, indent=2)
