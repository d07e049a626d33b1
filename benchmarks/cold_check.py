"""Where the time of a cold `kite check` goes, phase by phase, in CPU and wall seconds.

The compile process does these in order when `kite check` starts it; here they run in one fresh process, timed one by
one: first with kite's own assemblies compiled (their images removed from the cache), then read from the disk as every
later cold start does. A whole cold `kite check` of the same program is timed for comparison.

    .venv/bin/python benchmarks/cold_check.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = Path(__file__).resolve().parent.parent / "samples" / "inventory.kite"
PHASES = r"""
import json, sys, time
spent = []
def phase(name, started):
    spent.append((name, time.process_time() - started[0], time.perf_counter() - started[1]))
    started[:] = [time.process_time(), time.perf_counter()]
started = [time.process_time(), time.perf_counter()]
from kite.cli import main as cli  # every Python import `kite check` makes
from kite.units import Unit
from kite.session import Session
from kite.source import SourceFile
phase("Python imports", started)
from kite.dotnet.runtime import boot
runtime = boot()
phase("CoreCLR start and Roslyn assemblies", started)
from kite.dotnet import roslyn as roslyn_module
roslyn_module._references(runtime)
phase("reference assemblies", started)
roslyn_module._kite_analyzers(runtime)
phase("KT007/KT012 analyzers: compile, or read the image", started)
service = roslyn_module.RoslynService()
phase("load the .NET analyzers that can report", started)
from kite.dotnet.stdlib import compile_stdlib
stdlib = compile_stdlib(service)
phase("standard library: compile, or read the image", started)
session = Session()
unit = Unit(SourceFile(sys.argv[1], open(sys.argv[1]).read()))
analysis = session.analyze(unit, "kite")
phase("Kite layer of the program", started)
from kite.pipeline import generate_unit
generated = generate_unit(unit, list(analysis.modules))
found = service.check(list(generated.sources), [stdlib.reference])
phase("compiler and analyzers on the program", started)
print(json.dumps(spent))
"""


def phases(env: dict | None = None) -> list:
    done = subprocess.run([sys.executable, "-c", PHASES, str(PROGRAM)], capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"the timed phases failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    from kite.dotnet.packages import restore

    shutil.rmtree(restore().cache_dir / "own-images", ignore_errors=True)
    compiled, cached = phases(), phases()
    print(f"cold kite check of {PROGRAM.name}, phase by phase (one fresh process each)")
    print(f"{'phase':52} {'own assemblies compiled':>24} {'read from the disk':>20}")
    print(f"{'':52} {'CPU s':>11} {'wall s':>12} {'CPU s':>9} {'wall s':>10}")
    for (name, cpu, wall), (_, cached_cpu, cached_wall) in zip(compiled, cached):
        print(f"{name:52} {cpu:11.2f} {wall:12.2f} {cached_cpu:9.2f} {cached_wall:10.2f}")
    total = [sum(row[i] for row in table) for table in (compiled, cached) for i in (1, 2)]
    print(f"{'sum':52} {total[0]:11.2f} {total[1]:12.2f} {total[2]:9.2f} {total[3]:10.2f}")
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        subprocess.run([str(Path(sys.executable).parent / "kite"), "check", str(PROGRAM)], cwd=folder, capture_output=True, check=False)
        print(f"a whole cold kite check (two processes), wall s: {time.perf_counter() - started:.2f}")


if __name__ == "__main__":
    main()
