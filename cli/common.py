"""What every `kite` command shares: the exit codes, one line instead of a traceback, the time limits."""

from __future__ import annotations

import functools
import gc
import sys
import traceback

import click

from kite.defaults import (
    ANSWER_BUDGET_SECONDS,
    COMPILE_MEMORY_MB,
    COMPILE_TIMEOUT_SECONDS,
    REVEALS,
    TEST_TIMEOUT_SECONDS,
)
from kite.errors import ToolchainError, UnusableInput, refusal

timeout_option = click.option(
    "--timeout", type=click.FloatRange(min=0.1, max=600), default=TEST_TIMEOUT_SECONDS, show_default=True,
    help="Seconds each test may run.")
budget_option = click.option(
    "--budget", type=click.FloatRange(min=0.1, max=3600), default=ANSWER_BUDGET_SECONDS, show_default=True,
    help="Seconds all of an answer's tests may run together.")
reveal_option = click.option(
    "--reveal", type=click.Choice(REVEALS), default=REVEALS[0], show_default=True,
    help="What results show of the hidden tests: tests (their messages, places, output and diagnostics), names (which "
         "test and why in general terms only), none (not even their names). For results that go back to a model.")
compile_memory_option = click.option(
    "--compile-memory", type=click.IntRange(min=256, max=1 << 20), default=COMPILE_MEMORY_MB, show_default=True,
    help="MB of RAM the C# compiler's process may hold while it compiles an answer (.NET and Roslyn included); past it "
         "it is stopped (KT010).",
)
compile_timeout_option = click.option(
    "--compile-timeout", type=click.FloatRange(min=0.1, max=3600), default=COMPILE_TIMEOUT_SECONDS, show_default=True,
    help="Seconds the C# compiler and analyzers may spend on a program and its tests; past it they are stopped (KT010).",
)

class OutputOption(click.Option):
    """`-o/--output`, every command's one spelling of the file it writes; older spellings (`--out`, `--plan`) still
    work and are left out of --help."""

    def __init__(self, *args, old_spellings: tuple[str, ...] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.old_spellings = old_spellings

    def get_help_record(self, ctx):
        shown, self.opts = self.opts, [name for name in self.opts if name not in self.old_spellings]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = shown


def output_option(destination: str, *old_spellings: str, **kwargs):
    return click.option("-o", "--output", *old_spellings, destination, cls=OutputOption, old_spellings=old_spellings, **kwargs)


def examples(*lines: str) -> str:
    """A command's --help ends with these (click's epilog; \\b keeps the lines as written)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


EXIT_FAILED = 1
EXIT_UNUSABLE = 2
EXIT_INTERNAL = 3


def never_collect() -> None:
    """For a command that reads many files once and exits (graph, find, fmt): its parses make no cyclic garbage (a
    test counts it over the samples), so reference counts free all that is not kept to the end, and the collector's
    passes over a growing heap (an eleventh of a cold graph) free nothing: freeze what is loaded and turn it off. Not
    for the language server, the warm server or `kite score`, which live on and whose garbage must be freed."""
    gc.freeze()
    gc.disable()


def exit_code(*, internal: bool = False, unusable: bool = False, failed: bool = False) -> int:
    """The worst that happened: a bug in kite (3), unusable input (2), code that failed or nothing found (1), or
    fine (0). Every command's exit code is this of what it saw."""
    return EXIT_INTERNAL if internal else EXIT_UNUSABLE if unusable else EXIT_FAILED if failed else 0


def debugging() -> bool:
    """`kite --debug`: internal errors come with their traceback."""
    context = click.get_current_context(silent=True)
    return bool(context and context.find_root().params.get("debug"))


def guarded(command):
    """One line, never a traceback (unless --debug): unusable input, toolchain problems and a file system that
    refuses a write exit 2."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (UnusableInput, ToolchainError) as error:
            click.echo(f"kite: error: {error}", err=True)
            sys.exit(EXIT_UNUSABLE)
        except KeyboardInterrupt:
            click.echo("kite: interrupted", err=True)
            sys.exit(130)
        except OSError as error:
            line = refusal(error)
            if line is None:
                internal(error)
            click.echo(line, err=True)
            sys.exit(EXIT_UNUSABLE)
        except Exception as error:  # a bug in kite itself: still one line, and a distinct exit code
            internal(error)

    return run


def internal(error: Exception):
    click.echo(f"kite: internal error: {type(error).__name__}: {error}", err=True)
    if debugging():
        click.echo("".join(traceback.format_exception(error)).rstrip("\n"), err=True)
    sys.exit(EXIT_INTERNAL)
