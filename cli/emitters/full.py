"""`--format full`: each diagnostic with its source line and a caret span under its range, as rustc and Ruff show
them. Colored only when stdout is a terminal and NO_COLOR is not set (https://no-color.org)."""

from __future__ import annotations

import functools
import os
import sys

from kite import diagnostics as diag
from kite.display import visible
from kite.errors import UnusableInput
from kite.frames import underlines
from kite.source import read

RESET = "\x1b[0m"
STYLE = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "gutter": "\x1b[1;34m", "bold": "\x1b[1m"}


def use_color(stream, environment) -> bool:
    return stream.isatty() and not environment.get("NO_COLOR")


def shown(text: str) -> str:
    """Source text as one safe line: tabs as four spaces (so carets line up), every control spelled out."""
    return visible(text.replace("\t", "    "))


@functools.lru_cache(maxsize=32)
def source_lines(path: str) -> list[str] | None:
    try:
        return read(path).text.split("\n")
    except UnusableInput:  # gone or changed since it was checked: the header line still says everything
        return None


def frame(d: diag.Diagnostic, paint) -> list[str]:
    severity = d.severity.value
    lines = [paint(severity, f"{severity}[{d.id}]") + paint("bold", f": {visible(d.message)}")]
    column = f":{d.column}" if d.column else ""
    source = source_lines(d.file) or []
    marks = underlines(source, d.line, d.column, d.end_line, d.end_column) if source else []
    width = len(str(max([d.line, *(mark.line for mark in marks)])))
    lines.append(" " * width + paint("gutter", "--> ") + f"{visible(d.file)}:{d.line}{column}")
    if marks:
        lines.append(paint("gutter", " " * width + " |"))
    for mark in marks:
        text = source[mark.line - 1]
        lines.append(paint("gutter", f"{mark.line:>{width}} |") + " " + shown(text))
        carets = "^" * max(1, len(shown(text[mark.start:mark.end])))
        lines.append(paint("gutter", " " * width + " |") + " " + " " * len(shown(text[:mark.start])) + paint(severity, carets))
    lines += [paint("gutter", " " * width + " = ") + f"note: {related.render()}" for related in d.related]
    return lines


def render(found, color: bool) -> str:
    def paint(style: str, text: str) -> str:
        return f"{STYLE[style]}{text}{RESET}" if color else text

    blocks = ["\n".join(frame(d, paint)) for d in found]
    return "\n\n".join([*blocks, diag.summary(found)])


def check(reports) -> str:
    """Nothing when no unit could be checked at all: its one-line problem is the whole story."""
    if not any(report.check is not None for report in reports):
        return ""
    return render([d for report in reports for d in report.diagnostics], use_color(sys.stdout, os.environ))
