"""A newcomer's first minutes: `kite new` makes something that runs and passes at once, `kite run` builds and runs in
one step with the program's exit code, and every --help ends with examples."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest

from conftest import MESSAGES, REPO, assert_snapshot, gone, run_kite
from kite.cli.main import main


@pytest.mark.no_dotnet
def test_new_makes_a_program_its_tests_and_a_readme(tmp_path):
    result = run_kite(["new", "word-count"], tmp_path)
    assert result.exit_code == 0
    assert_snapshot(result.output, MESSAGES / "new.expected")
    assert sorted(path.name for path in (tmp_path / "word-count").iterdir()) == ["README.md", "word-count.kite", "word-count.test.kite"]
    assert "module WordCount" in (tmp_path / "word-count" / "word-count.kite").read_text()
    assert run_kite(["check", "--layer", "kite", "word-count"], tmp_path).output == "clean: 0 errors, 0 warnings\n"


@pytest.mark.no_dotnet
def test_new_never_writes_over_anything_and_refuses_a_bad_name(tmp_path):
    (tmp_path / "taken").mkdir()
    taken = run_kite(["new", "taken"], tmp_path)
    bad = run_kite(["new", "../escape"], tmp_path)
    assert (taken.exit_code, bad.exit_code) == (2, 2)
    assert_snapshot(taken.stderr + bad.stderr, MESSAGES / "new_refused.expected")
    assert list((tmp_path / "taken").iterdir()) == [] and not (tmp_path.parent / "escape").exists()


def test_the_new_program_runs_and_passes_and_the_new_task_checks(tmp_path):
    run_kite(["new", "hello"], tmp_path)
    assert run_kite(["test"], tmp_path / "hello").output == "PASS greeting says hello\n1 passed, 0 failed\n"
    (tmp_path / "tasks").mkdir()
    run_kite(["new", "greet", "--task"], tmp_path / "tasks")
    checked = run_kite(["tasks", "check", "tasks"], tmp_path)
    assert checked.exit_code == 0, checked.output


def kite(args, cwd, **kwargs):
    return subprocess.run([sys.executable, "-m", "kite.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False, **kwargs)


def test_run_builds_and_runs_and_exits_with_the_programs_code(tmp_path):
    (tmp_path / "fine.kite").write_text("module Fine\n\nfn main()\n    print(\"ran\")\n")
    (tmp_path / "crash.kite").write_text("module Crash\n\nfn main()\n    let xs = [1]\n    print(xs[5])\n")
    fine = kite(["run", "fine.kite", "--", "--not-kites", "x"], tmp_path)
    assert (fine.returncode, fine.stdout, fine.stderr) == (0, "ran\n", "")
    crash = kite(["run", "crash.kite"], tmp_path)
    assert crash.returncode not in (0, 1, 2, 3) and "ArgumentOutOfRangeException" in crash.stderr  # the program's own exit


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_run_leaves_no_program_running(tmp_path, stop):
    """`timeout 10 kite run` stopped kite alone: its program spun on forever, an orphan, beside the build's folder."""
    (tmp_path / "spin.kite").write_text("module Spin\n\nfn main()\n    let mut i = 0\n    while true\n        i = 1 - i\n")
    running = subprocess.Popen([sys.executable, "-m", "kite.cli", "run", "spin.kite"], cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp_path)})
    program = None
    deadline = time.monotonic() + 300  # a deadline for the build, not a timing
    while program is None and time.monotonic() < deadline:
        children = subprocess.run(["pgrep", "-P", str(running.pid)], capture_output=True, text=True, check=False).stdout.split()
        program = next((int(pid) for pid in children if b"Spin.dll" in Path(f"/proc/{pid}/cmdline").read_bytes()), None)
        time.sleep(0.1)
    assert program is not None
    running.send_signal(stop)
    assert running.wait(timeout=60) == (143 if stop == signal.SIGTERM else -stop)
    assert gone(program, within=60)
    if stop == signal.SIGTERM:
        assert not list(tmp_path.glob("kite-run-*"))


def test_run_stops_before_running_what_does_not_compile(tmp_path):
    (tmp_path / "bad.kite").write_text("module Bad\n\nfn main()\n    let x = 1\n    x = 2\n")
    done = kite(["run", "bad.kite"], tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "bad.kite(5): error KT001" in done.stderr


def every_command(group: click.Group, prefix: tuple[str, ...] = ()) -> list[list[str]]:
    """The group and each command under it, read from click: a command added later is covered without a list to edit."""
    found = [list(prefix)]
    for name, command in group.commands.items():
        found += every_command(command, (*prefix, name)) if isinstance(command, click.Group) else [[*prefix, name]]
    return found


COMMANDS = every_command(main)


@pytest.mark.no_dotnet
@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: " ".join(command) or "kite")
def test_every_help_ends_with_examples_of_that_command(command):
    shown = run_kite([*command, "--help"], REPO).output
    tail = shown.rsplit("Examples:\n", 1)[-1].splitlines()
    assert "Examples:\n" in shown and tail and all(line.startswith(f"    kite {' '.join(command)}".rstrip()) for line in tail)
    assert shown.startswith(f"Usage: kite {' '.join(command)}".rstrip())


def test_the_first_run_says_what_it_does_and_how_long_it_took(tmp_path, monkeypatch):
    from kite import progress
    from kite.dotnet import packages

    monkeypatch.setenv("KITE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(packages, "_restore_into", lambda folder, project, layout_file: layout_file.write_text("{}"))
    monkeypatch.setattr(packages, "_read_layout", lambda folder, layout_file: None)
    said: list[str] = []
    with progress.forwarding(said.append):
        packages.restore()
        packages.restore()  # restored: nothing more to say
    assert [re.sub(r"\d+ s$", "N s", line) for line in said] == [
        "kite: first run: restoring the pinned .NET packages (once)",
        "kite: first run: .NET packages restored (Roslyn is precompiled in the background): took N s",
    ]


def test_the_server_forwards_progress_to_a_terminal_client_only(tmp_path):
    from test_warm_server import THROUGH_SERVER, own_cache_folder

    cache = own_cache_folder()
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(cache)}
    for name in ("a", "b"):
        (tmp_path / f"{name}.kite").write_text(f"module {name.upper()}\n")
    ask = ("import os, sys; from kite.cli.warm_server import request, start_server; start_server(); "
           "reply = request({'op': 'run', 'argv': ['check', '--layer', 'kite', 'a.kite', 'b.kite'], 'cwd': os.getcwd(), "
           "'env': dict(os.environ), 'tty': sys.argv[1] == 'tty'}); print(reply['exit'])")
    try:
        terminal = subprocess.run([sys.executable, "-c", ask, "tty"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
        script = subprocess.run([sys.executable, "-c", ask, "pipe"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    finally:
        subprocess.run([sys.executable, "-m", "kite.cli", "server", "stop"], env=env, capture_output=True, timeout=120, check=False)
    assert terminal.stdout == script.stdout == "0\n"
    assert terminal.stderr == "[1/2] a.kite\n[2/2] b.kite\n" and script.stderr == ""
