"""The warm compile server behind `kite check`, `kite test` and `kite build`: the same bytes either way, replaced when
killed, gone when idle, deaf to other users."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, gone, run_kite

KITE = [sys.executable, "-m", "kite.cli"]


def own_cache_folder() -> Path:
    """A cache folder of this test process's own, so each pytest worker has its own server; the restored .NET
    packages are linked in from the real cache (nothing is restored again). Any user may walk into it (the server's
    own folder in it is still 0700)."""
    from kite.own_files import cache_root

    folder = Path(tempfile.mkdtemp(prefix="kite-server-test-"))
    folder.chmod(0o755)
    for restored in cache_root().glob("dotnet-*"):
        (folder / restored.name).symlink_to(restored)
    return folder


OWN_CACHE = own_cache_folder()
atexit.register(shutil.rmtree, OWN_CACHE, True)  # also when this worker ran none of the tests that use it
THROUGH_SERVER = {**{name: value for name, value in os.environ.items() if name != "KITE_NO_SERVER"}, "KITE_CACHE_DIR": str(OWN_CACHE)}


def kite(args: list[str], env=THROUGH_SERVER, cwd=REPO) -> subprocess.CompletedProcess:
    return subprocess.run([*KITE, *args], cwd=cwd, env=env, capture_output=True, timeout=600, check=False)


def server_pid(env=THROUGH_SERVER) -> int | None:
    done = kite(["server", "status"], env=env)
    return int(done.stdout.split(b"pid ")[1].split(b",")[0]) if done.returncode == 0 else None


def served_count() -> int:
    """How many commands the server has run (a command that could not reach it would have run in-process)."""
    done = subprocess.run([sys.executable, "-c", "from kite.cli.warm_server import request; print(request({'op': 'status'})['served'])"],
                          env=THROUGH_SERVER, capture_output=True, text=True, timeout=60, check=True)
    return int(done.stdout)


@pytest.fixture(scope="module")
def warm_server():
    yield
    kite(["server", "stop"])


def check_args(folder: Path) -> list[str]:
    options = folder / "check.args"
    return options.read_text().split() if options.exists() else []


CASES = [["check", "samples"], ["test", "samples/word_count.kite"]] + [
    ["check", *check_args(folder), str(folder.relative_to(REPO))] for folder in sorted(FIXTURES.iterdir()) if folder.is_dir()
]


@pytest.mark.parametrize("args", CASES, ids=" ".join)
def test_output_is_byte_identical_through_the_server(warm_server, args):
    through = kite(args)
    served = served_count()
    here = run_kite(args, REPO)
    assert (through.stdout, through.stderr, through.returncode) == (here.stdout_bytes, here.stderr_bytes, here.exit_code)
    assert served_count() == served > 0  # the server ran it (and the in-process run did not go there)


CLIENT = """
import sys
sys.argv = ["kite", "check", "samples/hello.kite"]
from kite.cli.entry import entry
try:
    entry()
except SystemExit as done:
    print(done.code, sorted({"click", "kite.session", "kite.cli.main"} & set(sys.modules)))
