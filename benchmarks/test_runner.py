"""Hidden-test numbers: answers per second (200 programs x 4 tests), the cost of a timeout, peak RSS.

Side by side: a sandboxed process per answer started ahead (what `kite test` does), the same without starting ahead,
the same without the sandbox, and the shared worker that ran every answer before the sandbox (commit BASELINE, run
from a copy of that commit's tree).

    .venv/bin/python benchmarks/test_runner.py [--baseline REV] [--count N]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BASELINE = "cf2d96d"  # the last commit with one shared worker for every answer

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


def answers_per_second(count: int, *, sandboxed: bool, ahead: bool) -> tuple[float, str, int]:
    from kite.session import Session
    from kite.source import decode
    from kite.testing.limits import Limits
    from kite.units import Unit

    units = [Unit(decode(f"answer{n}.kite", PROGRAM.format(n=n).encode())) for n in range(count)]
    with Session(limits=Limits(timeout_seconds=1.0), sandboxed=sandboxed, processes_ahead=1 if ahead else 0) as session:
        session.test(units[0])  # warm: host compiled, Roslyn jitted
        started = session.pool.started
        start = time.perf_counter()
        passed = sum(session.test(unit).passes for unit in units)
        elapsed = time.perf_counter() - start
        assert passed == count, f"{passed} of {count} passed"
        return count / elapsed, session.sandbox.describe(), session.pool.started - started


def timeout_cost() -> tuple[float, float]:
    from kite.session import Session
    from kite.source import decode
    from kite.testing.limits import Limits
    from kite.units import Unit

    with Session(limits=Limits(timeout_seconds=1.0)) as session:
        session.test(Unit(decode("warm.kite", PROGRAM.format(n=0).encode())))
        report = session.test(Unit(decode("endless.kite", ENDLESS.encode())))
    spin, after = report.outcomes
    assert (spin.status, after.status) == ("timeout", "pass")
    return spin.seconds, after.seconds


def baseline_answers_per_second(revision: str) -> str:
    """The shared worker's benchmark, run from that commit's own tree (its folders mapped into `kite` as it installed them)."""
    with tempfile.TemporaryDirectory(prefix="kite-baseline-") as folder:
        tree = Path(folder) / "tree"
        tree.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", revision], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        package = Path(folder) / "path" / "kite"
        shutil.copytree(tree / "compiler", package)
        for folder_name in ("cli", "grammar", "stdlib"):
            shutil.copytree(tree / folder_name, package / folder_name)
        done = subprocess.run([sys.executable, str(tree / "benchmarks" / "test_runner.py")], capture_output=True, text=True,
                              env={"PYTHONPATH": str(package.parent), "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(Path.home())},
                              timeout=600, check=False)
        line = next((line for line in done.stdout.splitlines() if "answers/s" in line), None)
        return line.split("=")[1].split("(")[0].strip() if line else f"did not run: {done.stderr.strip().splitlines()[-1:]}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", default=BASELINE, help="the commit with the shared worker to compare with")
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args()

    ahead, described, processes = answers_per_second(args.count, sandboxed=True, ahead=True)
    cold, _, _ = answers_per_second(args.count // 4, sandboxed=True, ahead=False)
    bare, _, _ = answers_per_second(args.count, sandboxed=False, ahead=True)
    shared = baseline_answers_per_second(args.baseline)
    spin, after = timeout_cost()
    grader_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"sandbox                                    {described}")
    print(f"{args.count} answers x 4 tests, answers/s (target >= 10):")
    print(f"  sandboxed process per answer, started ahead  {ahead:6.1f}   ({processes} processes)")
    print(f"  sandboxed process per answer, started cold   {cold:6.1f}   ({args.count // 4} answers)")
    print(f"  process per answer, no sandbox, ahead        {bare:6.1f}")
    print(f"  one shared worker (commit {args.baseline})          {shared}")
    print(f"a timed-out test (limit 1 s)               {spin:8.2f} s   (target <= limit + 0.5 s)")
    print(f"the next test, in a fresh process          {after:8.2f} s")
    print(f"peak RSS: grader / largest test process    {grader_mb:8.0f} MB / {worker_mb:.0f} MB")


if __name__ == "__main__":
    main()
