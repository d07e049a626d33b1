"""Code-generation numbers: C# for a 10,000-line program, and 5,000 module constants written in reverse order
(each evaluated after the one it reads), both through the Kite layer and the generator; no .NET.

    .venv/bin/python benchmarks/codegen.py
"""

from __future__ import annotations

import time

from front_end import program

from kite.pipeline import generate_unit, kite_layer
from kite.source import decode
from kite.units import Unit


def seconds(text: str) -> tuple[float, float]:
    source = decode("bench.kite", text.encode())
    start = time.perf_counter()
    syntax, found = kite_layer(source)
    checked = time.perf_counter()
    assert syntax.complete and not [d for d in found if d.severity.value == "error"]
    generate_unit(Unit(source), [syntax.module])
    return checked - start, time.perf_counter() - checked


def main() -> None:
    cases = {
        "10,000-line program": program(10_000),
        "5,000 constants, reverse order": "module Bench\n\n" + "".join(f"let c{i} = c{i + 1} + 1\n" for i in range(5000)) + "let c5000 = 1\n",
    }
    seconds(cases["10,000-line program"])  # warm: grammar tables, imports
    for name, text in cases.items():
        kite, generate = min(seconds(text) for _ in range(3))
        print(f"{name}: Kite layer {kite * 1000:.0f} ms, C# generation {generate * 1000:.0f} ms")


if __name__ == "__main__":
    main()
