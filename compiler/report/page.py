"""`kite report`: one self-contained HTML page to review a scored run (and, with a baseline, how it moved).

The page is the template beside this file with its CSS and script inlined and the run embedded as JSON; the
script builds every view from that data with DOM text nodes, never by parsing answer text as HTML (and the page's
Content-Security-Policy forbids fetching anything), and renders one answer at a time, so 5,000 answers cost one JSON
parse, not 5,000 blocks of DOM. Offsets in the data are UTF-16 code units (JavaScript's), converted here from the
code points `kite score` counts."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from importlib import resources
from typing import Any

from pygments.formatters import HtmlFormatter
from pygments.token import STANDARD_TYPES

from kite import __version__
from kite.diagnostics import STATIC_LAYERS, Layer
from kite.display import visible
from kite.frames import underlines
from kite.report.compare import flips, rate_changes, task_changes
from kite.report.results import dumps_for_script, verdict_passed
from kite.rules import ALL_RULES
from kite.scoring.answer import extract
from kite.scoring.fragments import MODULE_LINE, as_function_body, indent_added, normalized
from kite.scoring.grading import PROGRAM_PATH
from kite.scoring.summary import DENOMINATORS, summarize, wilson
from kite.syntax.highlighting import KiteLexer


@dataclass(frozen=True)
class Run:
    """A results file, and the answers' texts when the run they came from was given."""

    name: str
    results: list[dict]
    texts: dict[int, str]
    prompts: dict[str, str] | None = None  # task id -> its prompt.md; None: the tasks folder was not given


class Utf16:
    """Code point offsets into `text` as UTF-16 offsets (identity unless the text has characters past U+FFFF)."""

    def __init__(self, text: str):
        self.starts = None
        if text and max(text) > "\uffff":
            self.starts = [0]
            for character in text:
                self.starts.append(self.starts[-1] + (2 if character > "\uffff" else 1))

    def __call__(self, offset: int) -> int:
        if self.starts is None:
            return offset
        return self.starts[max(0, min(offset, len(self.starts) - 1))]


def units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


# Pygments' short CSS classes, numbered: a 5,000-answer page carries each token as two small numbers.
TOKEN_CLASSES = sorted(set(STANDARD_TYPES.values()))
TOKEN_CLASS_INDEX = {name: index for index, name in enumerate(TOKEN_CLASSES)}


def code_tokens(code: str) -> list[int]:
    """Class index and UTF-16 length of each token of a Kite block, flat: the page slices the answer's own text."""
    lexer = KiteLexer(stripnl=False, ensurenl=False)
    flat = []
    for _, kind, value in lexer.get_tokens_unprocessed(code):
        flat += [TOKEN_CLASS_INDEX[STANDARD_TYPES.get(kind) or _parent_class(kind)], units(value)]
    return flat


def _parent_class(kind) -> str:
    while kind not in STANDARD_TYPES and kind.parent is not None:
        kind = kind.parent
    return STANDARD_TYPES.get(kind, "")


def column_offset(block_text: str, read_as: str | None) -> int:
    """How far right a reading moved the block's code (kite.scoring.fragments): program column C is column
    C - offset of the block's line in the answer. Rebuilt from how it was read, without parsing it again."""
    code = normalized(block_text)
    if read_as == "items" or (read_as == "module" and not MODULE_LINE.search(code)):
        return indent_added(code, textwrap.dedent(code))
    if read_as == "function body":
        return indent_added(code, as_function_body(code))
    return 0


def is_point(d: dict) -> bool:
    """A diagnostic that knows only where it starts (or only its line): its span is its whole code line."""
    return not d["column"] or (d.get("end_line", d["line"]), d.get("end_column", d["column"])) <= (d["line"], d["column"])


def diagnostic_view(d: dict, text: str | None, blocks: list[tuple[str, str | None]], to16) -> dict:
    """A diagnostic with where it is in the answer: the code line it belongs under and the characters it marks.

    A range is its span as `kite score` wrote it; a point (or a line) has its whole code line as its span, and marks
    the word at its column, as the terminal's code frames do."""
    view = {key: d.get(key) for key in ("id", "severity", "message", "layer", "file", "line", "column")}
    span = d.get("span")
    if text is None or d.get("file") != PROGRAM_PATH or not span:
        return view
    view["block"] = span["block"]
    view["code_line"] = to16(span["start"])
    if not is_point(d):
        view["at"] = [to16(span["start"]), to16(span["end"])]
        return view
    column = d["column"]
    line_text = text[span["start"]:span["end"]]
    answer_column = column - column_offset(*blocks[span["block"]]) if column else 0
    mark = next(iter(underlines([line_text], 1, answer_column, 1, answer_column)), None)  # one line: one mark at most
    if mark is not None:
        view["at"] = [to16(span["start"] + min(mark.start, len(line_text))), to16(span["start"] + min(mark.end, len(line_text)))]
    return view


