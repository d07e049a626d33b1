"""Long chains (`1 + 1 + ... + 1`): time of each pass for 2,500, 5,000 and 10,000 terms of every shape
(tests/test_chains.py), and Roslyn's warm time on the C# of one mixed chain with and without its #line markers.

    KITE_NO_SERVER=1 .venv/bin/python benchmarks/long_chains.py
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from test_chains import program

from kite import pipeline, units
from kite.codegen.csharp import UnitSymbols, generate
from kite.dotnet.compile_worker import shared_worker
from kite.format import format_text
from kite.search.find import search_source
from kite.search.pattern import parse_pattern
from kite.source import decode


def passes() -> None:
    for terms in (2500, 5000, 10000):
        text = program(terms)
        started = time.perf_counter()
        syntax, _ = pipeline.kite_layer(decode("chains.kite", text.encode()))
        kite = time.perf_counter()
        module = syntax.module
        generate(module, "chains.kite", UnitSymbols.of([module], ["chains.kite"]), file_index=0, running=text)
        codegen = time.perf_counter()
        format_text(text)
        fmt = time.perf_counter()
        search_source(parse_pattern("$a == $a"), decode("chains.kite", text.encode()))
        find = time.perf_counter()
        print(f"{terms:>6} terms: kite {kite - started:.2f}s codegen {codegen - kite:.2f}s fmt {fmt - codegen:.2f}s find {find - fmt:.2f}s")


def roslyn() -> None:
    worker = shared_worker()
    with tempfile.TemporaryDirectory() as folder:
        for terms in (1250, 2500, 5000):
            path = Path(folder) / "mixed.kite"
            path.write_text("module Mixed\n\nfn f(a: int) -> int\n    return " + " - ".join(["a * 2 + 1"] * terms) + "\n")
            unit = units.find_units([str(path)])[0].read()
            _, _, modules = pipeline.front_end(unit)
            name, csharp = pipeline.generate_unit(unit, modules).sources[0]
            worker.check([(name, csharp)], 300)  # the JIT's first pass
            for label, text in (("with #line", csharp), ("without", re.sub(r"\n#line \(.*\n", "\n", csharp))):
                started = time.perf_counter()
                worker.check([(name, text)], 300)
                print(f"roslyn, mixed chain of {terms} terms, {label}: {time.perf_counter() - started:.2f}s")
    worker.stop()


if __name__ == "__main__":
    passes()
    roslyn()
