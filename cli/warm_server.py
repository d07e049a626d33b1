"""A per-user background process holding a warm session, so `kite check`, `kite test` and `kite build` skip starting
.NET and Roslyn, like the SDK's own build servers.

The server listens on a Unix socket in a 0700 folder under the cache directory, keyed by kite's version, Python's,
the pinned .NET packages and kite's own code (a server of other code is never asked). It starts on first use and
exits after an idle time; it runs the same click command, in its process, with the client's arguments, working
folder and environment, and hands back stdout, stderr and the exit code, so the output is byte-identical either
way. It answers only its own user (peer credentials). One command at a time: a second shell waits its turn.

Protocol: one JSON request and one JSON reply, each a line, per connection. Until the reply, the server writes an
empty line every HEARTBEAT_SECONDS (also while a connection waits its turn behind another shell's long command), so
the client can tell "alive and working" from "hung": SILENCE_SECONDS without a byte and the client kills the server
and runs the command in-process, with the same output.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

from kite import __version__
from kite.own_files import own_files

IDLE_SECONDS = float(os.environ.get("KITE_SERVER_IDLE", "900"))
START_SECONDS = 30.0  # for the server to listen; .NET starts later, on its first check
WARM_COMMANDS = frozenset({"check", "test", "build"})
NO_SERVER_FLAG = "--no-server"
HEARTBEAT_SECONDS = 1.0
SILENCE_SECONDS = float(os.environ.get("KITE_SERVER_SILENCE", "10"))  # heartbeats missed before the server counts as hung


def server_key() -> str:
    """Kite's and Python's versions, and kite's own files (code, grammar, stdlib, pinned packages, rule tables)."""
    digest = hashlib.sha256(f"{__version__}\n{sys.version}\n{sys.executable}\n".encode())
    for _, path in own_files():
        stat = path.stat()
        digest.update(f"{path}:{stat.st_mtime_ns}:{stat.st_size}\n".encode())
    return digest.hexdigest()[:16]


def server_folder() -> Path:
    from kite.dotnet.packages import cache_root

    folder = cache_root() / f"server-{os.getuid()}-{server_key()}"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder.chmod(0o700)
    return folder


def socket_path() -> Path:
    return server_folder() / "socket"


# ---- the client's side


def wanted(argv: list[str]) -> bool:
    """A warm command, not told to stay in-process."""
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    return command in WARM_COMMANDS and NO_SERVER_FLAG not in argv and os.environ.get("KITE_NO_SERVER") != "1" \
        and "--help" not in argv and "-h" not in argv


class ServerHung(TimeoutError):
    """The server took the request but fell silent (no heartbeat) for SILENCE_SECONDS."""


def request(message: dict, silence: float = SILENCE_SECONDS) -> dict:
    """Send one request; raises OSError when no server answers, ServerHung (after killing it) when it falls silent."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(silence)
        connection.connect(str(socket_path()))
        with connection.makefile("rb") as replies:
            try:
                connection.sendall(json.dumps(message).encode() + b"\n")
                line = b"\n"
                while line == b"\n":  # a heartbeat: alive and working (or waiting its turn)
                    line = replies.readline()
            except TimeoutError:
                kill_peer(connection)
                raise ServerHung("the kite server stopped answering") from None
    if not line:
        raise ConnectionError("the kite server closed the connection")
    return json.loads(line)


def kill_peer(connection: socket.socket) -> None:
    """End a hung server (its pid from the socket's peer credentials) and free its socket for a new one."""
    pid, uid = peer_credentials(connection)
    if uid == os.getuid() and pid > 0:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        socket_path().unlink(missing_ok=True)


def start_server() -> dict:
    """Start a server and return its status once it listens."""
    subprocess.Popen([sys.executable, "-m", "kite.cli.warm_server"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            return request({"op": "status"}, silence=5)
        time.sleep(0.05)
    raise ConnectionError("the kite server did not start")


def run_through_server(argv: list[str]) -> int | None:
    """The command's exit code after writing its output, or None when it should run in-process (no server could be
    reached or started: the command then runs here, as with --no-server)."""
    message = {"op": "run", "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
    for attempt in range(2):
        try:
            reply = request(message)
            break
        except ServerHung:
            return None  # killed; a new server starts on the next command, this one runs here
        except (OSError, ValueError):
            if attempt:
                return None
            with contextlib.suppress(OSError, ValueError):
                socket_path().unlink(missing_ok=True)  # a crashed server's socket
                start_server()
    sys.stdout.buffer.write(reply["stdout"].encode("utf-8", "surrogateescape"))
    sys.stdout.flush()
    sys.stderr.buffer.write(reply["stderr"].encode("utf-8", "surrogateescape"))
    sys.stderr.flush()
    return reply["exit"]


# ---- the server's side


def peer_credentials(connection: socket.socket) -> tuple[int, int]:
    """The pid and uid of the process at the other end of a Unix socket."""
    pid, uid, _gid = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return pid, uid


# ---- the server's side


def run_command(argv: list[str], cwd: str, env: dict) -> dict:
    """The click command with this request's folder and environment; output captured as the terminal would get it."""
    from click.testing import CliRunner

    from kite.cli.main import main

    previous = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, argv, env={**{name: None for name in os.environ}, **env}, catch_exceptions=True)
    finally:
        os.chdir(previous)
    return {"stdout": result.stdout_bytes.decode("utf-8", "surrogateescape"),
            "stderr": result.stderr_bytes.decode("utf-8", "surrogateescape"), "exit": result.exit_code}


def answer(connection: socket.socket, one_command: threading.Lock, status: dict, stop: threading.Event) -> None:
    """One connection: heartbeats until the reply (also while waiting for the command lock), then the reply."""
    with connection:
        if peer_credentials(connection)[1] != os.getuid():
            return  # another user: no answer at all
        connection.settimeout(None)
        with connection.makefile("rb") as requests:
            message = json.loads(requests.readline() or b"{}")
        replied = threading.Event()

        def beat() -> None:
            while not replied.wait(HEARTBEAT_SECONDS):
                with contextlib.suppress(OSError):
                    connection.sendall(b"\n")

        heart = threading.Thread(target=beat, daemon=True)
        heart.start()
        if message.get("op") == "run":
            with one_command:  # the command changes the process's folder and environment
                reply = run_command(message["argv"], message["cwd"], message["env"])
                status["served"] += 1
        else:
            reply = dict(status)
        replied.set()
        heart.join()
        with contextlib.suppress(OSError):
            connection.sendall(json.dumps(reply).encode() + b"\n")
        if message.get("op") == "stop":
            stop.set()


def serve() -> None:
    path = socket_path()
    path.unlink(missing_ok=True)
    one_command, stop = threading.Lock(), threading.Event()
    status = {"pid": os.getpid(), "socket": str(path), "key": server_key(), "since": time.time(),
              "idle_exit": IDLE_SECONDS, "served": 0}
    connections: list[threading.Thread] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(path))
        path.chmod(0o600)
        listener.listen(16)
        listener.settimeout(min(IDLE_SECONDS, 0.2))
        last_active = time.monotonic()
        while not stop.is_set():
            connections = [thread for thread in connections if thread.is_alive()]
            if connections:
                last_active = time.monotonic()
            elif time.monotonic() - last_active >= IDLE_SECONDS:
                break  # idle: gone until the next command starts it again
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            thread = threading.Thread(target=answer, args=(connection, one_command, status, stop), daemon=True)
            thread.start()
            connections.append(thread)
    path.unlink(missing_ok=True)


if __name__ == "__main__":
    with contextlib.redirect_stdout(io.StringIO()):
        serve()
