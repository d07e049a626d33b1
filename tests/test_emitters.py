"""Every output format is a snapshot over the same fixture set, so a change to any format shows in review."""

from __future__ import annotations

import re
import shutil
import sys

import pytest

from conftest import ARTICLE, FIXTURES, REPO, assert_snapshot, run_kite
from kite.cli.emitters import formats_for

SNAPSHOTS = REPO / "tests" / "emitters"
HOSTILE = REPO / "tests" / "hostile"
TIMES = [(re.compile(r'"seconds": [0-9.]+'), '"seconds": S'), (re.compile(r'time="[0-9.]+"'), 'time="S"'),
         (re.compile(r'"version": "[^"]+"'), '"version": "V"')]


def stable(text: str) -> str:
    """Timings and kite's version vary from run to run; everything else is the format's."""
    for pattern, replacement in TIMES:
        text = pattern.sub(replacement, text)
    return text


@pytest.fixture(scope="module")
def check_set(tmp_path_factory):
    """The article's three examples, a file the C# layers cannot run on, a name declared again (a related location)
    and an empty file."""
    folder = tmp_path_factory.mktemp("check_set")
    for source in (ARTICLE / "mistakes.kite", ARTICLE / "leak.kite", ARTICLE / "ca.kite", FIXTURES / "KT000" / "header_colon.kite",
                   FIXTURES / "KT011" / "name_in_scope.kite"):
        shutil.copy(source, folder / source.name)
    (folder / "empty.kite").write_bytes(b"")
    return folder


@pytest.mark.parametrize("output_format", formats_for("check"))
def test_check_in_every_format(check_set, output_format):
    result = run_kite(["check", "--format", output_format, "."], cwd=check_set)
    assert result.exit_code == 2  # the empty file; every other file still has its result
    assert_snapshot(stable(result.stdout), SNAPSHOTS / f"check.{output_format}")


@pytest.fixture(scope="module")
def test_set(tmp_path_factory):
    """A passing answer, a wrong one, a forged report line, and an endless loop."""
    folder = tmp_path_factory.mktemp("test_set")
    for source in (ARTICLE / "words.kite", ARTICLE / "words.test.kite", HOSTILE / "forges_report.kite", HOSTILE / "endless_loop.kite"):
        shutil.copy(source, folder / source.name)
    return folder


@pytest.mark.parametrize("output_format", formats_for("test"))
def test_test_in_every_format(test_set, output_format):
    result = run_kite(["test", "--timeout", "1", "--format", output_format, "."], cwd=test_set)
    assert result.exit_code == 1
    assert_snapshot(stable(result.stdout), SNAPSHOTS / f"test.{output_format}")


def test_every_command_offers_the_formats_its_data_has():
    assert formats_for("check") == ["text", "full", "github", "json", "sarif"]
    assert formats_for("test") == ["text", "github", "json", "junit"]


def test_a_new_format_is_a_new_module_and_nothing_else(tmp_path, monkeypatch):
    from kite.cli import emitters

    (tmp_path / "markdown.py").write_text("def check(reports):\n    return '# checked'\n")
    monkeypatch.setattr(emitters, "__path__", [*emitters.__path__, str(tmp_path)])
    monkeypatch.setattr(emitters, "_FORMATS", emitters._found())
    assert formats_for("check") == ["text", "full", "github", "json", "markdown", "sarif"]
    assert "markdown" not in formats_for("test") and emitters.emitter("markdown").check([]) == "# checked"
    sys.modules.pop("kite.cli.emitters.markdown")
