"""One answer: its code found and read (pure Python), judged by a session (the costly part, cached by content),
then its result line assembled with the claims and slop of its prose.

The middle step is a plain function of a `CodeRequest` to a JSON-able verdict, so it runs the same in this process,
in a worker process or on a Dask worker, and the same request is graded once per run."""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from kite.diagnostics import STATIC_LAYERS, Layer
from kite.errors import UnusableInput
from kite.rules import ALL_RULES
from kite.scoring import formats, signatures
from kite.scoring.answer import Extraction, extract
from kite.scoring.claims import Outcome, claims
from kite.scoring.fragments import MAX_PROBED_CHARS, MODULE_LINE, Reading, own_code, parsed, read_as_module
from kite.scoring.slop import slop
from kite.scoring.tasks import DEFAULT_MODULE, Task
from kite.source import SourceFile, too_large
from kite.testing.outcomes import CONCEALED_DIAGNOSTIC, CONCEALED_FILE, concealed_message, concealed_name

SCHEMA_VERSION = 1
PROGRAM_PATH = "answer.kite"
LINE_END = re.compile(r"\r\n|\r|\n")
# Code that is not a whole file (see each rule's judges_fragments): a bare function body. Items (read with or without
# their common indentation) are whole declarations: indenting a block tells nothing of code left out, and must not
# buy an answer out of KT002 and KT006.
FRAGMENT_READINGS = frozenset({"function body"})


@dataclass(frozen=True)
class CodeRequest:
    """What a session must judge: a Kite program with the task's hidden tests, or the raw text of another format."""

    format: str
    text: str  # the program (kite), or the whole answer (other formats)
    tests: tuple[tuple[str, str], ...] = ()  # (path, text) of the hidden tests; none: static layers only
    regex_flavor: str = "dotnet"
    time_limit: float | None = None  # seconds each hidden test may run (the task's task.toml); None: the session's
    module_line_written: bool = True  # False: the program's module line is the reader's, not the answer's
    signatures: tuple[tuple[str, str], ...] = ()  # the task's shapes of what the hidden tests use (kite.scoring.signatures)

    def key(self, toolchain: str) -> str:
        limit = [] if self.time_limit is None else [self.time_limit]  # keys made before time limits existed stay valid
        added = [] if self.module_line_written else ["module line added"]
        shapes = [["signatures", *map(list, self.signatures)]] if self.signatures else []
        material = json.dumps([toolchain, self.format, self.regex_flavor, self.text, self.tests, *limit, *added, *shapes], ensure_ascii=False)
        return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Segment:
    """Where the lines of one Kite block sit in the program graded."""

    block: int  # index into the answer's blocks
    first_line: int  # the program line of the block's line 1
    lines: int  # how many lines the block has
    column_offset: int  # program column C is column C - column_offset of the block's line


@dataclass(frozen=True)
class Program:
    source: str
    module: str
    readings: tuple[tuple[int, Reading], ...]  # (block index, how it was read)
    segments: tuple[Segment, ...]


def program_of(extraction: Extraction, module_name: str) -> Program | None:
    """The Kite blocks of an answer as one module: the first block as read, each later one without its module line.

    Several blocks are usually pieces of one program (a function, then its tests); a block written as a corrected
    copy of an earlier one is graded together with it, duplicates and all."""
    readings = [(index, read_as_module(block.text, module_name)) for index, block in enumerate(extraction.blocks) if block.is_kite]
    if not readings:
        return None
    lines: list[str] = []
    segments: list[Segment] = []
    for index, reading in readings:
        source_lines = reading.source.split("\n")
        if lines:  # the first block's module line stands; a later one's is blanked, keeping every line where it was
            declared = next((i for i, line in enumerate(source_lines) if MODULE_LINE.match(line)), None)
            if declared is not None:
                source_lines[declared] = ""
        segments.append(Segment(index, len(lines) + 1 + reading.line_offset, extraction.blocks[index].text.count("\n") + 1,
                                reading.column_offset))
        lines.extend(source_lines)
    return Program("\n".join(lines), readings[0][1].module, tuple(readings), tuple(segments))


