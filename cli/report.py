"""`kite report`: results files of `kite score` in, one self-contained HTML review page out (kite.report.page)."""

from __future__ import annotations

from pathlib import Path

import click

from kite.atomic import write_atomically
from kite.cli.common import examples, guarded
from kite.display import visible
from kite.errors import UnusableInput


@click.command(epilog=examples('kite report results.jsonl --run run.jsonl --field response.text -o report.html', 'kite report a.jsonl b.jsonl --run a-run.jsonl --run b-run.jsonl --field response.text', 'kite report results.jsonl --baseline old.jsonl'))
@click.argument("results", nargs=-1, required=True, type=click.Path(dir_okay=False, readable=False))
@click.option("-o", "--output", default="report.html", show_default=True, type=click.Path(dir_okay=False, readable=False),
              help="The HTML file to write: one file, nothing fetched, opens from file://.")
@click.option("--run", "run_paths", multiple=True, type=click.Path(dir_okay=False, readable=False),
              help="The RUN.jsonl each RESULTS was scored from, in the same order (once per RESULTS): the page shows each "
                   "answer's text with its claims and slop marked.")
@click.option("--field", help="Dotted path to the answer's text in RUN (as given to kite score); with --run.")
@click.option("--tasks", "tasks_dir", type=click.Path(file_okay=False, readable=False),
              help="The tasks folder that was scored: each answer is shown beside its task's prompt.md.")
@click.option("--baseline", type=click.Path(dir_okay=False, readable=False),
              help="An earlier results file: the same as giving it as the second RESULTS.")
@guarded
def report(results, output, run_paths, field, tasks_dir, baseline):
    """Write a review page for scored runs. The first RESULTS is the run the page reviews: its pass rate with its
    interval, the four layers as a funnel, the rules most failed first, every answer in a sortable table and
    (rendered on demand) with its diagnostics under its code, its tests, its claims and slop marked. Each further
    RESULTS (or --baseline) is compared with it: every rate and each task's pass rate of both, the difference
    (first minus other) with its 95% interval, and the answers whose verdict flipped.

    Exit 0 when the page was written, 2 for unusable input."""
    from kite.report.page import Run, render
    from kite.report.results import answer_texts, prompts, read_results

    paths = [*results, *([baseline] if baseline else [])]
    if bool(run_paths) != (field is not None):
        raise UnusableInput("--run and --field go together")
    if run_paths and len(run_paths) != len(results):
        raise UnusableInput(f"give --run once per RESULTS ({len(results)} results, {len(run_paths)} runs), in the same order")
    texts = [answer_texts(path, field) for path in run_paths] if run_paths else [{} for _ in results]
    task_prompts = prompts(tasks_dir) if tasks_dir else None
    runs = [Run(Path(path).name, read_results(path), texts[index] if index < len(texts) else {}, task_prompts)
            for index, path in enumerate(paths)]
    page = render(runs[0], runs[1:])
    try:
        write_atomically(Path(output), page.encode("utf-8"))
    except OSError as error:
        raise UnusableInput(f"{output}: cannot write ({error.strerror})") from None
    click.echo(f"wrote {visible(output)}: {len(runs[0].results)} answers" + (f", compared with {len(runs) - 1} other runs" if len(runs) > 1 else ""))
