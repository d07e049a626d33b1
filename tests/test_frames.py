"""Code frames: which characters a diagnostic underlines (shared by `--format full` and the review page), and the
terminal output's colors, shown only on a terminal and never with NO_COLOR."""

from __future__ import annotations

import io

import pytest

from kite import diagnostics as diag
from kite.cli.emitters import full
from kite.frames import Underline, underlines

LINES = ["module Demo", "fn f(x: int) -> int", "    let mut total = x", "    return total"]


@pytest.mark.parametrize("where, expected", [
    ((3, 13, 3, 18), [Underline(3, 12, 17)]),  # a range: exactly its characters, whichever layer reported it
    ((3, 13, 3, 13), [Underline(3, 12, 17)]),  # a point: the word at its column
    ((3, 21, 3, 21), [Underline(3, 20, 21)]),  # a point on a one-character token
    ((3, 22, 3, 22), [Underline(3, 21, 22)]),  # a point just past the line's end
    ((3, 0, 3, 0), [Underline(3, 4, 21)]),  # no column: the line's code
    ((3, 9, 4, 11), [Underline(3, 8, 21), Underline(4, 4, 10)]),  # over two lines
    ((9, 1, 9, 1), []),  # a line the file does not have
])
def test_what_a_diagnostic_underlines(where, expected):
    assert underlines(LINES, *where) == expected


def diagnostic(path, line=3, column=9, end_column=16):
    return diag.Diagnostic(str(path), line, column, diag.Severity.WARNING, "KT002", "never changed\x1b[2J", diag.Layer.KITE,
                           line, end_column)


def test_a_frame_shows_the_line_and_carets_under_the_range_with_every_control_escaped(tmp_path):
    path = tmp_path / "demo.kite"
    path.write_text("module Demo\nfn f(x: int) -> int\n\tlet mut total = x # \x1b[31m\n    return total\n")
    text = full.render([diagnostic(path, column=6, end_column=15)], color=False)
    source, carets = text.split("\n")[3:5]
    assert source.endswith("|     let mut total = x # \\e[31m")
    assert carets.index("^") == source.index("mut total") and carets.count("^") == len("mut total")
    assert "\x1b" not in text and "never changed\\e[2J" in text


def test_colors_only_when_asked(tmp_path):
    path = tmp_path / "demo.kite"
    path.write_text("\n".join(LINES) + "\n")
    assert "\x1b[" not in full.render([diagnostic(path)], color=False)
    assert full.STYLE["warning"] + "^^^^^" in full.render([diagnostic(path)], color=True)


class Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize("tty, environment, expected", [
    (True, {}, True), (False, {}, False), (True, {"NO_COLOR": "1"}, False), (True, {"NO_COLOR": ""}, True),
])
def test_color_on_a_terminal_unless_no_color(tty, environment, expected):
    assert full.use_color(Stream(tty), environment) is expected