"""


def test_a_command_the_server_runs_loads_none_of_the_cli_in_the_client(warm_server):
    kite(["check", "samples/hello.kite"])  # the server is up
    served = served_count()
    done = subprocess.run([sys.executable, "-c", CLIENT], cwd=REPO, env=THROUGH_SERVER, capture_output=True, text=True, timeout=120, check=False)
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout + done.stderr
    assert served_count() == served + 1


def test_a_killed_server_is_replaced_and_no_server_stays_in_process(warm_server):
    kite(["check", "--layer", "kite", "tests/article/mistakes.kite"])
    first = server_pid()
    assert first is not None
    os.kill(first, signal.SIGKILL)
    assert gone(first, 30)
    done = kite(["check", "--layer", "kite", "tests/article/mistakes.kite"])
    assert done.returncode == 1 and b"KT001" in done.stdout
    second = server_pid()
    assert second not in (None, first)
    assert kite(["check", "--no-server", "--layer", "kite", "tests/article/mistakes.kite"]).returncode == 1
    assert server_pid() == second  # --no-server neither used nor replaced it


@pytest.fixture
def own_cache():
    """A cache folder (and so a server) for one test; its server is stopped at the end whatever happened."""
    folder = own_cache_folder()
    yield folder
    kite(["server", "stop"], env={**THROUGH_SERVER, "KITE_CACHE_DIR": str(folder)})
    shutil.rmtree(folder, ignore_errors=True)


def start(env) -> int:
    done = subprocess.run([sys.executable, "-c", "from kite.cli.warm_server import start_server; print(start_server()['pid'])"],
                          env=env, check=True, timeout=60, capture_output=True, text=True)
    return int(done.stdout)


def test_an_idle_server_exits(own_cache):
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(own_cache), "KITE_SERVER_IDLE": "0.5"}
    pid = start(env)
    assert pid is not None and gone(pid, 30)
    assert server_pid(env) is None


@pytest.mark.skipif(os.getuid() != 0 or not Path("/usr/bin/python3").exists(), reason="needs root to run as another user")
def test_another_user_gets_no_answer(own_cache):
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(own_cache)}
    pid = start(env)
    [folder] = own_cache.glob("server-*")
    assert folder.stat().st_mode & 0o777 == 0o700
    folder.chmod(0o755)  # let the other user reach the socket: only the peer check is left to refuse
    (folder / "socket").chmod(0o777)
    probe = ("import socket, sys\ns = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n"
             "try:\n    s.sendall(b'{\"op\": \"status\"}\\n'); data = s.recv(1000); print(repr(data) if data else 'no answer')\n"
             "except (ConnectionResetError, BrokenPipeError):\n    print('no answer')")
    # The system's Python: the other user may not enter root's folders, where this venv's lives.
    other = subprocess.run(["/usr/bin/python3", "-c", probe, str(folder / "socket")], user=65534, group=65534,
                           capture_output=True, text=True, timeout=60, check=False)
    assert other.stdout.strip() == "no answer", other.stderr
    assert server_pid(env) == pid  # its own user still gets answers


def test_build_through_the_server_writes_the_same_assembly_line(warm_server, tmp_path):
    through = kite(["build", "samples/hello.kite", "-o", str(tmp_path / "out")])
    here = run_kite(["build", "samples/hello.kite", "-o", str(tmp_path / "out")], REPO)
    assert (through.stdout, through.stderr, through.returncode) == (here.stdout_bytes, here.stderr_bytes, here.exit_code)
    assert through.returncode == 0 and (tmp_path / "out" / "Hello.dll").exists()


def test_two_shells_at_once_are_both_served(warm_server):
    args = ["check", "--layer", "kite", "tests/article/mistakes.kite"]
    kite(args)  # the server runs
    served = served_count()
    shells = [subprocess.Popen([*KITE, *args], cwd=REPO, env=THROUGH_SERVER, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
              for _ in range(2)]
    outputs = [(*shell.communicate(timeout=300), shell.returncode) for shell in shells]
    here = run_kite(args, REPO)
    assert outputs == [(here.stdout_bytes, here.stderr_bytes, here.exit_code)] * 2
    assert served_count() == served + 2


HUNG_SERVER = """import socket, sys, time
listener = socket.socket(socket.AF_UNIX); listener.bind(sys.argv[1]); listener.listen(4)
print("listening", flush=True)
held = [listener.accept()[0] for _ in range(4)]  # accepts, never replies
time.sleep(600)"""


def test_a_hung_server_is_killed_and_the_command_runs_in_process(own_cache):
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(own_cache), "KITE_SERVER_SILENCE": "2"}
    folder = Path(subprocess.run([sys.executable, "-c", "from kite.cli.warm_server import server_folder; print(server_folder())"],
                                 env=env, check=True, capture_output=True, text=True, timeout=60).stdout.strip())
    hung = subprocess.Popen([sys.executable, "-c", HUNG_SERVER, str(folder / "socket")], stdout=subprocess.PIPE)
    try:
        assert hung.stdout.readline() == b"listening\n"
        args = ["check", "--layer", "kite", "tests/article/mistakes.kite"]
        through = kite(args, env=env)
        here = run_kite(args, REPO)
        assert (through.stdout, through.stderr, through.returncode) == (here.stdout_bytes, here.stderr_bytes, here.exit_code)
        assert hung.wait(timeout=60) == -signal.SIGKILL  # the hung server was ended, not left holding the socket
    finally:
        hung.kill()


def test_every_file_a_verdict_depends_on_keys_the_server():
    from importlib import resources

    from kite.cli import warm_server
    from kite.own_files import own_files

    keyed = {path for _, path in own_files()}
    for package, name in (("kite.grammar", "kite.lark"), ("kite.stdlib", "KiteStd.cs"), ("kite.dotnet", "KiteSandbox.cs"),
                          ("kite.dotnet", "allowlist.toml"), ("kite.dotnet", "packages.lock.json"), ("kite.cli", "entry.py")):
        assert Path(str(resources.files(package) / name)).resolve() in keyed, f"{package}/{name} does not key the server"
    assert warm_server.own_files is own_files  # and the server's key is made of exactly these


def test_a_changed_file_gets_another_server(tmp_path, monkeypatch):
    from kite.cli import warm_server

    grammar = tmp_path / "kite.lark"
    grammar.write_text("start: NAME\n")
    monkeypatch.setattr(warm_server, "own_files", lambda: [("kite.grammar/kite.lark", grammar)])
    before = warm_server.server_key()
    grammar.write_text("start: NAME NAME\n")
    assert warm_server.server_key() != before


def servers_of(cache: Path) -> list[int]:
    """Every live warm server process of this cache folder (whether reachable or not)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"kite.cli.warm_server" in command and f"KITE_CACHE_DIR={cache}".encode() in environ and not gone(int(proc.name), 0):
            found.append(int(proc.name))
    return found


