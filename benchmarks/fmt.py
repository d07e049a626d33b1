"""kite fmt's speed: lines per CPU second of one core, formatting text already in Kite's layout and text that is not
(random blanks, joined and broken lines), with the parse gate's share; the target is 20,000 lines a second or more.
CPU time, not wall time: the machine may be shared.

    .venv/bin/python benchmarks/fmt.py
"""

from __future__ import annotations

import random
import re
import time

import front_end
from front_end import program

from kite.format import format_text, gate, printer, tokens
from kite.source import SourceFile
from kite.syntax import leaks
from kite.syntax.frontend import read_syntax

# The front end's benchmark function with a comment above it, one at the end of a line, and a line to break.
FUNCTION = "# step {i}: a comment line\n" + front_end.FUNCTION.replace("limit: int)", "limit: int, table: map<str, int>)").replace(
    "let mut total = 0", "let mut total = 0  # running"
).replace(
    "    print(label)\n",
    '    let described = describe_everything(label, [total, limit, {i}], table, fn(v) => v * 2, "a fairly long text")\n'
    "    print(label)\n",
)


def messy(text: str, seed: int = 29) -> str:
    """The same program, written carelessly: blanks doubled or dropped around operators and commas."""
    rng = random.Random(seed)
    text = re.sub(r" ([=+*]) ", lambda m: rng.choice([m.group(1), f"  {m.group(1)} ", f" {m.group(1)}"]), text)
    return re.sub(r", ", lambda m: rng.choice([",", " ,  ", ", "]), text)


def cpu(action, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        action()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    neat = format_text(program(10_000, FUNCTION))
    untidy = messy(neat)
    assert format_text(untidy) == neat
    lines = neat.count("\n")
    print(f"program                          {lines} lines")
    for label, text in (("formatted already", neat), ("written carelessly", untidy)):
        seconds = cpu(lambda text=text: format_text(text))
        print(f"kite fmt, {label:22} {seconds:5.2f} s  = {lines / seconds:>9,.0f} lines/s   (target >= 20,000)")
    document = tokens.read(untidy)
    print(f"  reading tokens                 {cpu(lambda: tokens.read(untidy)):5.2f} s")
    print(f"  leak scan (KT004)              {cpu(lambda: leaks.scan(untidy)):5.2f} s")
    print(f"  parse gate                     {cpu(lambda: gate.parses(document)):5.2f} s")
    print(f"  layout                         {cpu(lambda: printer.print_document(document)):5.2f} s")
    parse = cpu(lambda: read_syntax(SourceFile("bench.kite", untidy)), repeat=1)
    print(f"Kite's parser on the same text   {parse:5.2f} s  = {lines / parse:>9,.0f} lines/s   (what the gate saves)")


if __name__ == "__main__":
    main()
