"""`kite fmt`: files in, kite.format's layout out, each file written atomically or left as it was."""

from __future__ import annotations

import difflib
import sys
import traceback
from pathlib import Path

import click

from kite.atomic import replacing_mode, rewrite_in_place
from kite.cli.common import debugging, examples, exit_code, guarded, never_collect
from kite.display import diff_name, visible
from kite.errors import UnusableInput
from kite.progress import say


def _diff(path: str, before: bytes, after: bytes) -> str:
    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, diff_name(f"{path} (as written)"), diff_name(f"{path} (formatted)")))


@click.command(name="fmt", epilog=examples('kite fmt', 'kite fmt --check src/', 'kite fmt - --stdin-filename x.kite < x.kite'))
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option("--check", "check_only", is_flag=True, help="Write nothing; list the files that would change, exit 1 if any would.")
@click.option("--diff", "show_diff", is_flag=True, help="Write nothing; print what would change as a unified diff, exit 1 if anything would.")
@click.option("--stdin-filename", help="With `-`: the name that messages give the text read from stdin.")
@guarded
def fmt(paths, check_only, show_diff, stdin_filename):
    """Rewrite Kite files or folders (*.kite, recursively) in Kite's one layout (docs/format.md). `kite fmt -` reads
    stdin and writes the result to stdout.

    A file that does not parse (KT000, KT004) is left as it is and named with its first error's line. Exit 0 when
    every file is formatted (or, with --check or --diff, already was), 1 when one had a syntax error (or would
    change), 2 for unusable input (the other files are still formatted), 3 for a bug in kite."""
    from kite.format import NotKite, format_bytes
    from kite.source import read_bytes, read_stdin
    from kite.units import kite_files

    never_collect()
    if "-" in paths:
        if len(paths) > 1:
            raise UnusableInput("- (stdin) is formatted alone, not with other paths")
        files = [stdin_filename or "<stdin>"]
    elif stdin_filename:
        raise UnusableInput("--stdin-filename goes with - (stdin)")
    else:
        problems: list = []
        files = [str(path) for path in kite_files(paths or ["."], problems)]
    saw: set[str] = set()  # what went wrong, for exit_code
    for problem in problems if "-" not in paths else ():
        click.echo(f"kite: error: {visible(problem.problem)}", err=True)
        saw.add("unusable")
    changed, unchanged = 0, 0
    for number, name in enumerate(files, start=1):
        if len(files) > 1:
            say(f"[{number}/{len(files)}] {visible(name)}")
        try:
            data = read_stdin(name) if "-" in paths else read_bytes(name)
            formatted = format_bytes(data, name)
        except UnusableInput as error:
            click.echo(f"kite: error: {error}", err=True)
            saw.add("unusable")
            continue
        except NotKite as error:
            click.echo(f"{error.diagnostic.render()} (not formatted)", err=True)
            saw.add("failed")
            continue
        except Exception as error:  # a bug in kite: this file stays as it was, the others are still formatted
            click.echo(f"kite: internal error: {visible(name)}: {type(error).__name__}: {error}", err=True)
            if debugging():
                click.echo("".join(traceback.format_exception(error)).rstrip("\n"), err=True)
            saw.add("internal")
            continue
        if formatted == data:
            unchanged += 1
            if "-" in paths and not (check_only or show_diff):
                sys.stdout.buffer.write(formatted)
            continue
        changed += 1
        if show_diff:
            click.echo(_diff(visible(name), data, formatted), nl=False)
        elif check_only:
            click.echo(visible(name))
        elif "-" in paths:
            sys.stdout.buffer.write(formatted)
        else:
            path = Path(name)
            try:
                rewrite_in_place(path, formatted, replacing_mode(path))
            except OSError as error:
                click.echo(f"kite: error: {visible(name)}: cannot write ({error.strerror})", err=True)
                saw.add("unusable")
    if (check_only or show_diff) and changed:
        saw.add("failed")
    if "-" not in paths:
        verb = "would be formatted" if check_only or show_diff else "formatted"
        click.echo(f"{changed} {'file' if changed == 1 else 'files'} {verb}, {unchanged} unchanged", err=True)
    sys.exit(exit_code(internal="internal" in saw, unusable="unusable" in saw, failed="failed" in saw))