class AnswerLines:
    """Where each line of the answer starts and ends (CR LF, CR and LF all end one), to map block lines back."""

    def __init__(self, answer: str):
        self.answer = answer
        self.starts = [0] + [match.end() for match in LINE_END.finditer(answer)]

    def end_of(self, index: int) -> int:
        if index + 1 < len(self.starts):
            following = self.starts[index + 1]
            return following - (2 if self.answer[following - 2:following] == "\r\n" else 1)
        return len(self.answer)

    def _place(self, extraction: Extraction, program: Program, line: int):
        """A program line as (segment, block line, where its code starts and ends in the answer): the code is the end
        of the answer's line, whatever container (a quote's `>`, a list's indentation) comes before it."""
        for segment in program.segments:
            block_line = line - segment.first_line + 1
            if 1 <= block_line <= segment.lines:
                block = extraction.blocks[segment.block]
                index = bisect.bisect_right(self.starts, block.start) - 1 + block_line - 1
                end = self.end_of(index)
                code = block.text.split("\n")[block_line - 1]
                return segment, block_line, max(self.starts[index], end - len(code)), end
        return None  # a line the reading added (a module line, a wrapping function)

    def span(self, extraction: Extraction, program: Program, found: dict) -> dict | None:
        """A diagnostic's range as characters of the answer, with its block and the block's line. One that knows
        only its line, or only a point, covers its whole line; one that ends past its block ends with its line."""
        place = self._place(extraction, program, found["line"])
        if place is None:
            return None
        segment, block_line, code_start, code_end = place

        def character(start: int, end: int, column: int) -> int:
            return min(max(start + column - 1 - segment.column_offset, start), end)

        start, end = code_start, code_end
        if found["column"] and (found["end_line"], found["end_column"]) > (found["line"], found["column"]):
            start = character(code_start, code_end, found["column"])
            last = self._place(extraction, program, found["end_line"])
            end = character(last[2], last[3], found["end_column"]) if last and last[0] is segment else code_end
        return {"block": segment.block, "block_line": block_line, "start": start, "end": end}


# ---- the session's part: a request in, a JSON-able verdict out


def judge(session, request: CodeRequest) -> dict:
    if request.format != "kite":
        verdict = formats.check_format(session, request.format, request.text, request.regex_flavor)
        return {"reason": verdict.reason, "diagnostics": [d.to_json() for d in verdict.diagnostics]}
    return judge_kite(session, request)


def judge_kite(session, request: CodeRequest) -> dict:
    from kite.units import Unit

    program = SourceFile(PROGRAM_PATH, request.text)
    tests = tuple(SourceFile(path, text) for path, text in request.tests)
    verdict: dict = {"reason": "", "tests": None, "own_tests": [], "tampered": False, "limits": None}
    report = None
    if tests:
        try:
            report = session.test(Unit(program, tests), hidden={test.path for test in tests}, timeout_seconds=request.time_limit)
        except UnusableInput as error:  # the hidden tests cannot meet this program (another module, no tests)
            verdict["reason"] = str(error)
    if report is None:
        analysis = session.analyze(Unit(program))
        check, module = analysis.result, analysis.modules[0]
    else:  # the program as the test's check parsed it
        check, module = report.check, report.modules[0]
        verdict["tests"] = [outcome_json(outcome) for outcome in report.outcomes]
        verdict["own_tests"] = [outcome_json(outcome) for outcome in report.own_outcomes]
        verdict["tampered"] = report.tampered
        verdict["limits"] = {"timeout_seconds": report.limits.timeout_seconds, "budget_seconds": report.limits.budget_seconds}
        verdict["reason"] = signatures.differing(module, request.signatures)
    verdict["diagnostics"] = [d.to_json() for d in check.diagnostics]
    verdict["layers_run"] = list(check.layers_run)
    verdict["skipped"] = list(check.skipped)
    verdict["applies"] = applicability(module, request.module_line_written)
    return verdict


