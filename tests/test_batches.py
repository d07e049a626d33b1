"""A batch never stops at one path: a folder without .kite files, a file click would call unreadable, a folder that
cannot be read, a FIFO, a device, a UTF-16 file are each one line on stderr and exit 2, and the rest is checked."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import ARTICLE, MESSAGES, REPO, assert_snapshot, run_kite


@pytest.fixture
def batch(tmp_path):
    shutil.copy(ARTICLE / "mistakes.kite", tmp_path / "good.kite")
    (tmp_path / "nokite").mkdir()
    (tmp_path / "nokite" / "notes.txt").write_text("no Kite here\n")
    os.mkfifo(tmp_path / "fifo.kite")
    (tmp_path / "utf16.kite").write_bytes("module Utf\n".encode("utf-16"))
    (tmp_path / "utf16be.kite").write_bytes("module Utf\n".encode("utf-16-be"))
    (tmp_path / "utf32.kite").write_bytes("module Utf\n".encode("utf-32"))
    return tmp_path


def test_every_unusable_path_is_one_line_and_the_rest_is_checked(batch):
    result = run_kite(["check", "--layer", "kite", "nokite", "fifo.kite", "/dev/null", "utf16.kite", "utf16be.kite",
                       "utf32.kite", "good.kite"], batch)
    assert result.exit_code == 2
    assert "good.kite(5): error KT001" in result.stdout
    assert_snapshot(result.stderr, MESSAGES / "unusable_paths.expected")


@pytest.mark.parametrize("command, went_on", [(["check", "--layer", "kite"], "good.kite(5): error KT001"),
                                              (["fmt", "--check"], "1 unchanged"), (["find", "$X"], "1 searched"),
                                              (["graph"], "good.kite(")])
def test_no_command_stops_at_a_folder_without_kite_files(batch, command, went_on):
    result = run_kite([*command, "nokite", "good.kite"], batch)
    assert result.exit_code == 2
    assert "kite: error: nokite: no .kite files in this folder" in result.stderr
    assert went_on in result.stdout + result.stderr


@pytest.mark.parametrize("command, went_on", [
    (["check", "--layer", "kite", "good.kite", "nokite"], "good.kite(5): error KT001"), (["graph", "good.kite", "nokite"], "good.kite("),
    (["check", "--layer", "kite", "--new-only", "--state", "state.json", "good.kite", "nokite"], "0 new; all of them: failed"),
])
def test_a_file_click_would_call_unreadable_is_still_read_by_kite(batch, monkeypatch, command, went_on):
    """click's own check (os.access) is a three-line usage error that ends the batch; kite reads it and says why not."""
    run_kite(["check", "--layer", "kite", "--new-only", "--state", "state.json", "good.kite"], batch)
    monkeypatch.setattr(os, "access", lambda *_args, **_kwargs: False)
    result = run_kite(command, batch)
    assert result.exit_code == 2 and went_on in result.stdout
    assert result.stderr == "kite: error: nokite: no .kite files in this folder\n"


def test_no_command_lets_click_judge_whether_a_path_is_readable():
    """Every path kite reads (a batch, --state, --apply, report's files, --cache, debug's program) is read by kite."""
    import click

    from kite.cli.main import main

    def params(command, name):
        for param in command.params:
            yield f"{name} {param.name}", param
        for sub_name, sub in getattr(command, "commands", {}).items():
            yield from params(sub, f"{name} {sub_name}")

    judged = [name for name, param in params(main, "kite") if isinstance(param.type, click.Path) and param.type.readable]
    assert judged == []


def test_an_unreadable_subfolder_is_one_line_and_its_siblings_are_checked(batch, monkeypatch):
    (batch / "tree" / "locked").mkdir(parents=True)
    shutil.copy(ARTICLE / "mistakes.kite", batch / "tree" / "seen.kite")
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = run_kite(["check", "--layer", "kite", "tree"], batch)
    assert result.exit_code == 2 and "tree/seen.kite(5): error KT001" in result.stdout
    assert result.stderr == "kite: error: tree/locked: cannot read this folder (Permission denied)\n"


