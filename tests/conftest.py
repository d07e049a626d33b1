"""Shared helpers: paths, running the CLI in-process, and snapshot files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
ARTICLE = REPO / "tests" / "article"
UPDATE_SNAPSHOTS = os.environ.get("KITE_UPDATE_SNAPSHOTS") == "1"
# Every `kite` a test starts runs in its own process; tests/test_warm_server.py asks for the server explicitly.
os.environ["KITE_NO_SERVER"] = "1"


def run_kite(args: list[str], cwd: Path):
    """`kite ARGS` in `cwd`, in this process (the .NET runtime boots once per test worker)."""
    from kite.cli.main import main

    previous = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(previous)


def assert_snapshot(actual: str, expected_file: Path) -> None:
    """Compare with a reviewed snapshot; KITE_UPDATE_SNAPSHOTS=1 rewrites it (review the diff)."""
    if UPDATE_SNAPSHOTS:
        expected_file.write_text(actual)
        return
    if not expected_file.exists():
        pytest.fail(f"no snapshot {expected_file.relative_to(REPO)}: run with KITE_UPDATE_SNAPSHOTS=1 and review it")
    assert actual == expected_file.read_text()
