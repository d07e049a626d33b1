"""Back-end numbers: cold `kite check` of a 50-line program vs `dotnet build` of its C#; 500 programs in one process.

    .venv/bin/python benchmarks/check.py
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from baseline import dotnet_build_seconds

PROGRAM = """module Orders{n}

type Order
    customer: str
    amount: dec
    paid: bool

fn total_paid(orders: list<Order>) -> dec
    let mut total = 0.0
    for order in orders
        if order.paid
            total += order.amount
    return total

fn customers(orders: list<Order>) -> list<str>
    let names = set<str>()
    for order in orders
        names.Add(order.customer)
    return sorted(names)

fn biggest(orders: list<Order>) -> Order?
    let mut best: Order? = none
    for order in orders
        if best == none or order.amount > best.amount
            best = order
    return best

fn describe(orders: list<Order>) -> str
    let top = biggest(orders)
    if top == none
        return "no orders"
    return f"{{len(orders)}} orders, top {{top.customer}} {{top.amount}}"

fn late_fee(amount: dec, days: int) -> dec
    if days <= 0
        return 0.0
    return round(amount * days / 100, 2)

fn unpaid_count(orders: list<Order>) -> int
    let mut count = 0
    for order in orders
        if not order.paid
            count += 1
    return count

test "totals what is paid"
    let orders = [Order("ada", 10.0, true), Order("bob", 5.5, false)]
    expect total_paid(orders) == 10.0
    expect customers(orders) == ["ada", "bob"]
    expect describe(orders) == "2 orders, top ada 10.0"
    expect late_fee(50.0, 3) == 1.5
    expect unpaid_count(orders) == 1
"""


def cold_check_seconds(path: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kite.cli.main", "check", "--no-server", str(path)], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    from kite.session import Session
    from kite.source import decode
    from kite.units import Unit

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "orders.kite"
        path.write_text(PROGRAM.format(n=0))
        lines = PROGRAM.count("\n")
        cold = statistics.median(cold_check_seconds(path) for _ in range(3))

        checker = Session()
        unit = Unit(decode(str(path), path.read_bytes()))
        analysis = checker.analyze(unit)
        assert analysis.result.diagnostics == (), analysis.result.diagnostics
        [(_, csharp)] = analysis.generated.sources
        from kite.dotnet.stdlib import stdlib_source

        files = {"Orders.kite.cs": csharp, "KiteStd.cs": stdlib_source()}
        build_cold = statistics.median(dotnet_build_seconds(files, cold=True) for _ in range(3))
        build = statistics.median(dotnet_build_seconds(files) for _ in range(3))

    # The stdlib choice: one pre-compiled assembly referenced by every program, or its source compiled in each time.
    from kite.dotnet.stdlib import STDLIB_FILE, compile_stdlib, stdlib_source

    stdlib = compile_stdlib(checker.roslyn)
    sources = list(analysis.generated.sources)
    referenced, compiled_in = [], []
    for _ in range(20):
        start = time.perf_counter()
        checker.roslyn.check(sources, [stdlib.reference])
        referenced.append(time.perf_counter() - start)
        start = time.perf_counter()
        checker.roslyn.check([*sources, (STDLIB_FILE, stdlib_source())])
        compiled_in.append(time.perf_counter() - start)

    count = 500
    units = [Unit(decode(f"orders{n}.kite", PROGRAM.format(n=n).encode())) for n in range(count)]
    start = time.perf_counter()
    for unit in units:
        checker.check(unit)
    warm = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"cold kite check, {lines}-line program   {cold:8.2f} s   (median of 3, new process each)")
    print(f"dotnet build of its C#, cold servers {build_cold:8.2f} s   (median of 3, after dotnet build-server shutdown)")
    print(f"dotnet build of its C#, warm servers {build:8.2f} s   (median of 3)")
    print(f"ratio cold check / cold dotnet build {cold / build_cold:8.2f}     (target <= 0.6)")
    print(f"ratio cold check / warm dotnet build {cold / build:8.2f}")
    print(f"stdlib as a referenced assembly      {statistics.median(referenced) * 1000:8.1f} ms per warm check (median of 20; kept)")
    print(f"stdlib compiled into the program     {statistics.median(compiled_in) * 1000:8.1f} ms per warm check (median of 20)")
    print(f"one process, {count} programs           {warm:8.2f} s  = {count / warm:6.1f} programs/s   (target >= 25)")
    print(f"peak RSS of that process             {peak_mb:8.0f} MB   (target < 1024; the compile process is apart)")


if __name__ == "__main__":
    main()
