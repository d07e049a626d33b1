"""`kite`: click commands only. Exit codes: 0 fine, 1 the code failed, 2 unusable input or toolchain."""

from __future__ import annotations

import functools
import json
import platform
import sys

import click

from kite import __version__
from kite import diagnostics as diag
from kite.errors import ToolchainError, UnusableInput

EXIT_FAILED = 1
EXIT_UNUSABLE = 2
EXIT_INTERNAL = 3


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
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: one line per diagnostic and a summary. json: one document for scripts.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on warnings too.")
@guarded
def check(paths, layer, output_format, strict):
    """Check Kite files or folders (*.kite, recursively). Exit 0 if no errors, 1 if any, 2 for unusable input."""
    from kite.pipeline import Checker, collect_units

    units = collect_units(list(paths))
    checker = Checker(layer)
    found: list[diag.Diagnostic] = []
    layers_run: set[str] = set()
    for number, unit in enumerate(units, start=1):
        if len(units) > 1 and output_format == "text" and sys.stderr.isatty():
            click.echo(f"[{number}/{len(units)}] {unit.program.path}", err=True)
        result = checker.check(unit)
        found.extend(result.diagnostics)
        layers_run.update(result.layers_run)
    verdict = diag.verdict(found)
    if output_format == "json":
        document = {
            "verdict": verdict.value,
            "errors": sum(d.severity is diag.Severity.ERROR for d in found),
            "warnings": sum(d.severity is diag.Severity.WARNING for d in found),
            "layers": sorted(layers_run),
            "diagnostics": [d.to_json() for d in found],
        }
        click.echo(json.dumps(document, indent=2))
    else:
        for d in found:
            click.echo(d.render())
        click.echo(diag.summary(found))
    failed = verdict is diag.Verdict.FAILED or (strict and verdict is not diag.Verdict.CLEAN)
    sys.exit(EXIT_FAILED if failed else 0)


@main.command()
@click.argument("program", type=click.Path())
@click.option("-o", "--output", "output", type=click.Path(file_okay=False), required=True,
              help="Folder for <Module>.dll, KiteStd.dll and <Module>.runtimeconfig.json.")
@guarded
def build(program, output):
    """Compile PROGRAM into an assembly that `dotnet OUTPUT/<Module>.dll` runs, entering at fn main."""
    from pathlib import Path

    from kite.pipeline import Checker, Unit, build as build_program
    from kite.source import read

    built = build_program(Checker(), Unit(read(program)), Path(output))
    for d in built.result.diagnostics:
        click.echo(d.render())
    click.echo(diag.summary(built.result.diagnostics))
    if built.assembly is None:
        sys.exit(EXIT_FAILED)
    click.echo(f"built {built.assembly}")


if __name__ == "__main__":
    main()