def test_commands_started_together_start_one_server(own_cache):
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(own_cache)}
    args = ["check", "--layer", "kite", "tests/article/mistakes.kite"]
    shells = [subprocess.Popen([*KITE, *args], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    here = run_kite(args, REPO)
    assert [(*shell.communicate(timeout=300), shell.returncode) for shell in shells] == [(here.stdout_bytes, here.stderr_bytes, here.exit_code)] * 3
    assert servers_of(own_cache) == [server_pid(env)]


def test_a_second_server_of_the_same_key_exits_at_once(own_cache):
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(own_cache)}
    first = start(env)
    second = subprocess.run([sys.executable, "-m", "kite.cli.warm_server"], env=env, timeout=120, capture_output=True, check=False)
    assert second.returncode == 0
    assert servers_of(own_cache) == [first] == [server_pid(env)]


def test_a_fifo_is_one_line_and_the_batch_goes_on_and_the_server_still_answers(own_cache, tmp_path):
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(own_cache)}
    os.mkfifo(tmp_path / "fifo.kite")
    shutil.copy(REPO / "tests/article/mistakes.kite", tmp_path / "good.kite")
    args = ["check", "--layer", "kite", "fifo.kite", "good.kite"]
    through = kite(args, env=env, cwd=tmp_path)
    here = run_kite(args, tmp_path)
    assert (through.stdout, through.stderr, through.returncode) == (here.stdout_bytes, here.stderr_bytes, here.exit_code)
    assert through.returncode == 2 and b"KT001" in through.stdout
    assert through.stderr == b"kite: error: fifo.kite: a FIFO, not a .kite file (kite reads regular files only)\n"
    served = served_count_of(env)
    assert kite(["check", "--layer", "kite", "good.kite"], env=env, cwd=tmp_path).returncode == 1
    assert served_count_of(env) == served + 1


def served_count_of(env) -> int:
    done = subprocess.run([sys.executable, "-c", "from kite.cli.warm_server import request; print(request({'op': 'status'})['served'])"],
                          env=env, capture_output=True, text=True, timeout=60, check=True)
    return int(done.stdout)


@pytest.mark.parametrize("shell", ["/dev/stdin", "<(cat good.kite)", "//dev/stdin", "stdin.kite"])
def test_the_callers_own_descriptors_are_read_by_the_caller(own_cache, tmp_path, shell):
    """However spelled: `//dev/stdin` and a link to /dev/stdin were the server's own stdin (/dev/null) through it."""
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(own_cache)}
    shutil.copy(REPO / "tests/article/mistakes.kite", tmp_path / "good.kite")
    (tmp_path / "stdin.kite").symlink_to("/dev/stdin")
    start(env)
    served = served_count_of(env)
    command = f"{sys.executable} -m kite.cli check --layer kite {shell} < good.kite"
    through = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, timeout=120, check=False)
    alone = subprocess.run(["bash", "-c", command.replace(" check ", " check --no-server ")], cwd=tmp_path, env=env,
                           capture_output=True, timeout=120, check=False)
    assert through.returncode == alone.returncode == 1 and b"KT001" in through.stdout
    assert through.stdout.split(b"(")[1:] == alone.stdout.split(b"(")[1:]  # <(...) names another /dev/fd each time
    assert served_count_of(env) == served  # run in the caller's process, which can read them