def test_no_path_is_the_current_folder(batch):
    shutil.rmtree(batch / "nokite")
    for name in ("fifo.kite", "utf16.kite", "utf16be.kite", "utf32.kite"):
        (batch / name).unlink()
    assert run_kite(["check", "--layer", "kite"], batch).stdout == run_kite(["check", "--layer", "kite", "."], batch).stdout
    assert run_kite(["fmt", "--check"], batch).output == run_kite(["fmt", "--check", "."], batch).output


def test_usage_errors_call_the_program_kite():
    result = run_kite(["check", "--no-such-option"], REPO)
    assert result.exit_code == 2
    assert_snapshot(result.output, MESSAGES / "usage_error.expected")


@contextlib.contextmanager
def small_file_system(options: str):
    """A tmpfs of its own (root only: where mounting is refused, the test is skipped)."""
    folder = Path(tempfile.mkdtemp(prefix="kite-fs-"))
    if os.getuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, check=False).returncode:
        folder.rmdir()
        pytest.skip("needs root to mount a small file system")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)
        folder.rmdir()


@pytest.mark.dotnet
def test_build_into_a_read_only_folder_is_one_line_and_exit_2():
    with small_file_system("ro,size=64k") as folder:
        result = run_kite(["build", str(REPO / "samples/hello.kite"), "-o", str(folder / "out")], REPO)
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == f"kite: error: {folder / 'out'}: cannot write the build (Read-only file system)\n"
        assert list(folder.iterdir()) == []


@pytest.mark.dotnet
def test_score_on_a_full_disk_is_one_line_and_exit_2_with_no_empty_summary(tmp_path):
    run = tmp_path / "run.jsonl"
    run.write_text('{"text": "```kite\\nmodule A\\n\\nfn f() -> int\\n    return 1\\n```"}\n')
    with small_file_system("size=16k") as folder:
        fill(folder)
        result = run_kite(["score", str(run), "--field", "text", "--out", str(folder / "results.jsonl")], REPO)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("kite: error: ") and result.stderr.endswith("(No space left on device)\n")
        assert result.stderr.count("\n") == 1
        assert not (folder / "results.summary.json").exists()


def fill(folder: Path) -> None:
    with contextlib.suppress(OSError), open(folder / "filler", "wb") as filler:
        while True:
            filler.write(b"x" * 4096)
            filler.flush()


@pytest.mark.parametrize("command", [["prose", "notes.md"], ["find", "$X", "good.kite"], ["fmt", "good.kite"]])
def test_debug_prints_the_traceback_of_an_internal_error_on_every_command(batch, monkeypatch, command):
    import kite.format
    import kite.scoring.slop
    import kite.search.find

    def broken(*_args, **_kwargs):
        raise RuntimeError("a bug in kite")

    monkeypatch.setattr(kite.scoring.slop, "slop", broken)
    monkeypatch.setattr(kite.search.find, "search", broken)
    monkeypatch.setattr(kite.format, "format_bytes", broken)
    (batch / "notes.md").write_text("Some prose.\n")
    plain = run_kite(command, batch)
    assert plain.exit_code == 3 and "RuntimeError: a bug in kite" in plain.stderr and "Traceback" not in plain.stderr
    debugged = run_kite(["--debug", *command], batch)
    assert debugged.exit_code == 3 and "Traceback (most recent call last)" in debugged.stderr
    assert debugged.stderr.count("RuntimeError: a bug in kite") == 2  # the one line, then the traceback's last


@pytest.mark.parametrize("spelling", ["-o", "--output", "--plan"])
def test_every_command_writes_its_file_with_o_output_and_old_spellings_still_work(batch, spelling):
    result = run_kite(["rewrite", "len($X)", "--to", "count($X)", "good.kite", spelling, "the.plan.json"], batch)
    assert result.exit_code == 0 and (batch / "the.plan.json").exists()


