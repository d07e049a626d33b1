"""What the span #line markers cost Roslyn: the samples' generated C# checked (compiler and analyzers) in one warm
session, as generated (span markers, expressions on lines of their own), with every marker in the line-only form
(`#line N "file"`, same lines), and with the expressions' own markers and lines left out (about the old layout).

    .venv/bin/python benchmarks/line_markers.py
"""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path

from kite.pipeline import generate_unit, kite_layer
from kite.session import Session
from kite.units import find_units

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SPAN = re.compile(r"#line \((\d+), \d+\) - \(\d+, \d+\) \d+ ")
EXPRESSION_MARKER = re.compile(r'#line \(\d+, \d+\) - \(\d+, \d+\) 1 "[^"]*"\n ')
ROUNDS = 4


def main() -> None:
    units = [found.read() for found in find_units(sorted(str(path) for path in SAMPLES.glob("*.kite")))]
    variants: dict[str, list] = {"span markers": [], "line-only markers": [], "no expression markers": []}
    for unit in units:
        sources = list(generate_unit(unit, [kite_layer(source)[0].module for source in unit.sources]).sources)
        variants["span markers"].append(sources)
        variants["line-only markers"].append([(path, SPAN.sub(r"#line \1 ", text)) for path, text in sources])
        variants["no expression markers"].append([(path, EXPRESSION_MARKER.sub("", text)) for path, text in sources])
    lines = {name: sum(text.count("\n") for sources in found for _, text in sources) for name, found in variants.items()}
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    with Session() as session:
        for _ in range(ROUNDS):  # interleaved: the machine's load moves all three alike
            for name, found in variants.items():
                start = time.perf_counter()
                for sources in found:
                    session.compiler.check(sources, 60.0)
                seconds[name].append(time.perf_counter() - start)
    for name in variants:
        print(f"{name}: {lines[name]} C# lines, {len(units)} units checked in {statistics.median(seconds[name][1:]):.2f} s (median, first round left out)")


if __name__ == "__main__":
    main()
