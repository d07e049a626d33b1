"""CPU instructions a file of a cold `kite graph`, counted by callgrind: the same count whatever else the machine runs,
so a change can be judged on a shared machine where the clock moves by a fifth from one minute to the next.

    .venv/bin/python benchmarks/graph_instructions.py

Answers are made as benchmarks/find.py makes them; the graph of 300 of them less the graph of 100, over 200, leaves
out what a process pays once (imports, the parser's tables, the lexer's matches made on first use). The hash seed
is fixed, which makes the count repeat to within a few thousand. Needs valgrind (`apt-get install valgrind`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from find import sample_functions, write_answers  # beside this script

FEW, MANY = 100, 300
GRAPH = "from kite.cli.common import never_collect; from kite.graph.build import build; never_collect(); build([{!r}])"


def instructions(folder: Path) -> int:
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", GRAPH.format(str(folder))],
        capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, check=True,
    )
    return int(re.search(r"Collected : (\d+)", run.stderr).group(1))


def main() -> None:
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: apt-get install valgrind")
    functions = sample_functions()
    with tempfile.TemporaryDirectory() as scratch:
        counts = {}
        for count in (FEW, MANY):
            folder = Path(scratch) / str(count)
            folder.mkdir()
            write_answers(folder, functions, count)
            counts[count] = instructions(folder)
    per_file = (counts[MANY] - counts[FEW]) / (MANY - FEW)
    print(f"cold graph: {per_file / 1e6:.2f} million instructions a file ({FEW} files: {counts[FEW] / 1e6:.0f} million)")


if __name__ == "__main__":
    main()