@pytest.mark.parametrize("command, old", [(["rewrite"], "--plan"), (["score"], "--out"), (["build"], None), (["report"], None)])
def test_help_shows_o_output_and_hides_the_old_spellings(command, old):
    shown = run_kite([*command, "--help"], REPO).output
    assert "-o, --output" in shown
    assert old is None or old not in shown.replace("--output", "")


def test_a_socket_is_named_as_one_and_the_rest_is_checked(batch):
    """A socket cannot be opened at all (ENXIO): the line says what the path is, as it does for a FIFO or a device."""
    import socket

    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(batch / "sock.kite"))
        result = run_kite(["check", "--layer", "kite", "sock.kite", "good.kite"], batch)
    assert result.exit_code == 2 and "good.kite(5): error KT001" in result.stdout
    assert result.stderr == "kite: error: sock.kite: a socket, not a .kite file (kite reads regular files only)\n"


@pytest.mark.parametrize("name, said", [("missing.kite", "no such file"),
                                        ("fifo.kite", "a FIFO, not a .kite file (kite reads regular files only)")])
def test_debug_says_why_a_program_cannot_be_read_as_every_command_does(batch, name, said):
    result = run_kite(["debug", name, "--break", "4"], batch)
    assert (result.exit_code, result.stderr) == (2, f"kite: error: {name}: {said}\n")


@contextlib.contextmanager
def fifo_writer(fifo: Path):
    """Opens the FIFO for writing and closes it, again and again, so a blocking read of it ends (empty) instead of
    hanging the test: the old code then fails its assertions rather than the suite."""
    import threading

    done = threading.Event()

    def writer():
        while not done.is_set():
            open(fifo, "wb").close()

    threading.Thread(target=writer, daemon=True).start()
    try:
        yield
    finally:
        done.set()
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # lets the writer's last open() return


@pytest.mark.parametrize("command", [["score", "fifo.kite", "--field", "text"], ["report", "fifo.kite"]])
def test_score_and_report_read_only_regular_files(batch, command):
    """A FIFO as the run or the results blocked kite score and kite report in open() until a writer came."""
    with fifo_writer(batch / "fifo.kite"):
        result = run_kite(command, batch)
    assert result.exit_code == 2, result.output
    assert result.stderr == "kite: error: fifo.kite: a FIFO, not a JSON lines file (kite reads regular files only)\n"


@pytest.mark.parametrize("content, problem", [
    (b'\x7fELF\x02\x01\x01\x00\x00\n{"text": "a"}\n', "binary file (NUL byte on line 1), not a JSON lines file"),
    ('{"text": "a"}\n'.encode("utf-16"), "UTF-16 (little-endian) text, not UTF-8: a JSON lines file is read as UTF-8"),
])
@pytest.mark.parametrize("command", [["score", "run.jsonl", "--field", "text", "-o", "results.jsonl"], ["report", "run.jsonl"]])
def test_a_binary_run_or_results_file_is_one_line_and_exit_2(batch, content, problem, command):
    """A binary RUN was graded as broken lines, exit 0."""
    (batch / "run.jsonl").write_bytes(content)
    result = run_kite(command, batch)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"kite: error: run.jsonl: {problem}\n"


def test_a_task_toml_that_is_a_fifo_is_one_line_not_a_hang(batch):
    task = batch / "tasks" / "t1"
    task.mkdir(parents=True)
    (task / "hidden.test.kite").write_text('module Hello\n\ntest "one"\n    expect 1 == 1\n')
    os.mkfifo(task / "task.toml")
    with fifo_writer(task / "task.toml"):
        result = run_kite(["tasks", "check", "tasks"], batch)
    assert result.exit_code == 2, result.output
    assert "tasks/t1/task.toml: a FIFO, not a TOML file (kite reads regular files only)" in result.output


@pytest.mark.parametrize("command, what", [(["rewrite", "--apply", "fifo.kite"], "a rewrite plan"),
                                           (["check", "--layer", "kite", "--new-only", "--state", "fifo.kite", "good.kite"],
                                            "a --new-only state")])
