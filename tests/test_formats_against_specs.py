"""The machine formats against their specs: SARIF against the OASIS 2.1.0 schema (vendored: tests/schemas/, from
oasis-tcs/sarif-spec sarif-2.1/schema/sarif-schema-2.1.0.json) with every URI read by RFC 3986's grammar, and the
github format's properties escaped as GitHub decodes them."""

from __future__ import annotations

import json
import re
import urllib.parse

import jsonschema
import pytest

from conftest import REPO
from kite import diagnostics as diag
from kite.cli.emitters import github, sarif
from kite.pipeline import CheckResult
from kite.session import UnitProblem, UnitReport

SCHEMA = json.loads((REPO / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text())

# RFC 3986, Appendix A, as regular expressions (IPv6 literals left out: no file name is one).
_UNRESERVED, _PCT, _SUB = r"[A-Za-z0-9\-._~]", r"%[0-9A-Fa-f]{2}", r"[!$&'()*+,;=]"
_PCHAR = f"(?:{_UNRESERVED}|{_PCT}|{_SUB}|[:@])"
_SEGMENT, _SEGMENT_NZ = f"{_PCHAR}*", f"{_PCHAR}+"
_SEGMENT_NZ_NC = f"(?:{_UNRESERVED}|{_PCT}|{_SUB}|@)+"
_AUTHORITY = f"(?:(?:{_UNRESERVED}|{_PCT}|{_SUB}|:)*@)?(?:{_UNRESERVED}|{_PCT}|{_SUB})*(?::[0-9]*)?"
_PATH_ABEMPTY = f"(?:/{_SEGMENT})*"
_PATH_ABSOLUTE = f"/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?"
_QUERY = f"(?:{_PCHAR}|[/?])*"
_TAIL = rf"(?:\?{_QUERY})?(?:#{_QUERY})?"
URI = re.compile(rf"[A-Za-z][A-Za-z0-9+\-.]*:(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_SEGMENT_NZ}(?:/{_SEGMENT})*|){_TAIL}")
RELATIVE_REF = re.compile(rf"(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_SEGMENT_NZ_NC}(?:/{_SEGMENT})*|){_TAIL}")

FORMATS = jsonschema.FormatChecker()
FORMATS.checks("uri")(lambda text: bool(URI.fullmatch(text)))
FORMATS.checks("uri-reference")(lambda text: bool(URI.fullmatch(text) or RELATIVE_REF.fullmatch(text)))

HOSTILE_NAMES = ["a b.kite", "100%.kite", "new\nline.kite", "cr\rname.kite", "c:colon.kite", "dir\\back.kite",
                 "//double.kite", "/abs/ü.kite", "hash#query?.kite", "comma,colon:.kite", "bad\udcffbyte.kite", "\x1bescape.kite"]


def reports_for(name: str) -> list[UnitReport]:
    found = diag.Diagnostic(name, 3, 1, diag.Severity.ERROR, "KT001", "'x' cannot be changed: declare it with let mut",
                            diag.Layer.KITE, end_line=3, end_column=4)
    return [UnitReport(name, check=CheckResult((found,), (diag.Layer.KITE,))),
            UnitReport(name + ".other", problem=UnitProblem("unusable", f"{name}: empty file"))]


def test_the_uri_grammar_tells_good_from_bad():
    assert all(RELATIVE_REF.fullmatch(good) for good in ["a.kite", "./c:x.kite", "/abs/a%20b.kite", "dir/x.kite"])
    assert not any(RELATIVE_REF.fullmatch(bad) for bad in ["a b.kite", "c:x.kite", "100%.kite", "new\nline.kite"])


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_sarif_is_valid_against_the_oasis_schema_and_every_uri_is_rfc_3986(name):
    document = json.loads(sarif.check(reports_for(name)))
    jsonschema.Draft4Validator(SCHEMA, format_checker=FORMATS).validate(document)
    run = document["runs"][0]
    uris = [run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            run["invocations"][0]["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]]
    assert all(RELATIVE_REF.fullmatch(uri) for uri in uris), uris
    decoded = urllib.parse.unquote(uris[0].removeprefix("./"), errors="surrogateescape")
    assert decoded == re.sub("^/+", "/", name.replace("\\", "/"))  # the same file, read back


def test_sarif_names_the_project_s_rules_page_or_no_page_at_all(monkeypatch):
    """docs/cli.md: informationUri is the https page the metadata names ([project.urls] Documentation), never a path
    into one machine's checkout; kite has no public home yet, so today there is none."""
    from importlib import metadata

    def driver_of() -> dict:
        document = json.loads(sarif.check(reports_for("a.kite")))
        jsonschema.Draft4Validator(SCHEMA, format_checker=FORMATS).validate(document)
        return document["runs"][0]["tool"]["driver"]

    declared = metadata.metadata("kite-lang").get_all("Project-URL") or []
    assert "informationUri" not in driver_of() or any(url.startswith("Documentation, https://") for url in declared)
    page = "https://git.example.org/kite/blob/main/docs/rules.md"
    real = metadata.metadata

    def with_home(name):
        found = real(name)
        found["Project-URL"] = f"Documentation, {page}"
        return found

    monkeypatch.setattr(metadata, "metadata", with_home)
    assert driver_of()["informationUri"] == page and URI.fullmatch(page)


def github_decode(value: str) -> str:
    """How the runner reads a property back."""
    return value.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_github_properties_are_escaped_as_github_decodes_them(name):
    line = github.check(reports_for(name)).splitlines()[0]
    assert line.startswith("::error ") and "\n" not in line and "\r" not in line
    properties, _message = line.removeprefix("::error ").split("::", 1)
    fields = dict(part.split("=", 1) for part in properties.split(","))
    from kite.display import visible

    expected = "".join(visible(part) if part not in "\r\n" else part for part in re.split("([\r\n])", name))
    assert github_decode(fields["file"]) == expected and set(fields) >= {"file", "line", "title"}


def test_xml_text_spells_out_exactly_what_xml_1_0_cannot_hold():
    """Every code point against XML 1.0's Char production (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
    [#x10000-#x10FFFF]): what it allows passes unchanged, everything else is spelled out."""
    from kite.display import xml_text

    def allowed(code: int) -> bool:
        return code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF

    for code in range(0x110000):
        character = chr(code)
        assert (xml_text(character) == character) == allowed(code), hex(code)
