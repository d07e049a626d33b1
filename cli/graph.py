"""`kite graph`: arguments to kite.graph, then an emitter, then the exit code."""

from __future__ import annotations

import click

from kite.cli import emitters
from kite.cli.common import exit_code
from kite.display import visible
from kite.errors import UnusableInput


def run_graph(paths: list[str], output_format: str, queries: dict[str, str | None], cache_dir: str | None,
              jobs: int | None = None) -> int:
    from kite.graph.build import build, query
    from kite.spawn import default_jobs

    asked = [(kind, name) for kind, name in queries.items() if name is not None]
    if len(asked) > 1:
        raise UnusableInput("ask one of --callers, --callees, --impact at a time")
    try:
        graph = build(paths, cache_dir, jobs or default_jobs())
    except OSError as error:
        if cache_dir is None:
            raise  # not the cache's: never blamed on a --cache that was not given
        raise UnusableInput(f"--cache {cache_dir}: cannot use it as a folder ({error.strerror})") from None
    for skipped in graph.skipped:
        click.echo(f"kite: warning: {visible(skipped)} (left out of the graph)", err=True)
    found = query(graph, *asked[0]) if asked else None
    click.echo(emitters.emitter(output_format).graph(graph, found))
    for problem in graph.problems:
        click.echo(f"kite: error: {visible(problem)}", err=True)
    return exit_code(unusable=bool(graph.problems))
