"""`kite`: click commands only. Exit codes: 0 fine, 1 the code failed, 2 unusable input or toolchain."""

from __future__ import annotations

import functools
import platform
import sys

import click

from kite import __version__
from kite.cli import reports
from kite import diagnostics as diag
from kite.errors import ToolchainError, UnusableInput
from kite.rules.kt010_compile_budget import DEFAULT_COMPILE_TIMEOUT

EXIT_FAILED = 1
EXIT_UNUSABLE = 2
EXIT_INTERNAL = 3

compile_timeout_option = click.option(
    "--compile-timeout", type=click.FloatRange(min=0.1, max=3600), default=DEFAULT_COMPILE_TIMEOUT, show_default=True,
    help="Seconds the C# compiler and analyzers may spend on a program and its tests; past it they are stopped (KT010).",
)


def guarded(command):
    """One line, never a traceback: unusable input and toolchain problems exit 2."""

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
        except Exception as error:  # a bug in kite itself: still one line, and a distinct exit code
            click.echo(f"kite: internal error: {type(error).__name__}: {error}", err=True)
            sys.exit(EXIT_INTERNAL)

    return run


def version_lines() -> list[str]:
    from kite.dotnet.runtime import boot

    lines = [f"kite {__version__}", f"Python {platform.python_version()} ({sys.executable})"]
    runtime = boot()
    versions = runtime.packages.versions
    lines += [
        f".NET runtime {runtime.runtime_version} ({runtime.runtime_dir})",
        f"Roslyn (Microsoft.CodeAnalysis.CSharp) {versions['Microsoft.CodeAnalysis.CSharp']} ({runtime.packages.compiler_dlls[-1]})",
        f"Analyzers (Microsoft.CodeAnalysis.NetAnalyzers) {versions['Microsoft.CodeAnalysis.NetAnalyzers']} ({runtime.packages.analyzer_dlls[0]})",
        f"Reference assemblies (Microsoft.NETCore.App.Ref) {versions['Microsoft.NETCore.App.Ref']}",
    ]
    return lines


def print_version(ctx, _param, value):
    if not value or ctx.resilient_parsing:
        return
    guarded(lambda: click.echo("\n".join(version_lines())))()
    ctx.exit(0)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=print_version,
              help="Show the versions of kite, Python, .NET, Roslyn and the analyzers, and exit.")
def main():
    """Kite: check, test and build Kite programs through four layers (Kite, C# compiler, .NET analyzers, tests)."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--layer", type=click.Choice(["kite", "all"]), default="all", show_default=True,
              help="kite: Kite's own parser and rules only (fast, no .NET). all: also the C# compiler and the .NET analyzers.")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True,
              help="text: one line per diagnostic and a summary. json: one document for scripts (docs/cli.md). sarif: SARIF 2.1.0 for code scanning.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on warnings too.")
@compile_timeout_option
@guarded
def check(paths, layer, output_format, strict, compile_timeout):
    """Check Kite files or folders (*.kite, recursively). Exit 0 if no errors, 1 if any, 2 for unusable input."""
    from kite.pipeline import Checker, collect_units

    units = collect_units(list(paths))
    checker = Checker(layer, compile_timeout)
    found: list[diag.Diagnostic] = []
    layers_run: set[str] = set()
    skipped: set[str] = set()
    for number, unit in enumerate(units, start=1):
        if len(units) > 1 and output_format == "text" and sys.stderr.isatty():
            click.echo(f"[{number}/{len(units)}] {unit.program.path}", err=True)
        result = checker.check(unit)
        found.extend(result.diagnostics)
        layers_run.update(result.layers_run)
        skipped.update(f"{unit.program.path}: {reason}" for reason in result.skipped)
    verdict = diag.verdict(found)
    if output_format == "json":
        click.echo(reports.check_json(found, layers_run, skipped))
    elif output_format == "sarif":
        click.echo(reports.check_sarif(found))
    else:
        click.echo(reports.check_text(found))
    failed = verdict is diag.Verdict.FAILED or (strict and verdict is not diag.Verdict.CLEAN)
    sys.exit(EXIT_FAILED if failed else 0)


@main.command()
@click.argument("program", type=click.Path())
@click.option("-o", "--output", "output", type=click.Path(file_okay=False), required=True,
              help="Folder for <Module>.dll, KiteStd.dll and <Module>.runtimeconfig.json.")
@compile_timeout_option
@guarded
def build(program, output, compile_timeout):
    """Compile PROGRAM into an assembly that `dotnet OUTPUT/<Module>.dll` runs, entering at fn main."""
    from pathlib import Path

    from kite.pipeline import Checker, Unit, build as build_program
    from kite.source import read

    built = build_program(Checker(compile_timeout=compile_timeout), Unit(read(program)), Path(output))
    click.echo(reports.check_text(list(built.result.diagnostics)))
    if built.assembly is None:
        sys.exit(EXIT_FAILED)
    click.echo(f"built {built.assembly}")



@main.command(name="test")
@click.argument("program", type=click.Path())
@click.option("--tests", "test_paths", multiple=True, type=click.Path(),
              help="A test file or a folder of them (same module); repeatable. NAME.test.kite beside PROGRAM always joins.")
@click.option("--timeout", type=click.FloatRange(min=0.1, max=600), default=5.0, show_default=True, help="Seconds each test may run.")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "junit"]), default="text", show_default=True,
              help="text: a line per test and 'N passed, M failed'. json: for scripts. junit: JUnit XML for CI systems.")
@compile_timeout_option
@guarded
def test_command(program, test_paths, timeout, output_format, compile_timeout):
    """Compile PROGRAM with its tests through the static layers, then run every test out of process under a time limit.

    Exit 0 when the program compiles and every test passes, 1 otherwise, 2 for unusable input."""
    from kite.pipeline import Checker, Unit, collect_files, collect_units
    from kite.source import read
    from kite.testing.runner import TestSession
    from kite.testing.worker import Limits

    [unit] = collect_units([program])
    extra = [read(str(path)) for path in collect_files(test_paths)]
    known = {source.path for source in unit.sources}
    unit = Unit(unit.program, unit.tests + tuple(source for source in extra if source.path not in known))
    with TestSession(Checker(compile_timeout=compile_timeout), Limits(timeout_seconds=timeout)) as session:
        report = session.run(unit)
    if output_format == "json":
        click.echo(reports.tests_json([report]))
    elif output_format == "junit":
        click.echo(reports.tests_junit([report]))
    else:
        if not report.compiled:
            click.echo(reports.check_text(list(report.check.diagnostics)))
        for outcome in report.outcomes:
            click.echo(reports.describe_outcome(outcome, report.timeout_seconds))
        click.echo(f"{report.passed} passed, {report.failed} failed")
    sys.exit(0 if report.passes else EXIT_FAILED)


if __name__ == "__main__":
    main()
