"""`kite score`: read a run (JSON lines), grade every answer once, write each result line as soon as it is known.

The costly judging runs on one of three executors with the same interface: in this process (--jobs 1), in worker
processes each holding a warm session (--jobs N), or on a Dask cluster (--dask ADDRESS). Identical requests are
judged once per run, and, with a cache folder, once per toolchain."""

from __future__ import annotations

import atexit
import collections
import concurrent.futures
import dataclasses
import fcntl
import hashlib
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kite.atomic import write_atomically
from kite.errors import ToolchainError, UnusableInput
from kite.own_files import own_files
from kite.rules.kt010_compile_budget import DEFAULT_COMPILE_TIMEOUT
from kite.scoring import formats
from kite.scoring.grading import SCHEMA_VERSION, CodeRequest, Prepared, assemble, judge, prepare, ungradable
from kite.scoring.summary import summarize
from kite.scoring.tasks import TaskFolder, valid_task_id
from kite.spawn import process_executor
from kite.testing.worker import Limits
from kite.source import reading_errors


@dataclass(frozen=True)
class SessionSettings:
    """How each worker's session runs the hidden tests."""

    sandboxed: bool = True
    timeout_seconds: float = Limits.timeout_seconds
    budget_seconds: float = Limits.budget_seconds
    compile_timeout_seconds: float = DEFAULT_COMPILE_TIMEOUT

    def open(self):
        from kite.session import Session

        limits = Limits(timeout_seconds=self.timeout_seconds, budget_seconds=self.budget_seconds)
        return Session(limits=limits, sandboxed=self.sandboxed, compile_timeout=self.compile_timeout_seconds)


@dataclass(frozen=True)
class ScoreOptions:
    run: str
    answer_field: str  # dotted path to the answer's text (--field)
    out: str
    tasks: str | None = None
    task_field: str = "task_id"
    id_field: str | None = None
    format_field: str | None = None
    model_score_field: str | None = None
    regex_flavor: str = "dotnet"
    resume: bool = False
    jobs: int = 1
    dask: str | None = None
    cache: str | None = None
    session: SessionSettings = field(default_factory=SessionSettings)


def summary_path(out: str) -> Path:
    path = Path(out)
    return path.with_name(path.name.removesuffix(".jsonl") + ".summary.json")


# ---- reading the run


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


def run_lines(path: str) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of every line that is not blank, read as a stream."""
    with reading_errors(path, "a JSON lines file"), open(path, "rb") as run:
        for number, raw in enumerate(run, start=1):
            if raw.strip():
                yield number, raw


@dataclass(frozen=True)
class Line:
    number: int
    document: dict | None
    problem: tuple[str, str] | None  # (kind, message) when the line is not even a JSON object


def parse_line(number: int, raw: bytes) -> Line:
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


def task_ids_named(options: ScoreOptions) -> set[str]:
    named = set()
    for number, raw in run_lines(options.run):
        line = parse_line(number, raw)
        if line.document is not None:
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
        self.grading = json.dumps([options.answer_field, options.task_field, options.id_field, options.format_field,
                                   options.model_score_field, options.regex_flavor, dataclasses.asdict(options.session),
                                   tasks and [(t.id, t.module, t.time_limit, [(f.path, f.text) for f in t.tests]) for t in tasks]],
                                  sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")

    def digest(self, raw: bytes) -> str:
        """A result's `input_sha256`: its run line (without the line end) and everything else that decides it."""
        return hashlib.sha256(self.grading + b"\0" + raw.rstrip(b"\r\n")).hexdigest()

    def read(self, number: int, raw: bytes) -> Prepared | dict:
        options = self.options
        line = parse_line(number, raw)
        if line.problem is not None:
            return ungradable(number, None, None, *line.problem)
        document = line.document
        answer_id = dotted(document, options.id_field) if options.id_field else None
        # NaN and 1e999 parse (Python's json allows them) but would write a results file no strict JSON reader opens
        if answer_id is MISSING or isinstance(answer_id, (dict, list)) or (isinstance(answer_id, float) and not math.isfinite(answer_id)):
            return ungradable(number, None, None, "missing field", f"no usable id at {options.id_field!r}")
        task = task_id = None
        if self.tasks is not None:
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
        fmt = "kite"
        if options.format_field:
            fmt = dotted(document, options.format_field)
            fmt = "kite" if fmt is MISSING else fmt
            if not isinstance(fmt, str) or fmt.lower() not in formats.FORMATS:
                return ungradable(number, answer_id, task_id, "bad format", f"format {fmt!r} is not one of {', '.join(formats.FORMATS)}")
            fmt = fmt.lower()
        model_score = None
        if options.model_score_field:
            model_score = dotted(document, options.model_score_field)
            if isinstance(model_score, bool) or not isinstance(model_score, (int, float)) or not math.isfinite(model_score):
                return ungradable(number, answer_id, task_id, "missing field", f"no model score (a number) at {options.model_score_field!r}")
            model_score = float(model_score)
        return prepare(number, answer_id, answer, task, fmt, options.regex_flavor, model_score)


