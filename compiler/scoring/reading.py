"""Reading a run for `kite score`: its lines as a stream, each to a Prepared answer or to the result of an answer
that cannot be graded (a broken line, a missing field, an unknown task or format)."""

from __future__ import annotations

import codecs
import dataclasses
import hashlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kite.defaults import COMPILE_MEMORY_MB
from kite.errors import UnusableInput
from kite.scoring import formats
from kite.scoring.grading import Prepared, prepare, ungradable
from kite.scoring.tasks import TaskFolder, valid_task_id
from kite.source import not_unicode, open_regular, reading_errors, wide_encoding

if TYPE_CHECKING:
    from kite.scoring.run import ScoreOptions

MISSING = object()


def dotted(document, path: str):
    """`a.b.0.c` into nested objects and lists; MISSING when any step is absent."""
    value = document
    for step in path.split("."):
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            return MISSING
    return value


# Far above any honest answer line (a 5 MB answer, escaped, is under 32 MiB); a bound on what one line costs to hold.
DEFAULT_MAX_LINE_BYTES = 32 << 20
SKIP_CHUNK = 1 << 20


def run_lines(path: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of every line that is not blank, read as a stream. A line over `max_line_bytes` is never
    held whole: its first max_line_bytes + 1 bytes stand for it (parse_line says it is too long). A BOM before the
    first line is dropped, as it is from a .kite file. JSON text never holds a NUL byte: a file with one is unusable,
    as a binary .kite file is (before any line is graded: `kite score` reads the run through once first)."""
    with reading_errors(path, "a JSON lines file"), open(open_regular(path, "a JSON lines file"), "rb") as run:
        number = 0
        while raw := run.readline(max_line_bytes + 2):  # the content, one byte over, and a line end
            number += 1
            if number == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
                encoding = wide_encoding(raw)
                if encoding:
                    raise UnusableInput(f"{path}: {encoding} text, not UTF-8: a JSON lines file is read as UTF-8")
            if b"\x00" in raw:
                raise UnusableInput(f"{path}: binary file (NUL byte on line {number}), not a JSON lines file")
            if len(raw.rstrip(b"\r\n")) > max_line_bytes:
                raw = raw[: max_line_bytes + 1]
                while not raw.endswith(b"\n") and (rest := run.readline(SKIP_CHUNK)):  # the rest, read and dropped
                    raw = raw[: max_line_bytes + 1] + (b"\n" if rest.endswith(b"\n") else b"")
            if raw.strip():
                yield number, raw


@dataclass(frozen=True)
class Line:
    number: int
    document: dict | None
    problem: tuple[str, str] | None  # (kind, message) when the line is not even a JSON object


def parse_line(number: int, raw: bytes, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Line:
    if len(raw.rstrip(b"\r\n")) > max_line_bytes:
        return Line(number, None, ("line too long", f"more than {max_line_bytes:,} bytes, the limit of a run line (--max-line-bytes)"))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return Line(number, None, ("invalid utf-8", f"byte 0x{raw[error.start]:02x} at offset {error.start} is not UTF-8"))
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        return Line(number, None, ("broken line", f"not JSON: {error}"))
    if not isinstance(document, dict):
        return Line(number, None, ("broken line", f"a JSON {type(document).__name__}, not an object"))
    return Line(number, document, None)


def line_format(document: dict, options: ScoreOptions) -> str | None:
    """The format a line names, in lower case: kite when it names none; None when what it names is no format."""
    if not options.format_field:
        return "kite"
    fmt = dotted(document, options.format_field)
    if fmt is MISSING:
        return "kite"
    return fmt.lower() if isinstance(fmt, str) and fmt.lower() in formats.FORMATS else None


def task_ids_named(options: ScoreOptions) -> set[str]:
    named = set()
    for number, raw in run_lines(options.run, options.max_line_bytes):
        line = parse_line(number, raw, options.max_line_bytes)
        if line.document is not None and line_format(line.document, options) == "kite":  # other formats need no task
            task_id = dotted(line.document, options.task_field)
            if isinstance(task_id, str) and valid_task_id(task_id):
                named.add(task_id)
    return named


class Reader:
    """Each line of the run to a Prepared answer, or to the result of an answer that cannot be graded."""

    def __init__(self, options: ScoreOptions):
        self.options = options
        self.tasks = TaskFolder(options.tasks) if options.tasks else None
        tasks = None
        if self.tasks is not None:
            named = task_ids_named(options)
            missing = sorted(task_id for task_id in named if not self.tasks.exists(task_id))
            if missing:
                shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
                raise UnusableInput(f"{options.tasks}: no task folder for {shown}")
            # a task folder without tests, or with a broken task.toml, stops the run before it starts
            tasks = [self.tasks.task(task_id) for task_id in sorted(named)]
        # What decides a result besides its line: what is read from the line, the limits, and the hidden tests.
        session = dataclasses.asdict(options.session)
        if session["compile_memory_mb"] == COMPILE_MEMORY_MB:  # added since results carry digests: see below
            del session["compile_memory_mb"]
        self.grading = json.dumps([options.answer_field, options.task_field, options.id_field, options.format_field,
                                   options.model_score_field, options.regex_flavor, session,
                                   tasks and [(t.id, t.module, t.time_limit, [(f.path, f.text) for f in t.tests]) for t in tasks],
                                   # options added since results carry digests, named only when set: earlier results stay valid
                                   *([options.reveal] if options.reveal != "tests" else []),
                                   *([{"max_line_bytes": options.max_line_bytes}] if options.max_line_bytes != DEFAULT_MAX_LINE_BYTES else [])],
                                  sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")

    def digest(self, raw: bytes) -> str:
        """A result's `input_sha256`: its run line (without the line end) and everything else that decides it."""
        return hashlib.sha256(self.grading + b"\0" + raw.rstrip(b"\r\n")).hexdigest()

    def read(self, number: int, raw: bytes) -> Prepared | dict:
        options = self.options
        line = parse_line(number, raw, options.max_line_bytes)
        if line.problem is not None:
            return ungradable(number, None, None, *line.problem)
        document = line.document
        assert document is not None  # a line without a problem is a JSON object
        answer_id = dotted(document, options.id_field) if options.id_field else None
        # NaN and 1e999 parse (Python's json allows them) but would write a results file no strict JSON reader opens
        if answer_id is MISSING or isinstance(answer_id, (dict, list)) or (isinstance(answer_id, float) and not math.isfinite(answer_id)):
            return ungradable(number, None, None, "missing field", f"no usable id at {options.id_field!r}")
        fmt = line_format(document, options)
        task = task_id = None
        if self.tasks is not None and fmt != "kite":  # graded by its format (or not a format): a task id only labels it
            found = dotted(document, options.task_field)
            task_id = found if isinstance(found, str) else None
        elif self.tasks is not None:
            task_id = dotted(document, options.task_field)
            if not isinstance(task_id, str):
                return ungradable(number, answer_id, None, "missing field", f"no task id (a string) at {options.task_field!r}")
            if not valid_task_id(task_id):
                return ungradable(number, answer_id, None, "bad task id", f"{task_id!r} cannot name a task folder")
            task = self.tasks.task(task_id)
        answer = dotted(document, options.answer_field)
        if answer is MISSING:
            return ungradable(number, answer_id, task_id, "missing field", f"no field {options.answer_field!r}")
        if not isinstance(answer, str):
            return ungradable(number, answer_id, task_id, "missing field", f"{options.answer_field!r} is {json_type(answer)}, not a string")
        refused = not_unicode(options.answer_field, answer)
        if refused is not None:  # JSON can write what no UTF-8 text holds
            return ungradable(number, answer_id, task_id, "not unicode", str(refused))
        if fmt is None:
            named = dotted(document, options.format_field or "")
            return ungradable(number, answer_id, task_id, "bad format", f"format {named!r} is not one of {', '.join(formats.FORMATS)}")
        model_score = None
        if options.model_score_field:
            model_score = dotted(document, options.model_score_field)
            # Compared, never converted first: a 400-digit int overflowed float() and ended the run (exit 3), and
            # 11 or -1 moved final_score off its 0-10 scale; NaN and infinities fail the comparison too.
            if isinstance(model_score, bool) or not isinstance(model_score, (int, float)) or not 0 <= model_score <= 10:
                return ungradable(number, answer_id, task_id, "missing field",
                                  f"no model score (a number from 0 to 10) at {options.model_score_field!r}")
            model_score = float(model_score)
        return prepare(number, answer_id, answer, task, fmt, options.regex_flavor, model_score, task_id)


def json_type(value) -> str:
    return {dict: "an object", list: "an array", bool: "a boolean", int: "a number", float: "a number"}.get(type(value), "null")