def test_a_plan_or_a_state_that_is_a_fifo_is_one_line_not_a_hang(batch, command, what):
    with fifo_writer(batch / "fifo.kite"):
        result = run_kite(command, batch)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"kite: error: fifo.kite: a FIFO, not {what} (kite reads regular files only)\n"


def test_a_diff_quotes_a_file_name_with_a_newline_as_git_does(batch):
    """Raw, the newline split the ---/+++ line in two and the patch no longer applied."""
    shutil.copy(REPO / "samples/hello.kite", batch / "new\nline.kite")
    result = run_kite(["rewrite", "print($X)", "--to", "println($X)", "new\nline.kite"], batch)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith('--- "a/new\\nline.kite"\n+++ "b/new\\nline.kite"\n')


@pytest.mark.parametrize("command, out", [
    (["check", "--layer", "kite", "-"], "<stdin>(4): error KT004: 'var' is C#, not Kite\nfailed: 1 errors, 0 warnings\n"),
    pytest.param(["test", "-"], "<stdin>(4): error KT004: 'var' is C#, not Kite\nfailed: 1 errors, 0 warnings\nFAIL one: the program does not compile\n0 passed, 1 failed\n", marks=pytest.mark.dotnet),
])
def test_check_and_test_read_stdin_as_a_file_named_stdin(batch, command, out):
    """`-` was read only by kite fmt; check and test said `-: no such file`, as if it were a file's name."""
    from click.testing import CliRunner

    from kite.cli.main import main

    program = 'module M\n\nfn f() -> int\n    var x = 1\n    return x\n\ntest "one"\n    expect f() == 1\n'
    result = CliRunner().invoke(main, command, input=program.encode())
    assert (result.exit_code, result.output) == (1, out)
    assert CliRunner().invoke(main, command, input=b"").output == "kite: error: <stdin>: empty file\n"
    refused = CliRunner().invoke(main, ["check", "--fix", "-"], input=program.encode())
    assert refused.exit_code == 2 and "--fix rewrites files" in refused.output


@pytest.mark.parametrize("command", [["rewrite", "len($X)", "--to", "count($X)", "good.kite", "-o", "out"],
                                     ["score", "run.jsonl", "--field", "text", "-o", "out"]])
def test_an_output_that_is_a_fifo_is_refused_and_stays_a_fifo(batch, command):
    """A plan was renamed over the FIFO (over /dev/null as root: the device gone for every process), and kite score
    waited in open() for a reader that never came."""
    import stat

    (batch / "run.jsonl").write_text('{"text": "no code here"}\n')
    os.mkfifo(batch / "out")
    reader = os.open(batch / "out", os.O_RDONLY | os.O_NONBLOCK)  # the old open() returns: a failure, not a hang
    try:
        result = run_kite(command, batch)
    finally:
        os.close(reader)
    assert (result.exit_code, result.stderr) == (2, "kite: error: out: a FIFO, not a regular file (kite writes regular files only)\n")
    assert stat.S_ISFIFO(os.lstat(batch / "out").st_mode)


@pytest.mark.parametrize("command", [["fmt", "link.kite"], ["check", "--fix", "--layer", "kite", "link.kite"]])
def test_a_file_rewritten_through_a_link_is_the_file_the_link_names(batch, command):
    """The link was replaced by a formatted copy, and the file it named was left as it was."""
    text = "module A\n\n\n\nfn f() -> int\n    let mut x = 1\n    return x\n"
    (batch / "real.kite").write_text(text)
    (batch / "link.kite").symlink_to("real.kite")
    run_kite(command, batch)
    assert (batch / "link.kite").is_symlink()
    assert (batch / "real.kite").read_text() != text


def test_a_link_planted_where_kite_writes_its_own_file_is_replaced_not_followed(tmp_path):
    """In-place rewrites follow links; kite's own files (a cache entry, a summary) never lead a write elsewhere."""
    from kite.atomic import write_atomically

    (tmp_path / "victim").write_text("kept\n")
    (tmp_path / "entry").symlink_to(tmp_path / "victim")
    write_atomically(tmp_path / "entry", b"cached\n")
    assert (tmp_path / "victim").read_text() == "kept\n" and (tmp_path / "entry").read_text() == "cached\n"