def json_type(value) -> str:
    return {dict: "an object", list: "an array", bool: "a boolean", int: "a number", float: "a number"}.get(type(value), "null")


# ---- where the judging runs


_worker_session = None


def _judge_in_worker(settings: SessionSettings, request: CodeRequest) -> dict:
    """One warm session per worker process (or Dask worker), opened on its first request and kept."""
    global _worker_session
    if _worker_session is None:
        _worker_session = settings.open()
        atexit.register(_worker_session.close)  # spawned workers end through sys.exit: the test processes go too
    return judge(_worker_session, request)


ANSWERS_IN_FLIGHT = 2  # --jobs 1: one answer compiles while the other's tests run in their own process


class InlineExecutor(concurrent.futures.ThreadPoolExecutor):
    """--jobs 1: one warm session in this process, judging on two threads: the compile process and the test
    processes are separate processes, so one answer's tests run while the next one compiles."""

    def __init__(self, settings: SessionSettings):
        super().__init__(max_workers=ANSWERS_IN_FLIGHT, thread_name_prefix="kite-judge")
        self.session = settings.open()

    def submit(self, fn, /, *args, **kwargs):
        return super().submit(lambda request: judge(self.session, request), args[-1])

    def shutdown(self, wait=True, *, cancel_futures=False):
        super().shutdown(wait, cancel_futures=cancel_futures)
        self.session.close()


class DaskExecutor:
    """The same submit/wait over a Dask cluster; each Dask worker keeps its own session (module state)."""

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:
            raise UnusableInput("--dask needs the distributed package (pip install distributed)") from None
        try:
            self.client = Client(address, timeout="20s")
        except (OSError, TimeoutError) as error:
            raise UnusableInput(f"--dask {address}: cannot reach the scheduler ({error})") from None

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def wait(self, futures):
        from distributed import wait

        return wait(futures, return_when="FIRST_COMPLETED").done

    def shutdown(self):
        self.client.close()


def first_done(executor, futures):
    if isinstance(executor, DaskExecutor):
        return executor.wait(futures)
    return concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_COMPLETED).done


# ---- the run


def toolchain_fingerprint() -> str:
    """What a cached verdict depends on besides its request: every file of kite's, and the .NET runtimes installed."""
    import kite
    from kite.dotnet.runtime import installed_runtimes

    digest = hashlib.sha256(kite.__version__.encode() + b"\0" + installed_runtimes().encode())
    for name, path in own_files():
        digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class VerdictCache:
    """--cache DIR: one file per verdict, named by the hash of the toolchain and the request."""

    def __init__(self, folder: str | None):
        self.folder = Path(folder) if folder else None
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)

    def get(self, key: str) -> dict | None:
        if self.folder is None:
            return None
        try:
            return json.loads((self.folder / f"{key}.json").read_text())
        except (OSError, ValueError):
            return None

    def put(self, key: str, verdict: dict) -> None:
        if self.folder is None:
            return
        write_atomically(self.folder / f"{key}.json", json.dumps(verdict).encode())  # two runs may share the folder


def ran_out_of_time(verdict: dict) -> bool:
    """A verdict that met a time limit (a test's timeout, the budget, the compile timeout) depends on the machine's load
    as much as on the answer: one busy moment must not fail a right answer in every later run, so it is not cached."""
    tests = (verdict.get("tests") or []) + (verdict.get("own_tests") or [])
    return any(test["status"] == "timeout" for test in tests) or any(d["id"] == "KT010" for d in verdict.get("diagnostics", []))


def resumed_lines(out: Path) -> dict[int, str | None]:
    """The run lines already in --out, each with the digest of the run line it graded (None in results written before
    digests were); a line cut short by a kill is dropped, so it is graded again."""
    if not out.exists():
        return {}
    data = out.read_bytes()
    kept_end = 0
    done = {}
    for raw in data.splitlines(keepends=True):
        if not raw.endswith(b"\n"):
            break
        try:
            result = json.loads(raw)
            number = result["line"]
        except (ValueError, KeyError, TypeError):
            raise UnusableInput(f"{out}: line {len(done) + 1} is not a kite score result: cannot resume into this file") from None
        if result.get("schema") != SCHEMA_VERSION:
            raise UnusableInput(f"{out}: results of schema {result.get('schema')}, this kite writes {SCHEMA_VERSION}: cannot resume")
        done[number] = result.get("input_sha256")
        kept_end += len(raw)
    if kept_end < len(data):
        with open(out, "r+b") as results:
            results.truncate(kept_end)
    return done


