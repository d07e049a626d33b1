"""`kite rewrite`: a structural rewrite staged as a plan, then applied whole or not at all.

Preparing reads and matches every file and writes nothing but the plan: each file's content hash when it was read
and its text after the rewrite. Applying refuses the whole plan when any file's content is not what was read (edited
by hand, reformatted, rewritten by another tool since), writes each file atomically (kite.atomic: a temporary file
beside it, then a rename), and when one write fails puts back every file already written.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from kite.atomic import replacing_mode, rewrite_in_place
from kite.display import diff_name
from kite.errors import UnusableInput
from kite.search.find import FileSearch, Found, search
from kite.search.pattern import METAVARIABLE_OR_LITERAL, Pattern, metavariable_names
from kite.source import decode, read_regular, reading_errors
from kite.syntax.frontend import read_syntax

PLAN_VERSION = 1
# A plan holds each file's result, so it may be far larger than one source; the bound is on what loading it costs.
MAX_PLAN_BYTES = 1 << 28
# What says a text is not Kite as written: a syntax error, or C# the parser only read through recovery.
NOT_AS_WRITTEN = frozenset({"KT000", "KT004"})
# Around a substituted expression, what keeps it whole without parentheses: `f($X)`, `let y = $X`, `[$X, 1]`.
_DELIMITER_BEFORE = tuple("(,[=:")
_DELIMITER_AFTER = tuple("),]")


@dataclass(frozen=True)
class FilePlan:
    path: str
    sha256: str  # of the bytes read when the plan was made
    result: str  # the file's whole text after the rewrite (its BOM and line ends kept)
    matches: int
    diff: str


@dataclass(frozen=True)
class Plan:
    pattern: str
    template: str
    files: tuple[FilePlan, ...]
    problems: tuple[str, ...]  # files that could not be searched

    @property
    def matches(self) -> int:
        return sum(file.matches for file in self.files)

    def to_json(self) -> str:
        files = [{"path": f.path, "sha256": f.sha256, "result": f.result, "matches": f.matches} for f in self.files]
        return json.dumps({"kite_rewrite_plan": PLAN_VERSION, "pattern": self.pattern, "template": self.template, "files": files}, indent=1)


def prepare(pattern: Pattern, template: str, paths: list[str]) -> Plan:
    """The plan of rewriting every match of `pattern` in `paths` into `template`; nothing is written."""
    unknown = {spelled for spelled, name in _template_metavariables(template)} - {f"${name}" for name in metavariable_names(pattern.text)}
    unknown -= {f"$$${name}" for name in metavariable_names(pattern.text)}
    if unknown:
        raise UnusableInput(f"the template uses {', '.join(sorted(unknown))}, which the pattern does not bind")
    files, problems = [], []
    for searched in search(pattern, paths):
        try:
            if searched.problem is not None:
                raise UnusableInput(searched.problem)
            if searched.found:
                files.append(_file_plan(searched, template))
        except UnusableInput as problem:
            problems.append(str(problem))
    return Plan(pattern.text, template, tuple(files), tuple(problems))


def _template_metavariables(template: str) -> list[tuple[str, str]]:
    """(as spelled, name) of each metavariable outside the template's literals and comments."""
    return [(m.group(), m.group(1) if m.group(1) is not None else m.group(2))
            for m in METAVARIABLE_OR_LITERAL.finditer(template) if m.group(1) is not None or m.group(2) is not None]


def _file_plan(searched: FileSearch, template: str) -> FilePlan:
    with reading_errors(searched.path, "a .kite file"):
        raw = Path(searched.path).read_bytes()
    assert searched.source is not None, "a file searched with no problem keeps its source"
    text = searched.source.text
    if decode(searched.path, raw).text != text:
        raise UnusableInput(f"{searched.path}: changed while the plan was being made")
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def offset(line: int, column: int) -> int:
        return offsets[line - 1] + column - 1

    pieces, position, count = [], 0, 0
    for found in searched.found:  # sorted by start: a match inside one already rewritten is left as it is
        start, end = offset(*found.span[:2]), offset(*found.span[2:])
        if start < position:
            continue
        first_line = lines[found.span[0] - 1]
        indent = first_line[:len(first_line) - len(first_line.lstrip(" \t"))]
        pieces += [text[position:start], _filled(template, found, indent)]
        position, count = end, count + 1
    pieces.append(text[position:])
    result = "".join(pieces)
    diff = "".join(difflib.unified_diff(_lines(text), _lines(result), diff_name(f"a/{searched.path}"), diff_name(f"b/{searched.path}")))
    return FilePlan(str(Path(searched.path).resolve()), _sha256(raw), _as_written(result, raw), count, diff)


