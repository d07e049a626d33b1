"""Shared helpers: paths, running the CLI in-process, and snapshot files."""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
ARTICLE = REPO / "tests" / "article"
MESSAGES = REPO / "tests" / "messages"  # snapshots of the CLI's own messages
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


def gone(pid: int, within: float) -> bool:
    """Whether the process has ended within `within` seconds (a deadline, not a timing)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
            return True
        time.sleep(0.05)
    return False


def assert_snapshot(actual: str, expected_file: Path) -> None:
    """Compare with a reviewed snapshot; KITE_UPDATE_SNAPSHOTS=1 rewrites it (review the diff)."""
    if UPDATE_SNAPSHOTS:
        expected_file.write_text(actual)
        return
    if not expected_file.exists():
        pytest.fail(f"no snapshot {expected_file.relative_to(REPO)}: run with KITE_UPDATE_SNAPSHOTS=1 and review it")
    assert actual == expected_file.read_text()


# The fast tier, `pytest -m "not dotnet"` (docs/testing in README): the test files below never start .NET, and a test
# elsewhere that does not is marked one by one. Any other test is `dotnet`. A test of the fast tier that reaches for
# .NET fails at once, so this list cannot drift into a slow tier.
WITHOUT_DOTNET = frozenset({
    "test_ast_walk", "test_constants", "test_docs", "test_find", "test_format", "test_frames", "test_highlighting",
    "test_properties", "test_readme", "test_rewrite", "test_scoring_answer", "test_scoring_claims",
    "test_scoring_fragments", "test_scoring_slop", "test_syntax", "test_layers", "test_fix", "test_new_only",
    "test_batches",
})


def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.stem not in WITHOUT_DOTNET and item.get_closest_marker("no_dotnet") is None:
            item.add_marker(pytest.mark.dotnet)


@pytest.fixture(autouse=True)
def _collector_as_it_was():
    """A batch command run in this process (kite.cli.common.never_collect) freezes the heap and turns the collector
    off, however it was run (run_kite, a CliRunner, main()): every test starts with the collector the one before had."""
    collecting, thresholds = gc.isenabled(), gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    if collecting:
        gc.enable()


@pytest.fixture(autouse=True)
def _fast_tier_never_starts_dotnet(request, monkeypatch):
    if request.node.get_closest_marker("dotnet") is not None:
        return

    def refused(*_args, **_kwargs):
        pytest.fail(f"{request.node.nodeid} starts .NET: mark it @pytest.mark.dotnet (or move it out of the fast tier)")

    import kite.dotnet.compile_worker
    import kite.dotnet.packages
    import kite.dotnet.runtime

    monkeypatch.setattr(kite.dotnet.packages, "restore", refused)
    monkeypatch.setattr(kite.dotnet.runtime, "boot", refused)
    monkeypatch.setattr(kite.dotnet.compile_worker.CompileWorker, "_start", refused)
