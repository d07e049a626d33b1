"""Foundation numbers: CoreCLR boot, first and warm compile+analyze, RSS over 500 warm runs, vs `dotnet build`.

    .venv/bin/python benchmarks/roslyn_service.py
"""

from __future__ import annotations

import resource
import statistics
import time

from baseline import dotnet_build_seconds

CODE = """using System;
using System.Collections.Generic;
using System.Linq;

public static class Inventory
{
    public static int count_positive(List<int> values)
    {
        int total = 0;
        foreach (var value in values)
        {
            if (value > 0)
            {
                total += 1;
            }
        }
        return total;
    }

    public static bool has_any(List<int> values) => values.Count() > 0;

    public static string describe(string? name)
    {
        if (name is null)
        {
            return "nobody";
        }
        return name.ToUpperInvariant() + ":" + count_positive(new List<int> { 1, -2, 3 });
    }
}
"""


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    start = time.perf_counter()
    from kite.dotnet.runtime import boot

    boot()
    boot_seconds = time.perf_counter() - start

    from kite.dotnet.roslyn import RoslynService

    start = time.perf_counter()
    service = RoslynService()
    first = service.check([("inventory.kite.cs", CODE)])
    first_seconds = time.perf_counter() - start
    assert [d.id for d in first] == ["CA1829"], first

    warm = []
    for _ in range(20):
        start = time.perf_counter()
        service.check([("inventory.kite.cs", CODE)])
        warm.append(time.perf_counter() - start)
    median_ms = statistics.median(warm) * 1000

    # The first few hundred runs grow RSS while .NET's tiered JIT recompiles hot paths; measure both phases.
    rss_start = rss_mb()
    for _ in range(500):
        service.check([("inventory.kite.cs", CODE)])
    rss_before = rss_mb()
    for _ in range(500):
        service.check([("inventory.kite.cs", CODE)])
    rss_after = rss_mb()

    build = dotnet_build_seconds({"Inventory.cs": CODE})
    print(f"CoreCLR boot + Roslyn load        {boot_seconds * 1000:8.0f} ms")
    print(f"first compile + analyze (30 lines) {first_seconds * 1000:8.0f} ms")
    print(f"warm compile + analyze, median/20  {median_ms:8.1f} ms   (target <= 50 ms)")
    print(f"RSS over the first 500 warm runs   {rss_start:8.0f} MB -> {rss_before:.0f} MB  ({rss_before - rss_start:+.0f} MB: JIT warm-up)")
    print(f"RSS over the next 500 warm runs    {rss_before:8.0f} MB -> {rss_after:.0f} MB  ({rss_after - rss_before:+.0f} MB, target < 50 MB)")
    print(f"dotnet build (same file, warm SDK) {build * 1000:8.0f} ms")
    print(f"ratio warm check / dotnet build    {median_ms / 1000 / build:8.3f}")
    print(f"ratio first check / dotnet build   {first_seconds / build:8.3f}")


if __name__ == "__main__":
    main()