def _lines(text: str) -> list[str]:
    """Lines with their ends, split at LF only (splitlines would split at a U+2028 inside a string literal)."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def _filled(template: str, found: Found, indent: str) -> str:
    """The template with each metavariable's text in; its later lines indented as the match's first line is."""

    def substitute(match: re.Match) -> str:
        if match.group(1) is None and match.group(2) is None:
            return match.group()  # a literal or a comment of the template: as written
        bound = found.bindings[match.group(1) if match.group(1) is not None else match.group(2)]
        before = template[:match.start()].rstrip()
        after = template[match.end():].lstrip()
        alone = (not before or before.endswith(_DELIMITER_BEFORE)) and (not after or after.startswith(_DELIMITER_AFTER))
        return bound.text if alone or not bound.compound else f"({bound.text})"

    filled = METAVARIABLE_OR_LITERAL.sub(substitute, template)
    return filled.replace("\n", "\n" + indent)


def _as_written(text: str, raw: bytes) -> str:
    """The rewritten text with the original's byte order mark and CRLF line ends, if it had them."""
    if b"\r\n" in raw:
        text = text.replace("\n", "\r\n")
    return ("\ufeff" + text) if raw.startswith(b"\xef\xbb\xbf") else text


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---- applying


class PlanRefused(Exception):
    """The plan cannot be applied as a whole; nothing was written."""


def load_plan(path: str) -> list[dict]:
    data = read_regular(path, "a rewrite plan", MAX_PLAN_BYTES)  # a FIFO or a device would block a plain read
    try:
        plan = json.loads(data)
        files = plan["files"]
        if plan.get("kite_rewrite_plan") != PLAN_VERSION or not all(
            isinstance(f["path"], str) and isinstance(f["sha256"], str) and isinstance(f["result"], str) for f in files
        ):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise UnusableInput(f"{path}: not a kite rewrite plan (make one with kite rewrite PATTERN --to TEMPLATE PATH...)") from None
    return files


def apply(plan_path: str, check: bool = False) -> list[str]:
    """Write every file of the plan, or none; the paths written. PlanRefused says why nothing was."""
    files = load_plan(plan_path)
    originals: dict[str, bytes] = {}
    changed = []
    for entry in files:
        try:
            originals[entry["path"]] = Path(entry["path"]).read_bytes()
        except OSError as error:
            changed.append(f"{entry['path']}: cannot read ({error.strerror})")
            continue
        if _sha256(originals[entry["path"]]) != entry["sha256"]:
            changed.append(f"{entry['path']}: changed since the plan was made")
    if changed:
        raise PlanRefused("; ".join(changed))
    if check:
        broken = [problem for entry in files if (problem := _parse_problem(entry)) is not None]
        if broken:
            raise PlanRefused("; ".join(broken))
    modes = {entry["path"]: replacing_mode(Path(entry["path"])) for entry in files}
    written: list[str] = []
    try:
        for entry in files:
            rewrite_in_place(Path(entry["path"]), entry["result"].encode("utf-8"), modes[entry["path"]])
            written.append(entry["path"])
    except BaseException:
        for path in reversed(written):
            rewrite_in_place(Path(path), originals[path], modes[path])
        raise
    return written


def _parse_problem(entry: dict) -> str | None:
    """Why a file's rewritten text is not Kite the parser accepts as written, or None."""
    syntax = read_syntax(decode(entry["path"], entry["result"].encode("utf-8")))
    first = next((d for d in syntax.diagnostics if d.id in NOT_AS_WRITTEN), None)
    if syntax.complete and first is None:
        return None
    where = f"line {first.line}: {first.message}" if first is not None else "it does not parse"
    return f"{entry['path']}: the rewritten file does not parse ({where})"