def answer_view(result: dict, text: str | None) -> dict:
    """What the page shows and filters on for one answer; offsets in UTF-16 units."""
    to16 = Utf16(text or "")
    view = {key: result.get(key) for key in ("line", "id", "task", "graded", "problem", "format", "score", "model_score", "final_score",
                                             "passes", "compiles", "clean", "has_code", "leaked", "valid", "reasons", "tests",
                                             "own_tests", "limits")}
    view["leaks"] = sum(d.get("id") == "KT004" for d in result.get("diagnostics", []))
    view["text"] = text
    # The list and headings name the answer in one safe line: an id cannot reorder or break them (bidi, newlines).
    view["label"] = f"line {result['line']}" + (f" · {visible(str(result['id']))}" if result.get("id") is not None else "")
    view["passed"] = verdict_passed(result)
    view["failed_layers"] = failed_layers(result)
    view["failed_rules"] = [rule for rule, verdict in (result.get("rules") or {}).items() if verdict == "fail"]
    view["claims"] = [{**claim, "start": to16(claim["start"]), "end": to16(claim["end"])} for claim in result.get("claims", [])]
    view["slop"] = [{**hit, "start": to16(hit["start"]), "end": to16(hit["end"])} for hit in result.get("slop", [])]
    blocks = result.get("blocks", [])
    view["blocks"] = [{"start": to16(b["start"]), "end": to16(b["end"]), "language": b["language"], "kite": b["is_kite"],
                       "read_as": b.get("read_as"),
                       "tokens": code_tokens(text[b["start"]:b["end"]]) if text is not None and b["is_kite"] else None}
                      for b in blocks]
    extracted: list[tuple[str, str | None]] = []  # read only for a point diagnostic with a span
    if text is not None and any(d.get("span") and is_point(d) for d in result.get("diagnostics", [])):
        extracted = [(block.text, b.get("read_as")) for block, b in zip(extract(text).blocks, blocks)]
    view["diagnostics"] = [diagnostic_view(d, text, extracted, to16) for d in result.get("diagnostics", [])]
    return view


def failed_layers(result: dict) -> list[Layer]:
    layers = result.get("layers") or {}
    found = [name for name in STATIC_LAYERS if name in layers and (layers[name]["errors"] or layers[name]["warnings"])]
    if Layer.TESTS in layers and (layers[Layer.TESTS]["failed"] or result.get("passes") is False):
        found.append(Layer.TESTS)
    return found


def kite_lines(results: list[dict]) -> list[dict]:
    """The answers every Kite rate counts over: graded Kite answers and the lines that could not be graded
    (summary.OF_KITE_LINES); answers in another format are in their format's rate, never failed Kite answers."""
    return [r for r in results if not r["graded"] or r.get("format") == "kite"]


def task_rows(results: list[dict]) -> list[dict]:
    """Per task, over its Kite answers and its lines that could not be graded: how many, and the rates of
    compiling and passing (Wilson 95%)."""
    tasks: dict[str, list[dict]] = {}
    for result in kite_lines(results):
        if result["task"] is not None:
            tasks.setdefault(str(result["task"]), []).append(result)
    return [{"task": task, "answers": len(group),
             "compiles": wilson(sum(bool(r.get("compiles")) for r in group), len(group)),
             "passes": wilson(sum(r.get("passes") is True for r in group), len(group))}
            for task, group in sorted(tasks.items())]


FUNNEL = (("has_code", "has code"), ("compiles", "and compiles"), ("clean", "and is clean"), ("passes", "and passes"))


def funnel(results: list[dict]) -> list[dict]:
    """The four layers in turn, over the Kite answers and the lines that could not be graded: each step counts the
    answers that reached it and every step before it, and its loss is how many of the previous step's answers it
    lost (a Wilson 95% interval over those answers). Without hidden tests the funnel ends at clean."""
    lines = kite_lines(results)
    steps = FUNNEL if any(r.get("passes") is not None for r in lines) else FUNNEL[:-1]
    reached, rows = lines, []
    for key, label in steps:
        kept = [r for r in reached if r.get(key) is True]
        rows.append({"key": key, "label": label, "rate": wilson(len(kept), len(lines)),
                     "lost": wilson(len(reached) - len(kept), len(reached))})
        reached = kept
    return rows


def rule_docs() -> dict[str, dict]:
    """Each rule's one-line text and its documentation (docs/rules.md has the same), shown beside its rate."""
    return {rule.RULE.id: {"summary": rule.RULE.summary, "rationale": rule.RULE.rationale, "example": rule.RULE.example,
                           "fix": rule.RULE.fix} for rule in ALL_RULES}


def page_data(run: Run, others: list[Run] | tuple[Run, ...] = ()) -> dict:
    """Everything the page shows, as JSON-able data: the summary, the funnel and per-task table, every answer's
    view, and each other run compared with this one (this run minus that one) when there are others."""
    tasks = task_rows(run.results)
    data: dict[str, Any] = {"name": run.name, "version": __version__, "token_classes": TOKEN_CLASSES, "summary": summarize(run.results),
            "tasks": tasks, "funnel": funnel(run.results), "rule_docs": rule_docs(),
            "denominators": DENOMINATORS, "has_texts": bool(run.texts), "prompts": run.prompts,
            "answers": [answer_view(result, run.texts.get(result["line"])) for result in run.results]}
    data["comparisons"] = [{"name": other.name, "answers": len(other.results),
                            "changes": rate_changes(data["summary"], summarize(other.results)),
                            "tasks": task_changes(tasks, task_rows(other.results)), "flips": flips(run.results, other.results)}
                           for other in others]
    return data


def _asset(name: str) -> str:
    return resources.files("kite.report").joinpath(name).read_text(encoding="utf-8")


def render(run: Run, others: list[Run] | tuple[Run, ...] = ()) -> str:
    """The whole page: one file, nothing fetched, everything from the answers embedded as inert JSON."""
    css = _asset("page.css") + HtmlFormatter(style="default").get_style_defs(".code")
    page = _asset("page.html")
    for marker, value in (("/*KITE:CSS*/", css), ("/*KITE:SCRIPT*/", _asset("page.js")),
                          ("/*KITE:DATA*/", dumps_for_script(page_data(run, others)))):
        before, after = page.split(marker)
        page = before + value + after
    return page
