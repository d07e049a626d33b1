"""Front-end numbers: grammar load (cold and cached), parse + analyze throughput on a 10,000-line program.

    .venv/bin/python benchmarks/front_end.py
"""

from __future__ import annotations

import tempfile
import time

from lark import Lark

from kite.pipeline import kite_layer
from kite.source import decode
from kite.syntax.parser import KiteIndenter, grammar_text

FUNCTION = """fn step_{i}(xs: list<int>, limit: int) -> int
    let mut total = 0
    for x in xs
        if x > limit and x % 2 == 0
            total += x * {i}
        elif x == limit
            total -= 1
    let label = f"step {i}: {{total}}"
    print(label)
    return total

"""


def program(lines: int, function: str = FUNCTION) -> str:
    """About `lines` lines: `function` (a template of {i}) repeated with i = 0, 1, 2, ..."""
    parts, count, i = ["module Bench\n\n"], 2, 0
    while count < lines:
        parts.append(function.format(i=i))
        count += function.count("\n")
        i += 1
    return "".join(parts)


def load_seconds(cache) -> float:
    start = time.perf_counter()
    Lark(grammar_text(), parser="lalr", postlex=KiteIndenter(), start=["start", "expr"],
         propagate_positions=True, maybe_placeholders=True, cache=cache)
    return time.perf_counter() - start


def main() -> None:
    cold = min(load_seconds(False) for _ in range(3))
    with tempfile.NamedTemporaryFile(suffix=".lark-cache") as cache:
        load_seconds(cache.name)  # writes the cache
        cached = min(load_seconds(cache.name) for _ in range(5))
    text = program(10_000)
    lines = text.count("\n")
    source = decode("bench.kite", text.encode())
    kite_layer(source)  # warm: grammar loaded, caches filled
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        syntax, found = kite_layer(source)
        runs.append(time.perf_counter() - start)
    assert syntax.module is not None and found == [], found[:3]
    from kite.syntax.parser import lark_parser

    start = time.perf_counter()
    lark_parser().parse(text, start="start")
    lark_only = time.perf_counter() - start
    best = min(runs)
    print(f"grammar load, no cache        {cold * 1000:8.1f} ms")
    print(f"grammar load, cached          {cached * 1000:8.1f} ms   (target < 50 ms)")
    print(f"program                       {lines:8d} lines")
    print(f"parse + analyze (kite layer)  {best:8.2f} s  = {lines / best:8.0f} lines/s   (target >= 10,000)")
    print(f"Lark LALR parse alone         {lark_only:8.2f} s  = {lines / lark_only:8.0f} lines/s   (baseline)")
    print(f"ratio kite layer / Lark alone {best / lark_only:8.2f}")


if __name__ == "__main__":
    main()
