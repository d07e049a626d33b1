"""`kite score`: read a run (JSON lines), grade every answer once, write each result line as soon as it is known.

The run's lines are read by kite.scoring.reading; the costly judging runs on one of three executors with the same
interface (kite.scoring.executors); identical requests are judged once per run, and, with a cache folder, once per
toolchain (kite.scoring.cache); the results file is locked and resumed by kite.scoring.resume."""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kite.atomic import write_atomically
from kite.errors import ToolchainError, UnusableInput
from kite.scoring.cache import VerdictCache, ran_out_of_time, toolchain_fingerprint
from kite.scoring.executors import (
    ANSWERS_IN_FLIGHT,
    DaskExecutor,
    InlineExecutor,
    SessionSettings,
    first_done,
    judge_in_worker,
)
from kite.scoring.grading import SCHEMA_VERSION, Prepared, assemble, ungradable
from kite.scoring.reading import DEFAULT_MAX_LINE_BYTES, Reader, run_lines
from kite.scoring.resume import locked_results, read_results, resumed_lines
from kite.scoring.summary import summarize
from kite.spawn import process_executor


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
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    reveal: str = "tests"  # what results show of the hidden tests (kite.defaults.REVEALS)
    session: SessionSettings = field(default_factory=SessionSettings)


# The answers in flight are not written: a result saying "grader fault" would be kept by --resume, never graded.
WORKER_LOST = "a worker process died (out of memory?); the results so far are kept: --resume goes on"


def summary_path(out: str) -> Path:
    path = Path(out)
    return path.with_name(path.name.removesuffix(".jsonl") + ".summary.json")


def score(options: ScoreOptions, progress: Callable[[int, int], None] | None = None) -> dict:
    """Grade the run into options.out, then write and return the summary of everything in it."""
    reader = Reader(options)
    out = Path(options.out)
    results = locked_results(out)
    try:
        done = resumed_lines(out) if options.resume else {}
        total = 0
        for number, raw in run_lines(options.run, options.max_line_bytes):
            total += 1
            kept = done.get(number)  # None: not graded yet, or graded by a kite that wrote no digest
            if kept is not None and kept != reader.digest(raw):  # checked before any grading: nothing is appended to a wrong file
                raise UnusableInput(f"{out}: the result of line {number} grades another line, options or hidden tests than this run has: "
                                    f"cannot resume with a changed run (score it into a new --out)")
        # A verdict also depends on the limits it was judged under: a run with a shorter timeout is never served a longer one's.
        toolchain = f"{toolchain_fingerprint()} {json.dumps(dataclasses.asdict(options.session), sort_keys=True)}"
        cache = VerdictCache(options.cache)
        executor: DaskExecutor | concurrent.futures.Executor
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
                    write(ungradable(prepared.line, prepared.answer_id, prepared.task_id, "grader fault", fault))
                else:
                    write(assemble(prepared, verdict, options.reveal))

        def collect(futures) -> None:
            for future in futures:
                key = pending.pop(future)
                try:
                    verdict = future.result()
                except (ToolchainError, KeyboardInterrupt):
                    raise
                except concurrent.futures.BrokenExecutor:  # its worker died (killed, out of memory): not the answer's doing
                    raise ToolchainError(WORKER_LOST) from None
                except Exception as error:  # a bug in kite: this answer's result says so
                    finish(key, None, f"{type(error).__name__}: {error}")
                    continue
                judged[key] = verdict
                if not ran_out_of_time(verdict):
                    cache.put(key, verdict)
                finish(key, verdict)

        try:
            for number, raw in run_lines(options.run, options.max_line_bytes):
                if number in done:
                    continue
                unwritten.append(number)
                digests[number] = reader.digest(raw)
                prepared = reader.read(number, raw)
                if isinstance(prepared, dict):
                    write(prepared)
                    continue
                if prepared.request is None:
                    write(assemble(prepared, None, options.reveal))
                    continue
                key = prepared.request.key(toolchain)
                verdict = judged.get(key) or cache.get(key)
                if verdict is not None:
                    judged[key] = verdict
                    write(assemble(prepared, verdict, options.reveal))
                    continue
                if key in waiting:
                    waiting[key].append(prepared)
                    continue
                waiting[key] = [prepared]
                try:
                    pending[executor.submit(judge_in_worker, options.session, prepared.request)] = key
                except concurrent.futures.BrokenExecutor:
                    raise ToolchainError(WORKER_LOST) from None
                while len(pending) >= in_flight_limit:
                    collect(first_done(executor, list(pending)))
            while pending:
                collect(first_done(executor, list(pending)))
            # Written as soon as the last result is: stopping the workers (their sessions, compile and test
            # processes) can take seconds, and nothing the summary says depends on it. Whole or not at all: a full
            # disk must not leave an empty summary beside the results.
            summary = {"schema": SCHEMA_VERSION, **summarize(read_results(out))}
            write_atomically(summary_path(options.out), (json.dumps(summary, indent=1, sort_keys=True) + "\n").encode())
        finally:
            executor.shutdown()
    return summary