TOO_LONG = "a" * 300  # past NAME_MAX: pathlib's is_dir() and exists() raise for it where os.path's say False


@pytest.mark.parametrize("command, went_on", [(["check", "--layer", "kite"], "good.kite(5): error KT001"),
                                              (["fmt", "--check"], "1 unchanged"), (["find", "$X"], "1 searched"),
                                              (["graph"], "good.kite("), (["rewrite", "len($X)", "--to", "count($X)"], "+++ b/good.kite")])
def test_a_name_too_long_is_one_line_and_the_batch_goes_on(batch, command, went_on):
    """It was an internal error (exit 3) that stopped the batch, as was a file in a folder that cannot be searched."""
    result = run_kite([*command, TOO_LONG, "good.kite"], batch)
    assert result.exit_code == 2, result.output
    assert f"kite: error: {TOO_LONG}: cannot read (File name too long)\n" in result.stderr
    assert went_on in result.stdout + result.stderr


def test_a_program_whose_test_file_name_would_be_too_long_is_checked(batch):
    name = "a" * 250 + ".kite"  # NAME_MAX: its NAME.test.kite cannot exist
    shutil.copy(batch / "good.kite", batch / name)
    result = run_kite(["check", "--layer", "kite", name], batch)
    assert result.exit_code == 1 and f"{name}(5): error KT001" in result.stdout


@pytest.mark.parametrize("command, said", [
    (["check", "--layer", "kite", "--new-only", "--state", "missing/state.json", "good.kite"],
     "missing/state.json: cannot write the --new-only state (No such file or directory)"),
    (["check", "--layer", "kite", "--new-only", "--state", TOO_LONG, "good.kite"],
     f"{TOO_LONG}: cannot write the --new-only state (File name too long)"),
    (["tasks", "check", TOO_LONG], f"{TOO_LONG}: no such tasks folder"),
    (["score", "run.jsonl", "--field", "text", "--tasks", TOO_LONG], f"{TOO_LONG}: no such tasks folder"),
    (["new", TOO_LONG], f"{TOO_LONG}: cannot write (File name too long)"),
])
def test_a_path_that_cannot_be_used_is_one_line_not_an_internal_error(batch, command, said):
    (batch / "run.jsonl").write_text('{"text": "no code here"}\n')
    result = run_kite(command, batch)
    assert (result.exit_code, result.stderr) == (2, f"kite: error: {said}\n"), result.output


def test_a_refused_read_is_not_called_a_refused_write(batch, monkeypatch):
    import kite.scoring.slop

    def refused(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied", "somewhere")

    monkeypatch.setattr(kite.scoring.slop, "slop", refused)
    (batch / "notes.md").write_text("Some prose.\n")
    result = run_kite(["prose", "notes.md"], batch)
    assert (result.exit_code, result.stderr) == (2, "kite: error: somewhere: cannot access (Permission denied)\n")


@pytest.mark.parametrize("command", [["check", "--layer", "kite"], ["fmt", "--check"]])
@pytest.mark.parametrize("content", [b"\xef\xbb\xbf", b"\xef\xbb\xbf \n\n"])
def test_a_file_of_only_a_bom_is_an_empty_file_as_any_other(batch, command, content):
    """An editor's BOM alone was read as text: KT000 'empty file' (exit 1) for one, 'empty file' (exit 2) for the other."""
    from click.testing import CliRunner

    from kite.cli.main import main

    (batch / "bom.kite").write_bytes(content)
    result = run_kite([*command, "bom.kite", "good.kite"], batch)
    assert result.exit_code == 2 and "kite: error: bom.kite: empty file\n" in result.stderr
    piped = CliRunner().invoke(main, [*command, "-"], input=content)
    assert (piped.exit_code, piped.stderr) == (2, "kite: error: <stdin>: empty file\n")