def applicability(module, module_line_written: bool) -> dict[str, bool]:
    """Which rules apply to the answer's own code in `module` (not to the module line or wrapper a reading added)."""
    own = None if module is None else own_code(module, module_line_written)
    return {rule.RULE.id: own is not None and bool(rule.applies(own)) for rule in ALL_RULES}


def outcome_json(outcome) -> dict:
    return {"name": outcome.case.name, "file": outcome.case.file, "line": outcome.case.line, "status": outcome.status, "message": outcome.message}


# ---- the result line


def ungradable(line: int, answer_id, task_id, kind: str, message: str) -> dict:
    """An answer that could not be graded: it stays in every denominator, counted and listed."""
    return {"schema": SCHEMA_VERSION, "line": line, "id": answer_id, "task": task_id, "graded": False,
            "problem": {"kind": kind, "message": message}}


@dataclass(frozen=True)
class Prepared:
    """An answer read and its code found, waiting for its verdict."""

    line: int
    answer_id: object
    task: Task | None
    format: str
    answer: str
    extraction: Extraction | None  # kite answers only
    program: Program | None
    request: CodeRequest | None  # None: nothing for a session to judge (no code)
    model_score: float | None
    task_id: str | None = None  # the task's id; for another format, the id its line gives (it needs no task folder)


def prepare(line: int, answer_id, answer: str, task: Task | None, fmt: str, regex_flavor: str, model_score,
            task_id: str | None = None) -> Prepared | dict:
    """The answer ready to judge, or the result of one that cannot be (a dict)."""
    task_id = task.id if task is not None else task_id
    if fmt != "kite":
        return Prepared(line, answer_id, None, fmt, answer, None, None, CodeRequest(fmt, answer, (), regex_flavor), model_score, task_id)
    extraction = extract(answer)
    # The Kite layer reads the code in this process, before any budget: no more of it than of a .kite file (prose is
    # only searched). The other formats go whole to the compile process, under its time and memory budget.
    problem = too_large("the answer's Kite code", "\n".join(block.text for block in extraction.blocks if block.is_kite))
    if problem:
        return ungradable(line, answer_id, task_id, "too large", problem)
    module = task.module if task is not None else None
    program = program_of(extraction, module or DEFAULT_MODULE)
    request = None
    if program is not None:
        # Hidden tests of another module cannot meet the program: it is graded on the static layers and fails.
        meets_tests = task is not None and program.module == task.module
        tests = tuple((test.path, test.text) for test in task.tests) if task is not None and meets_tests else ()
        time_limit = task.time_limit if task is not None and tests else None
        request = CodeRequest("kite", program.source, tests, time_limit=time_limit,
                              module_line_written=program.readings[0][1].how == "module",
                              signatures=task.signatures if task is not None and tests else ())
    return Prepared(line, answer_id, task, fmt, answer, extraction, program, request, model_score, task_id)


def assemble(prepared: Prepared, verdict: dict | None, reveal: str = "tests") -> dict:
    result: dict[str, Any] = {"schema": SCHEMA_VERSION, "line": prepared.line, "id": prepared.answer_id,
              "task": prepared.task_id, "graded": True, "problem": None,
              "format": prepared.format}
    if prepared.format == "kite":
        result.update(kite_result(prepared, verdict, reveal))
        deciding = result["passes"] if result["passes"] is not None else result["compiles"]
    else:
        assert verdict is not None, "an answer in another format always has a request, so a verdict"
        result["valid"] = not verdict["reason"]
        result["reasons"] = [verdict["reason"]] if verdict["reason"] else []
        result["diagnostics"] = verdict["diagnostics"]
        deciding = result["valid"]
    result["score"] = formats.FULL_SCORE if deciding else 0.0
    result["model_score"] = prepared.model_score
    result["final_score"] = None if prepared.model_score is None else (result["score"] + prepared.model_score) / 2
    return result


