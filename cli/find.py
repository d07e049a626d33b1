"""`kite find` and `kite rewrite`: arguments to the search core, then an emitter, then the exit code."""

from __future__ import annotations

import click

from kite.cli import emitters
from kite.cli.common import exit_code
from kite.display import visible
from kite.errors import UnusableInput


def _problems(problems) -> bool:
    for problem in problems:
        click.echo(f"kite: error: {visible(problem)}", err=True)
    return bool(problems)


def run_find(pattern_text: str, paths: list[str], context: str | None, output_format: str, jobs: int | None,
             cache_dir: str | None) -> int:
    from kite.search.find import search
    from kite.search.pattern import parse_pattern
    from kite.spawn import default_jobs

    pattern = parse_pattern(pattern_text, context)
    try:
        searched = search(pattern, paths, jobs or default_jobs(), cache_dir)
    except OSError as error:
        if cache_dir is None:
            raise  # not the cache's: never blamed on a --cache that was not given
        raise UnusableInput(f"--cache {cache_dir}: cannot use it as a folder ({error.strerror})") from None
    click.echo(emitters.emitter(output_format).find(pattern, searched))
    # like grep: 1 when nothing matched
    return exit_code(unusable=_problems([file.problem for file in searched if file.problem]), failed=not any(file.found for file in searched))


def run_prepare(pattern_text: str | None, template: str | None, paths: list[str], context: str | None, plan_path: str) -> int:
    from pathlib import Path

    from kite.atomic import write_atomically
    from kite.search.pattern import parse_pattern
    from kite.search.rewrite import prepare

    if not pattern_text or template is None or not paths:
        raise UnusableInput("kite rewrite PATTERN --to TEMPLATE PATH... prepares a plan; kite rewrite --apply PLAN writes it")
    plan = prepare(parse_pattern(pattern_text, context), template, paths)
    click.echo(emitters.emitter("text").rewrite_plan(plan, plan_path), nl=False)
    if _problems(plan.problems):  # a plan must cover every file named: none is written without one of them
        return exit_code(unusable=True)
    if plan.files:
        try:
            write_atomically(Path(plan_path), plan.to_json().encode())
        except OSError as error:
            raise UnusableInput(f"{plan_path}: cannot write the plan ({error.strerror})") from None
    return exit_code(failed=not plan.files)


def run_apply(plan_path: str, check: bool) -> int:
    from kite.search.rewrite import PlanRefused, apply

    try:
        written = apply(plan_path, check)
    except PlanRefused as refused:
        click.echo(f"kite: plan refused, no file written: {visible(str(refused))}", err=True)
        return exit_code(failed=True)
    except OSError as error:
        click.echo(f"kite: error: writing failed, every file put back as it was: {visible(str(error))}", err=True)
        return exit_code(unusable=True)
    for path in written:
        click.echo(f"rewrote {visible(path)}")
    return 0
