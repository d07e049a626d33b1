"""`kite dap`'s latencies over a bare DAP client in this process: launch to the first stop as a client sees it (the
`launch` request to the `stopped` event: the debug build, the engine, the debuggee, attach, the breakpoint), its
parts as the session times them, and a `next` (step latency). Warm: the compile process and the engine's cached
image are ready (a first round is not counted). Prints numbers; asserts nothing.

Run: .venv/bin/python benchmarks/debug.py [ROUNDS]"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_debug import ORDERS, Client


def one_round(program: str = ORDERS) -> tuple[float, float, float, float]:
    client = Client()
    client.ok("initialize", adapterID="benchmark")
    launched = time.perf_counter()
    client.ok("launch", program=program)
    client.event("initialized")
    client.ok("setBreakpoints", source={"path": program}, breakpoints=[{"line": 13}])
    configured = time.perf_counter()
    client.ok("configurationDone")
    thread = client.stop()["threadId"]
    stopped = time.perf_counter()
    client.ok("next", threadId=thread)
    client.stop()
    stepped = time.perf_counter()
    timings = dict(client.adapter.session.timings)
    client.close()
    return stopped - launched, timings["build"], timings["attach"] + (stopped - configured), stepped - stopped


def changed_round(folder: Path, number: int) -> tuple[float, float, float, float]:
    """A program edited since its last launch (new bytes): its debug build is made, not reused."""
    program = folder / "Orders.kite"
    program.write_text(Path(ORDERS).read_text() + f"\n# edit {number}\n")
    return one_round(str(program))


def report(title: str, results: list[tuple[float, float, float, float]]) -> None:
    print(title)
    labels = ("launch to first stop", "  the build and its symbols", "  the debuggee's start to the stop", "step (next)")
    for index, label in enumerate(labels):
        values = [r[index] for r in results]
        print(f"  {label:36s} median {statistics.median(values):.3f} s  (min {min(values):.3f}, max {max(values):.3f}, {len(values)} rounds)")


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    one_round()  # warm: the compile process, the engine's cached image, this program's kept debug build
    report("unchanged program (its debug build reused)", [one_round() for _ in range(rounds)])
    with tempfile.TemporaryDirectory() as folder:
        report("changed program (built)", [changed_round(Path(folder), number) for number in range(rounds)])


if __name__ == "__main__":
    main()
