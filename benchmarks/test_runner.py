"""Hidden-test numbers: answers per second (200 programs x 4 tests), the cost of a timeout, peak RSS.

    .venv/bin/python benchmarks/test_runner.py
"""

from __future__ import annotations

import resource
import time

PROGRAM = """module Answer{n}

fn add(a: int, b: int) -> int
    return a + b + {n} - {n}

test "adds"
    expect add(1, 2) == 3

test "adds negatives"
    expect add(-1, -2) == -3

test "adds zero"
    expect add(0, {n}) == {n}

test "is symmetric"
    expect add(4, 5) == add(5, 4)
"""

ENDLESS = """module Endless

fn spin() -> int
    let mut n = 0
    while n >= 0
        n = (n + 1) % 7
    return n

test "spins"
    expect spin() == 1

test "after the kill"
    expect 1 == 1
"""


def main() -> None:
    from kite.pipeline import Unit
    from kite.source import decode
    from kite.testing.runner import TestSession
    from kite.testing.worker import Limits

    count = 200
    units = [Unit(decode(f"answer{n}.kite", PROGRAM.format(n=n).encode())) for n in range(count)]
    with TestSession(limits=Limits(timeout_seconds=1.0)) as session:
        session.run(units[0])  # warm: host compiled, worker started, Roslyn jitted
        start = time.perf_counter()
        passed = sum(session.run(unit).passes for unit in units)
        elapsed = time.perf_counter() - start
        assert passed == count
        workers_before = session.worker.started
        report = session.run(Unit(decode("endless.kite", ENDLESS.encode())))
        spin, after = report.outcomes
        assert (spin.status, after.status) == ("timeout", "pass")
        isolation = session.isolation
        replaced = session.worker.started - workers_before
    grader_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"isolation                          {isolation}")
    print(f"{count} answers x 4 tests               {elapsed:8.2f} s  = {count / elapsed:6.1f} answers/s   (target >= 10)")
    print(f"a timed-out test (limit 1 s)        {spin.seconds:8.2f} s   (target <= limit + 0.5 s)")
    print(f"the next test, in a fresh worker    {after.seconds:8.2f} s   ({replaced} worker started)")
    print(f"peak RSS: grader / largest worker  {grader_mb:8.0f} MB / {worker_mb:.0f} MB")


if __name__ == "__main__":
    main()
