"""The first `kite check` on a fresh machine, step by step, in wall and CPU seconds: `dotnet restore` of the pinned
packages, the rest of that first check (kite's own assemblies compiled and cached, the check itself), and then how
long after the check crossgen2's ReadyToRun images, made in a background process, were ready (wall only: that
process is not this one's child). Run in an empty kite cache folder; NuGet's own package folder
(~/.nuget/packages) is left as it is, so "restore" is a download only on a machine that never restored them.
Issue 27's target: the whole within 30 s on a quiet machine.

    .venv/bin/python benchmarks/first_run.py
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = Path(__file__).resolve().parent.parent / "samples" / "hello.kite"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="kite-first-run-") as cache:
        os.environ.update(KITE_CACHE_DIR=cache, KITE_NO_SERVER="1")
        from kite.dotnet import packages

        steps: list[tuple[str, float, float]] = []
        run_dotnet = packages._run_dotnet

        def timed(arguments, what):
            wall, cpu = time.monotonic(), children_cpu()
            done = run_dotnet(arguments, what)
            steps.append((what, time.monotonic() - wall, children_cpu() - cpu))
            return done

        packages._run_dotnet = timed
        from click.testing import CliRunner

        from kite.cli.main import main as kite

        wall, cpu = time.monotonic(), time.process_time() + children_cpu()
        result = CliRunner().invoke(kite, ["check", str(PROGRAM)])
        from kite.dotnet.compile_worker import shared_worker

        shared_worker().stop()  # its CPU counts once it has been waited for
        total_wall, total_cpu = time.monotonic() - wall, time.process_time() + children_cpu() - cpu
        packages.make_ready_to_run(packages.restore().cache_dir, wait=True)
        images_wall, made = time.monotonic() - wall, packages.restore().ready_to_run
    print(f"first `kite check {PROGRAM.name}` in an empty kite cache: exit {result.exit_code}; load {os.getloadavg()}, {os.cpu_count()} CPUs")
    print(f"  {'step':60} {'wall s':>7} {'CPU s':>7}")
    for what, step_wall, step_cpu in steps:
        print(f"  {what:60} {step_wall:7.1f} {step_cpu:7.1f}")
    rest_wall, rest_cpu = total_wall - sum(s[1] for s in steps), total_cpu - sum(s[2] for s in steps)
    print(f"  {'the rest (own assemblies compiled and cached, the check)':60} {rest_wall:7.1f} {rest_cpu:7.1f}")
    print(f"  {'total':60} {total_wall:7.1f} {total_cpu:7.1f}")
    print(f"  ReadyToRun images ready {images_wall:.1f} s after the start ({made})")
    if result.exit_code != 0:
        sys.exit(result.output)


if __name__ == "__main__":
    main()