def locked_results(out: Path):
    """--out, opened to append and locked for this run: two runs writing one file (a job started twice) would
    interleave their lines and the summary would count answers twice."""
    try:
        results = open(out, "a", encoding="utf-8")
    except OSError as error:
        raise UnusableInput(f"{out}: cannot write the results ({error.strerror})") from None
    try:
        fcntl.flock(results, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        results.close()
        raise UnusableInput(f"{out}: another kite score is writing these results: wait for it, or give another --out") from None
    return results


def score(options: ScoreOptions, progress: Callable[[int, int], None] | None = None) -> dict:
    """Grade the run into options.out, then write and return the summary of everything in it."""
    reader = Reader(options)
    out = Path(options.out)
    results = locked_results(out)
    try:
        done = resumed_lines(out) if options.resume else {}
        total = 0
        for number, raw in run_lines(options.run):
            total += 1
            kept = done.get(number)  # None: not graded yet, or graded by a kite that wrote no digest
            if kept is not None and kept != reader.digest(raw):  # checked before any grading: nothing is appended to a wrong file
                raise UnusableInput(f"{out}: the result of line {number} grades another line, options or hidden tests than this run has: "
                                    f"cannot resume with a changed run (score it into a new --out)")
        # A verdict also depends on the limits it was judged under: a run with a shorter timeout is never served a longer one's.
        toolchain = f"{toolchain_fingerprint()} {json.dumps(dataclasses.asdict(options.session), sort_keys=True)}"
        cache = VerdictCache(options.cache)
        if options.dask:
            executor = DaskExecutor(options.dask)
        elif options.jobs > 1:
            executor = process_executor(options.jobs)
        else:
            executor = InlineExecutor(options.session)
    except BaseException:
        results.close()
        raise
    if not options.resume:  # emptied only once the executor stands: a cluster out of reach never empties earlier results
        results.truncate(0)
    in_flight_limit = ANSWERS_IN_FLIGHT if isinstance(executor, InlineExecutor) else 64 if options.dask else 2 * options.jobs
    judged: dict[str, dict] = {}  # this run's verdicts by request key: an identical answer is judged once
    waiting: dict[str, list[Prepared]] = {}
    pending: dict = {}  # future -> request key
    # Results are written in run order whatever order they are judged in, so every executor writes the same file;
    # one held back behind a slower answer is lost by a kill only to be graded again by --resume.
    unwritten: collections.deque[int] = collections.deque()  # run lines read, in order, not yet written
    held: dict[int, dict] = {}
    digests: dict[int, str] = {}  # run line -> the digest its result carries, so --resume can tell a changed run
    written = len(done)
    with results:

        def write(result: dict) -> None:
            nonlocal written
            result["input_sha256"] = digests.pop(result["line"])
            held[result["line"]] = result
            while unwritten and unwritten[0] in held:
                results.write(json.dumps(held.pop(unwritten.popleft()), ensure_ascii=True, sort_keys=True) + "\n")
                results.flush()  # a kill loses at most the line being written; --resume grades it again
                written += 1
                if progress is not None:
                    progress(written, total)

        def finish(key: str, verdict: dict | None, fault: str = "") -> None:
            for prepared in waiting.pop(key):
                if fault:
                    write(ungradable(prepared.line, prepared.answer_id, prepared.task.id if prepared.task else None, "grader fault", fault))
                else:
                    write(assemble(prepared, verdict))

        def collect(futures) -> None:
            for future in futures:
                key = pending.pop(future)
                try:
                    verdict = future.result()
                except (ToolchainError, KeyboardInterrupt):
                    raise
                except Exception as error:  # a bug in kite, or a worker lost: this answer's result says so
                    finish(key, None, f"{type(error).__name__}: {error}")
                    continue
                judged[key] = verdict
                if not ran_out_of_time(verdict):
                    cache.put(key, verdict)
                finish(key, verdict)

        try:
            for number, raw in run_lines(options.run):
                if number in done:
                    continue
                unwritten.append(number)
                digests[number] = reader.digest(raw)
                prepared = reader.read(number, raw)
                if isinstance(prepared, dict):
                    write(prepared)
                    continue
                if prepared.request is None:
                    write(assemble(prepared, None))
                    continue
                key = prepared.request.key(toolchain)
                verdict = judged.get(key) or cache.get(key)
                if verdict is not None:
                    judged[key] = verdict
                    write(assemble(prepared, verdict))
                    continue
                if key in waiting:
                    waiting[key].append(prepared)
                    continue
                waiting[key] = [prepared]
                try:
                    pending[executor.submit(_judge_in_worker, options.session, prepared.request)] = key
                except concurrent.futures.BrokenExecutor:
                    raise ToolchainError("a worker process died (out of memory?); the results so far are kept: --resume goes on") from None
                while len(pending) >= in_flight_limit:
                    collect(first_done(executor, list(pending)))
            while pending:
                collect(first_done(executor, list(pending)))
        finally:
            executor.shutdown()
    summary = {"schema": SCHEMA_VERSION, **summarize(read_results(out))}
    summary_path(options.out).write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return summary


def read_results(out: Path) -> list[dict]:
    with open(out, encoding="utf-8") as results:
        return [json.loads(line) for line in results if line.strip()]
