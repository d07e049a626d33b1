"""`kite graph` throughput over 2,000 answer-sized files (about 20 lines each), cold and with --cache.

    .venv/bin/python benchmarks/graph.py

The answers are made as benchmarks/find.py makes them (functions of samples/*.kite, picked at random), written to a
temporary folder and graphed as `kite graph FOLDER` graphs it (in process: no interpreter start). Printed: files/s
per wall second and per CPU second, cold (every file parsed) with Python's default collector and with the
collector off, as `kite graph` has it (kite.cli.common.never_collect), while --cache is filled, and with it warm; and the
shares of a cold graph spent parsing and indexing (the index alone, in ms a file); then the whole `kite graph` command in
a new process with --jobs 1 and with its default (the CPU count), its start and its workers' CPU counted. Target
(issue 23): >= 1,000 files/s per core cold, >= 5,000 with the cache.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from find import sample_functions, write_answers  # beside this script

from kite.cli.common import never_collect
from kite.graph.build import build
from kite.graph.index import read_file
from kite.search.cache import parse
from kite.source import read
from kite.spawn import default_jobs

FILES = 2_000


def timed(run) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "answers"
        folder.mkdir()
        write_answers(folder, sample_functions(), FILES)
        cache = str(Path(scratch) / "cache")
        wall, cpu = timed(lambda: build([str(folder)]))
        print(f"{'cold, default gc':16} {FILES / wall:8.0f} files/s wall  {FILES / cpu:8.0f} files/s CPU")
        never_collect()  # as `kite graph` does
        for label, run in (("cold", lambda: build([str(folder)])),
                           ("filling --cache", lambda: build([str(folder)], cache)),
                           ("warm --cache", lambda: build([str(folder)], cache))):
            wall, cpu = timed(run)
            print(f"{label:16} {FILES / wall:8.0f} files/s wall  {FILES / cpu:8.0f} files/s CPU")
        paths = sorted(str(p) for p in folder.glob("*.kite"))
        _, parsing = timed(lambda: [parse(read(path)) for path in paths])
        _, whole = timed(lambda: build([str(folder)]))
        sources = [read(path) for path in paths]
        parsed = [(source, parse(source)) for source in sources]
        _, indexing = timed(lambda: [read_file(s.path, s.text, p.module, p.parsed_lines, p.skipped) for s, p in parsed])
        print(f"parsing is {parsing / whole:.0%} of a cold graph, the index {indexing / whole:.0%}"
              f" ({indexing / FILES * 1000:.2f} ms CPU a file)")
        for jobs in (1, default_jobs()):  # the whole command: its start, and its workers' CPU with its own
            wall, cpu = command_seconds(["graph", "--jobs", str(jobs), str(folder)])
            print(f"{f'kite graph --jobs {jobs}':16} {FILES / wall:8.0f} files/s wall  {FILES / cpu:8.0f} files/s CPU"
                  f"  ({wall:.2f} s, {cpu:.2f} CPU s, start included)")


def command_seconds(arguments: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (the process and its workers) of a `kite` command in a new process, without the server."""
    before, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, "-m", "kite.cli", *arguments], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "KITE_NO_SERVER": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


if __name__ == "__main__":
    main()
