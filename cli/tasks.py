"""`kite tasks`: check a task set (docs/tasks.md) and measure its hidden tests by mutation, on one session."""

from __future__ import annotations

import sys

import click

from kite.cli import emitters
from kite.cli.common import budget_option, compile_timeout_option, examples, exit_code, guarded, timeout_option
from kite.display import visible
from kite.tasks import DEFAULT_MAX_INPUTS, DEFAULT_MAX_MUTANTS


def tasks_format_option(command: str):
    return click.option("--format", "output_format", type=click.Choice(emitters.formats_for(command)), default="text",
                        show_default=True, help="text: for people. json: one document for scripts (docs/tasks.md).")


max_inputs_option = click.option(
    "--max-inputs", type=click.IntRange(min=1, max=1000), default=DEFAULT_MAX_INPUTS, show_default=True,
    help="Generated inputs per function the hidden tests call (made by type from the tests' own arguments, by --seed).")


@click.group(epilog=examples('kite tasks check samples/tasks', 'kite tasks mutate samples/tasks --min-score 0.8'))
def tasks():
    """Check a task set (TASKS_DIR/<task_id>/: prompt.md, solution.kite, *.test.kite, task.toml) and measure how
    strong its hidden tests are."""


@tasks.command(epilog=examples('kite tasks check samples/tasks', 'kite tasks check --format json samples/tasks'))
@click.argument("tasks_dir", type=click.Path(readable=False))
@tasks_format_option("tasks_check")
@timeout_option  # a task's task.toml time_limit wins
@compile_timeout_option
@guarded
def check(tasks_dir, output_format, timeout, compile_timeout):
    """Check every task of TASKS_DIR: its reference solution passes all four layers clean with its hidden tests
    passing, every test file is the task's module, every test has an expect, the prompt names what the tests call.

    Exit 0 when every task is fine, 1 when any has a problem, 2 when a task cannot be read (the others are still
    checked)."""
    from kite.scoring.tasks import TaskFolder
    from kite.session import Session
    from kite.tasks.check import check_tasks
    from kite.testing.limits import Limits

    folder = TaskFolder(tasks_dir)
    with Session(limits=Limits(timeout_seconds=timeout), compile_timeout=compile_timeout) as session:
        checks = check_tasks(session, folder)
    click.echo(emitters.emitter(output_format).tasks_check(checks))
    sys.exit(exit_code(unusable=any(c.unusable for c in checks), failed=not all(c.ok for c in checks)))


@tasks.command(epilog=examples('kite tasks mutate samples/tasks', 'kite tasks mutate samples/tasks --min-score 0.8 --format json'))
@click.argument("tasks_dir", type=click.Path(readable=False))
@click.option("--min-score", type=click.FloatRange(min=0, max=1), help="Fail (exit 1) when a task's mutation score is below this.")
@click.option("--max-mutants", type=click.IntRange(min=1), default=DEFAULT_MAX_MUTANTS, show_default=True,
              help="Mutants run per task, sampled by --seed when a solution has more (the same ones every run).")
@click.option("--seed", type=int, default=0, show_default=True, help="Chooses the sample of mutants and the generated inputs.")
@max_inputs_option
@budget_option
@tasks_format_option("tasks_mutate")
@timeout_option
@compile_timeout_option
@guarded
def mutate(tasks_dir, min_score, max_mutants, seed, max_inputs, budget, output_format, timeout, compile_timeout):
    """Measure the hidden tests of every task of TASKS_DIR by mutation: mutants of the reference solution (operators
    swapped, boundaries moved by one, constants changed, conditions negated, a statement removed, a return value
    replaced) run the hidden tests. A survivor runs on generated inputs beyond them: shown with one that tells it
    apart from the reference, or, agreeing on all, likely equivalent. The score is killed / (compiled - likely
    equivalent) mutants; each survivor is shown as a diff.

    Exit 0, or 1 when a task could not be measured or (with --min-score) scores below it, 2 when a task cannot be read."""
    from kite.scoring.tasks import TaskFolder
    from kite.session import Session
    from kite.tasks.mutation import mutate_tasks
    from kite.testing.limits import Limits

    folder = TaskFolder(tasks_dir)

    def progress(task_id: str) -> None:
        if sys.stderr.isatty():
            click.echo(f"mutating {visible(task_id)}", err=True)

    with Session(limits=Limits(timeout_seconds=timeout, budget_seconds=budget), compile_timeout=compile_timeout) as session:
        measured = mutate_tasks(session, folder, max_mutants, seed, progress, max_inputs)
    click.echo(emitters.emitter(output_format).tasks_mutate(measured, min_score))
    below = min_score is not None and any(task.score is None or task.score < min_score for task in measured)
    sys.exit(exit_code(unusable=any(task.unusable for task in measured), failed=below or any(task.problem for task in measured)))


@tasks.command(epilog=examples('kite tasks augment samples/tasks', 'kite tasks augment samples/tasks --write'))
@click.argument("tasks_dir", type=click.Path(readable=False))
@click.option("--seed", type=int, default=0, show_default=True, help="Chooses the generated inputs and the sample of mutants.")
@max_inputs_option
@click.option("--max-mutants", type=click.IntRange(min=1), default=DEFAULT_MAX_MUTANTS, show_default=True,
              help="Mutants per task the new expects are chosen to kill (the sample kite tasks mutate runs).")
@click.option("--write", is_flag=True, help="Write each task's new expects as <task>/augmented.test.kite.")
@budget_option
@tasks_format_option("tasks_augment")
@timeout_option
@compile_timeout_option
@guarded
def augment(tasks_dir, seed, max_inputs, max_mutants, write, budget, output_format, timeout, compile_timeout):
    """Make the hidden tests of every task of TASKS_DIR strong enough that a wrong answer cannot pass them: inputs
    made by type from the tests' own arguments run the reference solution (the oracle; an input it crashes on or
    times out on is reported), and a small set of them, chosen to kill the mutants the tests let survive, becomes
    new expects. The report gives tests and mutation score before and after; --write writes the expects as
    <task>/augmented.test.kite, which kite tasks check, kite tasks mutate and kite score --tasks then read too.

    Exit 0, or 1 when a task could not be augmented, 2 when a task cannot be read."""
    from kite.scoring.tasks import TaskFolder
    from kite.session import Session
    from kite.tasks.augment import Options, augment_tasks
    from kite.testing.limits import Limits

    folder = TaskFolder(tasks_dir)

    def progress(task_id: str) -> None:
        if sys.stderr.isatty():
            click.echo(f"augmenting {visible(task_id)}", err=True)

    with Session(limits=Limits(timeout_seconds=timeout, budget_seconds=budget), compile_timeout=compile_timeout) as session:
        augmented = augment_tasks(session, folder, Options(seed, max_inputs, max_mutants), write, progress)
    click.echo(emitters.emitter(output_format).tasks_augment(augmented))
    sys.exit(exit_code(unusable=any(task.unusable for task in augmented), failed=any(task.problem for task in augmented)))
