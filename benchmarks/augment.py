"""kite tasks augment numbers: the whole task set through one session, and where the time goes.

Every stage of the session is timed as augment calls it: the front end and code generation (analyze), Roslyn
(emit: C# to an assembly), the analyzers (the one pass over each task's augmented file), and the sandboxed test
processes (run_image: waiting for a process and running the tests), each split by what it was for: the mutants
against the hidden tests, the reference's and the survivors' runs on the generated inputs (the probe), the check of
the written expects, the survivors again with them.

    .venv/bin/python benchmarks/augment.py [--tasks samples/tasks] [--seed 0]

Target (issue 25): a 12-task set augmented in under 2 minutes on this 2-core machine.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from contextlib import contextmanager

from kite.diagnostics import Layer
from kite.scoring.tasks import TaskFolder
from kite.session import Session
from kite.tasks.augment import Options, augment_tasks
from kite.tasks.probe import PROBE_FILE

STAGES = ("analyze", "emit", "run_image")


class Timings:
    def __init__(self):
        self.seconds: dict[tuple[str, str], float] = defaultdict(float)
        self.calls: dict[tuple[str, str], int] = defaultdict(int)
        self.purpose = "other"

    @contextmanager
    def timed(self, stage: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[stage, self.purpose] += time.perf_counter() - start
            self.calls[stage, self.purpose] += 1


def instrument(session: Session, timings: Timings) -> None:
    """Wraps the session's stages on this one object: each call timed under what the test call was for."""
    test = session.test

    def timed_test(unit, hidden=None, timeout_seconds=None, through=Layer.ANALYZERS, stop_at_failure=False):
        paths = [source.path for source in unit.tests]
        if any(path.endswith(PROBE_FILE) for path in paths):
            timings.purpose = "probe: generated inputs"
        elif through == Layer.ANALYZERS:
            timings.purpose = "check: the written expects"
        elif any(path.endswith("augmented.test.kite") for path in paths):
            timings.purpose = "survivors: with the expects"
        else:
            timings.purpose = "mutants: hidden tests"
        return test(unit, hidden, timeout_seconds, through, stop_at_failure)

    session.test = timed_test
    for stage in STAGES:
        original = getattr(session, stage)

        def wrapped(*args, _original=original, _stage=stage, **kwargs):
            with timings.timed(_stage):
                return _original(*args, **kwargs)

        setattr(session, stage, wrapped)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default="samples/tasks")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    folder = TaskFolder(args.tasks)
    timings = Timings()
    start = time.perf_counter()
    with Session() as session:
        instrument(session, timings)
        warm = time.perf_counter()
        _ = session.pool  # the test host compiled and the first process started: the session's own start-up
        started = time.perf_counter() - warm
        done = augment_tasks(session, folder, Options(seed=args.seed))
        processes = session.pool.started
    total = time.perf_counter() - start
    mutants = sum(len(task.before.results) for task in done if task.before is not None)
    inputs = sum(task.inputs for task in done)
    print(f"{len(done)} tasks ({args.tasks}): {mutants} mutants, {inputs} generated inputs, "
          f"{sum(len(task.expects) for task in done)} expects chosen, {processes} test processes")
    print(f"total {total:6.1f} s   (target < 120 s for 12 tasks)")
    print(f"  session start-up (test host, first process) {started:6.1f} s")
    purposes = sorted({purpose for _, purpose in timings.seconds})
    for purpose in purposes:
        parts = [f"{stage} {timings.seconds[stage, purpose]:5.1f} s/{timings.calls[stage, purpose]}" for stage in STAGES]
        print(f"  {purpose:<30} {sum(timings.seconds[stage, purpose] for stage in STAGES):6.1f} s   ({', '.join(parts)})")
    accounted = started + sum(timings.seconds.values())
    print(f"  elsewhere (reading, mutants, inputs, CoreCLR start) {total - accounted:6.1f} s")


if __name__ == "__main__":
    main()
