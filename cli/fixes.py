"""`kite check --fix`: kite.fixing over every file of the units, each file written atomically, and what was done said
(file, line, rule, before -> after) before the check prints what is left."""

from __future__ import annotations

from pathlib import Path

import click

from kite.atomic import replacing_mode, rewrite_in_place
from kite.display import visible
from kite.errors import UnusableInput


def _shown(lines) -> str:
    return " ⏎ ".join(visible(line.strip()) for line in lines) if lines else "(line removed)"


def fix_units(sources, err: bool) -> None:
    """Apply the safe fixes of every file the units name; `err`: say what was done on stderr (the check's output is
    a document). A file that cannot be read is left to the check to report."""
    from kite.fixing import fix_file
    from kite.source import STDIN_PATH, decode, encode_like, read_bytes

    for path in dict.fromkeys(file for unit in sources for file in (unit.program, *unit.tests)):
        if path == STDIN_PATH:
            raise UnusableInput("--fix rewrites files: pipe stdin through `kite fmt -`, or name the file")
        try:
            data = read_bytes(path)
            source = decode(path, data)
        except UnusableInput:
            continue
        result = fix_file(source)
        if result.text != source.text:
            try:
                rewrite_in_place(Path(path), encode_like(result.text, data), replacing_mode(Path(path)))
            except OSError as error:
                raise UnusableInput(f"{path}: cannot write ({error.strerror})") from None
        for fixed in result.fixed:
            click.echo(f"{visible(path)}({fixed.line}): fixed {', '.join(fixed.rules)}: {_shown([fixed.before])} → {_shown(fixed.after)}", err=err)
        for dropped in result.not_fixed:
            click.echo(f"{visible(path)}({dropped.line}): not fixed {dropped.rule} ({visible(dropped.title)}): {visible(dropped.reason)}", err=err)