def kite_result(prepared: Prepared, verdict: dict | None, reveal: str = "tests") -> dict:
    extraction, program, task = prepared.extraction, prepared.program, prepared.task
    assert extraction is not None, "prepare() extracts every kite answer"
    blocks = [{"language": b.language, "fence": b.fence, "is_kite": b.is_kite, "start": b.start, "end": b.end} for b in extraction.blocks]
    for index, reading in program.readings if program else ():
        blocks[index]["read_as"] = reading.how
    reasons: list[str] = []
    if program is None:
        other = sorted({b.language for b in extraction.blocks if not b.is_kite and b.language})
        reasons.append("no Kite code" + (f" (code in {', '.join(other)} is not graded as Kite)" if other else ""))
        verdict = {"diagnostics": [], "tests": [] if task is not None else None, "own_tests": [], "tampered": False,
                   "limits": None, "applies": {}, "layers_run": [], "skipped": [], "reason": ""}
    assert verdict is not None, "a program always has a request, so a verdict"
    if task is not None and program is not None and program.module != task.module:
        reasons.append(f"the answer is module '{program.module}', the task's module is '{task.module}'")
    if verdict["reason"]:
        reasons.append(verdict["reason"])
    diagnostics, lines = [], None
    for found in verdict["diagnostics"]:
        shown = dict(found)
        if found["file"] == PROGRAM_PATH and program is not None:
            lines = lines or AnswerLines(prepared.answer)
            shown["span"] = lines.span(extraction, program, found)
        diagnostics.append(shown)
    if program is not None:  # what a rule does not judge in a fragment is not reported; in a whole-file block beside it, it is
        fragments = fragment_lines(program)
        diagnostics = [d for d in diagnostics if not (d["file"] == PROGRAM_PATH and d["id"] in UNJUDGED_IN_FRAGMENTS
                                                      and any(d["line"] in lines for lines in fragments))]
    if reveal != "tests":  # nothing of the hidden tests' code, places or values
        diagnostics = [d if d["file"] == PROGRAM_PATH else {**{k: v for k, v in d.items() if k != "fix"}, **CONCEALED_DIAGNOSTIC}
                       for d in diagnostics]
    own = [d for d in diagnostics if d["file"] == PROGRAM_PATH]
    has_code = program is not None
    compiles = has_code and not any(d["severity"] == "error" for d in own) and Layer.COMPILER in verdict["layers_run"]
    clean = compiles and not own
    tests = verdict["tests"]
    if tests is not None and reveal != "tests":
        tests = [{**t, "name": concealed_name(t["name"], number, reveal), "file": CONCEALED_FILE, "line": 0,
                  "message": concealed_message(t["status"], t["message"], reveal)} for number, t in enumerate(tests, start=1)]
    passes = None
    if task is not None:
        passes = compiles and bool(tests) and all(t["status"] == "pass" for t in tests) and not verdict["tampered"] and not reasons
    if verdict["tampered"]:
        reasons.append("the answer forged its test results")
    layers = {layer: {"errors": sum(d["layer"] == layer and d["severity"] == "error" for d in own),
                      "warnings": sum(d["layer"] == layer and d["severity"] == "warning" for d in own)}
              for layer in STATIC_LAYERS}
    if tests is not None:
        layers[Layer.TESTS] = {"passed": sum(t["status"] == "pass" for t in tests), "failed": sum(t["status"] != "pass" for t in tests)}
    fired = frozenset(d["id"] for d in own)
    rules = rule_verdicts(program, verdict["applies"], fired)
    failed_layers: set[Layer] = {layer for layer, counts in layers.items() if layer != Layer.TESTS and (counts["errors"] or counts["warnings"])}
    if passes is False:
        failed_layers.add(Layer.TESTS)
    outcome = Outcome(has_code, compiles, clean, passes, "KT004" in fired, fired, frozenset(failed_layers))
    found_claims = claims(claimed_text(prepared.answer, extraction), outcome)
    return {
        "has_code": has_code, "compiles": compiles, "clean": clean, "passes": passes, "leaked": "KT004" in fired,
        "module": program.module if program else None, "reasons": reasons, "blocks": blocks, "layers": layers,
        "layers_run": verdict["layers_run"], "skipped": verdict["skipped"], "rules": rules, "diagnostics": diagnostics,
        "tests": tests, "own_tests": verdict["own_tests"], "limits": verdict["limits"],
        "claims": [{"kind": c.kind, "start": c.start, "end": c.end, "sentence": c.sentence, "false": c.false, "reason": c.reason}
                   for c in found_claims],
        "slop": [{"category": h.category, "phrase": h.phrase, "start": h.start, "end": h.end} for h in slop(extraction.prose)],
    }


