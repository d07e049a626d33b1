"""Where a cold `kite graph` spends its time per file, stage by stage, over answer-sized files.

    .venv/bin/python benchmarks/parse_stages.py

The answers are made as benchmarks/find.py makes them. Each stage runs over every file on its own, after the one
before it, three times; the fastest run's CPU time per file is printed (the machine is shared: the minimum is what the
stage itself costs). Stages: reading and decoding, the leak scan, layout, the parse into the AST by kite.syntax.lalr
(the driver every command uses), and the graph's index of the AST (symbols, names, locals). Lark's own path, what the
driver replaces and falls back to, is printed beside them: its lexer with the Indenter and its LALR parse into a Tree,
then the Transformer into the AST. Issue 23's target is 1 ms a file for the stages together (1,000 files/s per core).
Last, `read_syntax` whole, as every command calls it (the leak scan, layout, the parse and its diagnostics).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from find import sample_functions, write_answers  # beside this script

from kite.graph.index import read_file
from kite.source import read
from kite.syntax import layout as layout_pass, leaks
from kite.syntax.frontend import read_syntax
from kite.syntax.parser import KiteTransformer, lark_only, lark_parser, parse_module

FILES = 500
RUNS = 3


def fastest(stage) -> tuple[float, list]:
    """The fastest run's CPU seconds and the stage's results."""
    best, results = float("inf"), []
    for _ in range(RUNS):
        start = time.process_time()
        results = stage()
        best = min(best, time.process_time() - start)
    return best, results


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        write_answers(folder, sample_functions(), FILES)
        paths = sorted(str(path) for path in folder.glob("*.kite"))
        lark_parser()  # the grammar loaded before any stage is timed
        costs: dict[str, float] = {}
        costs["read and decode"], sources = fastest(lambda: [read(path) for path in paths])
        costs["leak scan"], scans = fastest(lambda: [leaks.scan(source.text) for source in sources])
        costs["layout"], layouts = fastest(lambda: [layout_pass.check(s.recovered_text, s.declaration_lines) for s in scans])
        texts = ["\n".join(layout.lines) + "\n" for layout in layouts]
        costs["parse to AST (lalr.py)"], modules = fastest(lambda: [parse_module(text) for text in texts])
        with lark_only():
            lark_tree, trees = fastest(lambda: [lark_parser().parse(text, start="start") for text in texts])
            lark_transform, _ = fastest(lambda: [KiteTransformer(t).transform(tree) for t, tree in zip(texts, trees)])
        costs["graph index"], _ = fastest(lambda: [
            read_file(source.path, source.text, module, tuple(layout.lines))
            for source, module, layout in zip(sources, modules, layouts)
        ])
        front_end, _ = fastest(lambda: [read_syntax(source) for source in sources])
        total = sum(costs.values())
        for stage, seconds in costs.items():
            print(f"{stage:28} {seconds / FILES * 1000:6.3f} ms/file  {seconds / total:4.0%}")
        print(f"{'together':28} {total / FILES * 1000:6.3f} ms/file  ({FILES / total:.0f} files/s per core; target 1,000)")
        print(f"read_syntax whole            {front_end / FILES * 1000:6.3f} ms/file")
        print(f"Lark's path instead: LALR to Tree {lark_tree / FILES * 1000:.3f} ms/file, Transformer {lark_transform / FILES * 1000:.3f} ms/file")


if __name__ == "__main__":
    main()
