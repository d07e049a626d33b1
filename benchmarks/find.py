"""`kite find` throughput over 5,000 answers' code of about 20 lines each, and where the time goes.

    .venv/bin/python benchmarks/find.py

The answers are made from the functions of samples/*.kite (each program a module and functions picked at random,
about 20 lines), written to a temporary folder and searched as `kite find PATTERN FOLDER` searches it (in process:
no interpreter start). Target: >= 600 files/s for a one-metavariable pattern. Printed per pattern, for --jobs 1 and
--jobs 2: files/s with the pre-filter (a file whose text lacks a name the pattern spells is not parsed) with no
cache, while --cache is filled, and with it warm; files/s when every file is parsed; and the share of time spent
parsing when every file is parsed. Rates are given per wall second and per CPU second (this process and its worker
processes): on a machine shared with other work, the second is what the search itself costs.
"""

from __future__ import annotations

import dataclasses
import os
import random
import resource
import tempfile
import time
from pathlib import Path

from kite.search.cache import parse
from kite.search.find import search
from kite.search.match import find_matches
from kite.search.pattern import parse_pattern
from kite.search.spans import Spans
from kite.source import read
from kite.syntax.frontend import read_syntax

ANSWERS = 5_000
LINES = 20
REPO = Path(__file__).resolve().parent.parent
PATTERNS = ("len($X)", "upper($X)")
MEASURED_WHOLE = 1_000  # answers parsed one by one to see where the time goes


def sample_functions() -> list[str]:
    """Every top-level fn of the samples, as written."""
    functions = []
    for path in sorted((REPO / "samples").glob("*.kite")):
        if path.name.endswith(".test.kite"):
            continue
        module = read_syntax(read(str(path))).module
        lines = path.read_text().split("\n")
        starts = [item.line for item in module.items] + [len(lines) + 1]
        for item, end in zip(module.items, starts[1:]):
            if type(item).__name__ == "FnDecl" and item.name != "main":
                functions.append("\n".join(lines[item.line - 1:end - 1]).rstrip() + "\n")
    return functions


def write_answers(folder: Path, functions: list[str], count: int = ANSWERS) -> int:
    chooser = random.Random(15)
    total_lines = 0
    for number in range(count):
        parts = [f"module Answer{number}\n"]
        while sum(part.count("\n") for part in parts) < LINES:
            parts.append("\n" + chooser.choice(functions))
        text = "".join(parts)
        total_lines += text.count("\n")
        (folder / f"answer_{number:04d}.kite").write_text(text)
    return total_lines


def cpu_seconds() -> float:
    """CPU seconds of this process and of its worker processes that have ended."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed_search(pattern, folder: Path, jobs: int, cache: Path | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (what the search costs when other work shares the cores), matches."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    found = sum(len(file.found) for file in search(pattern, [str(folder)], jobs, str(cache) if cache else None))
    return time.perf_counter() - wall, cpu_seconds() - cpu, found


def rates(label: str, timed: tuple[float, float, int]) -> str:
    wall, cpu, _ = timed
    return f"  {label:38} {ANSWERS / wall:6.0f} files/s, {ANSWERS / cpu:6.0f} per CPU second"


def parse_share(pattern, files: list[Path]) -> tuple[float, float, float]:
    """Seconds reading, parsing, and matching (with the match ranges) when every file is parsed."""
    reading = parsing = matching = 0.0
    for path in files:
        t0 = time.perf_counter()
        source = read(str(path))
        t1 = time.perf_counter()
        parsed = parse(source)
        t2 = time.perf_counter()
        spans = Spans(source.text, parsed.parsed_lines)
        for match in find_matches(pattern, parsed.module):
            spans.span(match.node)
        t3 = time.perf_counter()
        reading, parsing, matching = reading + t1 - t0, parsing + t2 - t1, matching + t3 - t2
    return reading, parsing, matching


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="kite-find-bench-") as raw:
        folder, caches = Path(raw) / "answers", Path(raw) / "caches"
        folder.mkdir()
        lines = write_answers(folder, sample_functions())
        files = sorted(folder.glob("*.kite"))
        print(f"{ANSWERS} answers, {lines / ANSWERS:.1f} lines each on average; load average {os.getloadavg()[0]:.2f} "
              f"on {os.cpu_count()} CPUs at the start")
        for text in PATTERNS:
            pattern = parse_pattern(text)
            unfiltered = dataclasses.replace(pattern, literal_words=frozenset())
            timed_search(pattern, folder, 1)  # warm: grammar loaded, files in the page cache
            containing = sum(pattern.may_match(path.read_text()) for path in files)
            print(f"\n{text!r}: {containing} of {ANSWERS} files hold {sorted(pattern.literal_words)} (as a word)")
            found = set()
            for jobs in (1, 2):
                cache = caches / f"{text}-{jobs}"
                for label, timed in (
                    ("no cache", timed_search(pattern, folder, jobs)),
                    ("--cache being filled", timed_search(pattern, folder, jobs, cache)),
                    ("--cache warm", timed_search(pattern, folder, jobs, cache)),
                ):
                    found.add(timed[2])
                    print(rates(f"--jobs {jobs}, pre-filter, {label}", timed) + ("   (target >= 600)" if label == "no cache" else ""))
            every_file = timed_search(unfiltered, folder, 1)
            found.add(every_file[2])
            print(rates("--jobs 1, every file parsed, no cache", every_file))
            assert len(found) == 1, found  # neither the pre-filter, the workers nor the cache change what is found
            reading, parsing, matching = parse_share(pattern, files[:MEASURED_WHOLE])
            total = reading + parsing + matching
            print(f"  {found.pop()} matches; where the time goes when every file is parsed ({MEASURED_WHOLE} of them, one process): "
                  f"parsing {parsing / total:4.0%}, matching and ranges {matching / total:4.0%}, reading {reading / total:4.0%}")


if __name__ == "__main__":
    main()