# Blocks that show what a run printed (or untagged and not Kite): "All 6 tests passed" made up there is a claim too.
OUTPUT_LANGUAGES = frozenset({"", "text", "txt", "plaintext", "plain", "output", "console", "terminal", "shell", "sh", "bash",
                              "zsh", "shell-session", "log"})


def claimed_text(answer: str, extraction: Extraction) -> str:
    """The prose with every output block put back in place (same length): where claims are looked for."""
    text, position = [], 0
    for block in extraction.blocks:
        if not block.is_kite and block.language in OUTPUT_LANGUAGES:
            text += [extraction.prose[position:block.start], answer[block.start:block.end]]
            position = block.end
    return "".join(text) + extraction.prose[position:]


def rule_verdicts(program: Program | None, applies: dict, fired: frozenset[str]) -> dict[str, str]:
    """pass, fail or n/a per KT rule, judged on the answer's own code: n/a where that code has nothing the rule
    judges (the module line and the function wrapper a reading added do not count), or where a rule that judges
    whole files only has no whole file to judge; otherwise fail when it fired. A usage snippet beside a whole
    module leaves that module judged by every rule."""
    verdicts = {}
    readings = [] if program is None else [reading for _, reading in program.readings]
    for rule in ALL_RULES:
        rule_id = rule.RULE.id
        judged = readings if rule.judges_fragments else [reading for reading in readings if reading.how not in FRAGMENT_READINGS]
        if not judged:
            verdicts[rule_id] = "n/a"
        elif rule_id in fired:
            verdicts[rule_id] = "fail"
        elif len(readings) == 1:  # the program is this one block: the session's answer, on its own code, stands
            verdicts[rule_id] = "pass" if applies.get(rule_id) else "n/a"
        else:
            verdicts[rule_id] = "pass" if any(applies_to(rule, reading, applies) for reading in judged) else "n/a"
    return verdicts


def applies_to(rule, reading: Reading, applies: dict) -> bool:
    """Whether `rule` applies to one block's own code; a block that does not parse, or a huge one (not parsed
    again), falls back to the session's answer for the whole program."""
    module = parsed(reading.source) if len(reading.source) <= MAX_PROBED_CHARS else None
    if module is None:
        return bool(applies.get(rule.RULE.id))
    return bool(rule.applies(own_code(module, reading.how == "module")))


def fragment_lines(program: Program) -> list[range]:
    """The program lines of each block read as a fragment, with the lines its reading added (module line, wrapper)."""
    return [range(segment.first_line - reading.line_offset, segment.first_line - reading.line_offset + reading.source.count("\n") + 1)
            for segment, (_, reading) in zip(program.segments, program.readings) if reading.how in FRAGMENT_READINGS]


UNJUDGED_IN_FRAGMENTS = frozenset(rule.RULE.id for rule in ALL_RULES if not rule.judges_fragments)
