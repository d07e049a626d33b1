"""The KT007 allowlist's cost on a warm check: the same programs checked with and without the sandbox analyzer.

    .venv/bin/python benchmarks/allowlist.py

Over every sample plus 30 copies of the 50-line program of benchmarks/check.py, each checked ROUNDS times in one
warm process; medians per program. Target: under 5 ms a program.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from check import PROGRAM

ROUNDS = 3
COPIES = 30
REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    from kite.pipeline import front_end, generate_unit
    from kite.session import Session
    from kite.source import decode
    from kite.units import Unit, find_units

    checker = Session()
    roslyn = checker.roslyn
    units = [source.read() for source in find_units([str(REPO / "samples")])]
    units += [Unit(decode(f"orders{n}.kite", PROGRAM.format(n=n).encode())) for n in range(COPIES)]
    programs = []
    for unit in units:
        _, _, modules = front_end(unit)
        programs.append(list(generate_unit(unit, modules).sources))

    everything = roslyn.analyzers
    sandbox = next(analyzer for analyzer in everything if analyzer.GetType().Name == "SandboxAnalyzer")
    others = everything.Remove(sandbox)
    references = [checker.stdlib.reference]

    def check_seconds(analyzers, sources) -> float:
        roslyn.analyzers = analyzers
        start = time.process_time()  # CPU of every thread of this process: other processes' load does not count
        roslyn.check(sources, references)
        return time.process_time() - start

    for sources in programs:  # warm every path first
        check_seconds(everything, sources)
        check_seconds(others, sources)

    with_sandbox, without_sandbox = [], []
    for round_number in range(ROUNDS):
        for sources in programs:  # paired and in alternating order, so machine load hits both alike
            if round_number % 2:
                without_sandbox.append(check_seconds(others, sources))
                with_sandbox.append(check_seconds(everything, sources))
            else:
                with_sandbox.append(check_seconds(everything, sources))
                without_sandbox.append(check_seconds(others, sources))
    roslyn.analyzers = everything

    count = len(programs)
    print(f"programs: {count} ({len(units) - COPIES} samples + {COPIES} x 50 lines), {ROUNDS} rounds, warm process")
    print(f"warm check with the allowlist    {statistics.median(with_sandbox) * 1000:7.2f} ms CPU a program (median)")
    print(f"warm check without it            {statistics.median(without_sandbox) * 1000:7.2f} ms CPU a program (median)")
    differences = [a - b for a, b in zip(with_sandbox, without_sandbox)]
    print(f"the allowlist's cost             {statistics.median(differences) * 1000:7.2f} ms CPU a program (median of paired runs; target < 5 ms)")


if __name__ == "__main__":
    main()
