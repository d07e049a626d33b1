"""`kite dap`'s latencies: building the debug build, launch to the first stop (engine start, attach, breakpoint),
and a `next` (step latency), over a bare DAP client in this process. Prints numbers; asserts nothing.

Run: .venv/bin/python benchmarks/debug.py [ROUNDS]"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_debug import ORDERS, Client


def one_round() -> tuple[float, float, float, float]:
    client = Client()
    client.ok("initialize", adapterID="benchmark")
    client.ok("launch", program=ORDERS)
    client.event("initialized")
    client.ok("setBreakpoints", source={"path": ORDERS}, breakpoints=[{"line": 13}])
    configured = time.perf_counter()
    client.ok("configurationDone")
    thread = client.stop()["threadId"]
    stopped = time.perf_counter()
    client.ok("next", threadId=thread)
    client.stop()
    stepped = time.perf_counter()
    timings = dict(client.adapter.session.timings)
    client.close()
    first_stop = timings["attach"] + (stopped - configured)  # the engine's start to the stop, the build apart
    return timings["build"], timings["attach"], first_stop, stepped - stopped


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    one_round()  # warm: the compile process, the engine's cached image
    results = [one_round() for _ in range(rounds)]
    labels = ("debug build (Roslyn, symbols)", "engine start and attach", "launch to first stop (no build)", "step (next)")
    for index, label in enumerate(labels):
        values = [r[index] for r in results]
        print(f"{label:32s} median {statistics.median(values):.3f} s  (min {min(values):.3f}, max {max(values):.3f}, {rounds} rounds)")


if __name__ == "__main__":
    main()