def test_ctrl_c_cancels_the_command_in_the_server(own_cache):
    """The bomb would compile for ten minutes; cancelled, the server takes the next command at once (it would
    otherwise be busy, and the next command would run in-process after its turn's wait)."""
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(own_cache), "KITE_SERVER_TURN": "120"}
    kite(["check", "samples/hello.kite"], env=env)  # warm: the bomb is the only thing left to wait for
    served = served_count_of(env)
    bomb = subprocess.Popen([*KITE, "check", "--compile-timeout", "600", str(FIXTURES / "KT010" / "slow_to_compile.kite")],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(3)  # not a bound: only that the server is compiling it when the client is interrupted
    bomb.send_signal(signal.SIGINT)
    assert bomb.wait(timeout=60) == 130
    after = kite(["check", "--layer", "kite", "tests/article/mistakes.kite"], env=env)
    assert after.returncode == 1
    assert served_count_of(env) == served + 1  # the bomb was not counted (cancelled); the next command was served


def test_a_server_that_cannot_start_costs_no_wait(tmp_path, monkeypatch):
    """A socket path past AF_UNIX's 108 bytes (a deep cache folder) cannot be bound: every command waited the whole
    START_SECONDS for that server before running in-process."""
    import threading

    from kite.cli import warm_server

    monkeypatch.setenv("KITE_CACHE_DIR", str(tmp_path / ("c" * 100)))
    monkeypatch.setattr(warm_server, "START_SECONDS", 3600.0)
    raised: list[BaseException] = []

    def start_it():
        try:
            warm_server.spawn_server()
        except BaseException as error:  # what it raised is the test's to look at
            raised.append(error)

    starting = threading.Thread(target=start_it, daemon=True)
    starting.start()
    starting.join(timeout=120)  # a deadline far below START_SECONDS, not a timing
    assert not starting.is_alive() and isinstance(raised[0], ConnectionError)


@pytest.mark.parametrize("value", ["abc", "0", "-1", "nan", "inf"])
def test_a_time_setting_that_is_no_positive_number_is_its_default(monkeypatch, value):
    """A typo was a traceback from every warm command (the settings are read as the client starts)."""
    from kite.cli.warm_server import seconds_setting

    monkeypatch.setenv("KITE_SERVER_TURN", value)
    assert seconds_setting("KITE_SERVER_TURN", 5) == 5
    done = kite(["check", "--layer", "kite", "tests/article/mistakes.kite"], env={**THROUGH_SERVER, "KITE_SERVER_IDLE": value})
    assert done.returncode == 1 and b"Traceback" not in done.stderr


def test_a_folder_removed_under_the_shell_runs_in_process(own_cache, tmp_path):
    """The client asked os.getcwd() for the server's request, and died of it with a traceback."""
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(own_cache)}
    program = REPO / "tests/article/mistakes.kite"
    command = f"mkdir gone && cd gone && rmdir ../gone && exec {sys.executable} -m kite.cli check --layer kite {program}"
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, timeout=120, check=False)
    assert done.returncode == 1 and b"error KT001" in done.stdout and done.stderr == b""


@pytest.mark.parametrize("redirect", ["> /dev/full", ">&-", "2>&-", "2> /dev/full"])
def test_output_the_shell_refuses_or_closed_is_the_same_through_the_server(own_cache, redirect):
    """The client wrote the reply with no care: a traceback (exit 1) for a full stdout, or for a closed stderr before
    anything ran; in-process a full stdout is one line and exit 2."""
    env = {**THROUGH_SERVER, "KITE_CACHE_DIR": str(own_cache)}
    command = f"{sys.executable} -m kite.cli check --layer kite tests/article/mistakes.kite {redirect}"
    through = subprocess.run(["bash", "-c", command], cwd=REPO, env=env, capture_output=True, timeout=120, check=False)
    alone = subprocess.run(["bash", "-c", command.replace(" check ", " check --no-server ")], cwd=REPO, env=env,
                           capture_output=True, timeout=120, check=False)
    assert (through.returncode, through.stdout, through.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    assert b"Traceback" not in through.stderr
