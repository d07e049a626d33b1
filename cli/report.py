"""`kite report`: a results file of `kite score` in, one self-contained HTML review page out (kite.report.page)."""

from __future__ import annotations

from pathlib import Path

import click

from kite.atomic import write_atomically
from kite.cli.common import examples, guarded
from kite.display import visible
from kite.errors import UnusableInput


@click.command(epilog=examples('kite report results.jsonl --run run.jsonl --field response.text -o report.html', 'kite report results.jsonl --baseline old.jsonl'))
@click.argument("results", type=click.Path(dir_okay=False))
@click.option("-o", "--output", default="report.html", show_default=True, type=click.Path(dir_okay=False),
              help="The HTML file to write: one file, nothing fetched, opens from file://.")
@click.option("--run", "run_path", type=click.Path(dir_okay=False),
              help="The RUN.jsonl that was scored: the page shows each answer's text with its claims and slop marked.")
@click.option("--field", help="Dotted path to the answer's text in RUN (as given to kite score); with --run.")
@click.option("--baseline", type=click.Path(dir_okay=False),
              help="An earlier results file: each rate's change with its 95% interval, and the answers whose verdict flipped.")
@guarded
def report(results, output, run_path, field, baseline):
    """Write a review page for a scored run: the rates with their intervals, the per-rule and per-task tables, and
    every answer (rendered on demand) with its diagnostics under its code, its tests, and its false claims and slop
    marked in its prose; filters, search, permalinks (#answer-LINE) and j/k.

    Exit 0 when the page was written, 2 for unusable input."""
    from kite.report.page import Run, render
    from kite.report.results import answer_texts, read_results

    if (run_path is None) != (field is None):
        raise UnusableInput("--run and --field go together")
    run = Run(Path(results).name, read_results(results), answer_texts(run_path, field) if run_path else {})
    old = Run(Path(baseline).name, read_results(baseline), {}) if baseline else None
    page = render(run, old)
    try:
        write_atomically(Path(output), page.encode("utf-8"))
    except OSError as error:
        raise UnusableInput(f"{output}: cannot write ({error.strerror})") from None
    click.echo(f"wrote {visible(output)}: {len(run.results)} answers")
