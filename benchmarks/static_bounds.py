"""The static layers are bounded: check time against size on files full of diagnostics, and the lambda bomb's cost.

    .venv/bin/python benchmarks/static_bounds.py

Prints, for 2,000 / 4,000 / 8,000-line programs with thousands of Kite warnings, KT004 leaks and compiler errors, the
warm check time split by stage (microseconds per line stay flat when a stage is linear); then how the compile time of
nested lambdas grows with their depth, and what bombs cost: too deep (refused by KT010 before compiling) and within
the depth limit but slow (stopped at a 2 s budget).
"""

from __future__ import annotations

import statistics
import time

import front_end

from kite.cli.emitters.text import diagnostics_text
from kite.pipeline import front_end as kite_layer_of, generate_unit, merge
from kite.session import Session
from kite.source import decode
from kite.syntax.frontend import read_syntax
from kite.units import Unit

# Per function: KT003 twice, KT002, KT006, two CS0029, three KT004 leaks, KT001.
FUNCTION = '''fn Step{i}(xs: list<int>) -> int
    let mut unused = 0
    upper("x")
    let s: str = 5
    let BadName = 1
    let n: int = "x"
    var q = 1;
    if q > 0 && n > 0
        pass
    let total = 0
    total = 2
    return unused + BadName + len(s) + n + total

'''


def program(lines: int) -> str:
    return front_end.program(lines, FUNCTION)


def lambdas(depth: int, innermost: str = "") -> str:
    names = "abcdefgh"
    expression = innermost + " + ".join(names[:depth])
    for name in reversed(names[:depth]):
        expression = f"xs.Sum(fn({name}) => {expression})"
    return expression


def lambda_bomb(depth: int) -> Unit:
    return Unit(decode("bomb.kite", f"module Bomb\n\nfn total(xs: list<int>) -> int\n    return {lambdas(depth)}\n".encode()))


def slow_bomb(lines: int) -> Unit:
    """Four levels, allowed, on many lines, each with an unknown name that makes the compiler retry every overload."""
    body = "".join(f"    let v{k} = {lambdas(4, f'missing{k} + ')}\n" for k in range(lines))
    return Unit(decode("slow.kite", f"module Slow\n\nfn total(xs: list<int>) -> int\n{body}    return 0\n".encode()))


def csharp_seconds(checker: Session, unit: Unit) -> float:
    """The C# layers alone, even on what Kite's own rules would refuse."""
    generated = generate_unit(unit, [read_syntax(source).module for source in unit.sources])
    return timed(lambda: checker.compiler.check(list(generated.sources), checker.compile_timeout))[1]


def timed(work):
    start = time.perf_counter()
    result = work()
    return result, time.perf_counter() - start


def stages(checker: Session, unit: Unit) -> dict[str, float]:
    (found, syntax, modules), kite_seconds = timed(lambda: kite_layer_of(unit))
    generated = generate_unit(unit, modules)
    csharp, csharp_seconds = timed(lambda: checker.compiler.check(list(generated.sources), checker.compile_timeout))
    merged, merge_seconds = timed(lambda: merge(found, csharp, syntax))
    _, render_seconds = timed(lambda: diagnostics_text(merged))
    return {"kite": kite_seconds, "c#": csharp_seconds, "merge+sort": merge_seconds, "render": render_seconds, "diagnostics": len(merged)}


def main() -> None:
    checker = Session(compile_timeout=600)
    checker.check(Unit(decode("warm.kite", program(200).encode())))  # the compiler process is up and warm
    print("lines  diagnostics   kite layer    C# layers  merge+sort   render    whole check   per line")
    for lines in (2_000, 4_000, 8_000):
        unit = Unit(decode(f"bench{lines}.kite", program(lines).encode()))
        runs = [stages(checker, unit) for _ in range(3)]
        best = {stage: min(run[stage] for run in runs) for stage in runs[0]}
        whole = statistics.median(timed(lambda unit=unit: checker.check(unit))[1] for _ in range(3))
        print(
            f"{lines:5,}  {best['diagnostics']:11,}  {best['kite']:9.2f} s  {best['c#']:9.2f} s  {best['merge+sort'] * 1000:7.1f} ms"
            f"  {best['render'] * 1000:5.1f} ms  {whole:9.2f} s  {whole / lines * 1e6:6.0f} us"
        )
    print()
    print("lambdas nested in xs.Sum(...)   C# layers, no budget")
    for depth in range(1, 6):
        print(f"{depth:29}   {csharp_seconds(checker, lambda_bomb(depth)):8.2f} s")
    print("(each level multiplies the time; KT010 refuses five levels and more before compiling)")
    print()
    budgeted = Session(compile_timeout=2)
    for name, unit in (("7 levels", lambda_bomb(7)), ("30 lines of 4 levels", slow_bomb(30))):
        result, seconds = timed(lambda unit=unit: budgeted.check(unit))
        print(f"{name:27} whole check, --compile-timeout 2: {seconds:5.2f} s  {result.diagnostics[0].render()}")
    _, restart = timed(lambda: budgeted.check(Unit(decode("warm.kite", program(200).encode()))))
    print(f"the next unit, in a fresh compiler process: {restart:.2f} s (starting .NET and Roslyn again)")


if __name__ == "__main__":
    main()
