"""A per-user background process holding a warm session, so `kite check`, `kite test` and `kite build` skip starting
.NET and Roslyn, like the SDK's own build servers.

The server listens on a Unix socket in a 0700 folder under the cache directory, keyed by kite's version, Python's,
the pinned .NET packages and kite's own code (a server of other code is never asked). It starts on first use and
exits after an idle time; it runs the same click command, in its process, with the client's arguments, working
folder and environment, and hands back stdout, stderr and the exit code, so the output is byte-identical either
way. It answers only its own user (peer credentials). One command at a time: a second shell waits its turn at most
TURN_SECONDS, then runs in-process, so no request can hold up another. Exactly one server runs per key: it holds
`server.lock` for its life (a second one exits at once), and clients start one under `start.lock`. A client that goes
away (Ctrl-C) cancels its command in the server. Commands that name the caller's own descriptors (`/dev/stdin`,
`<(...)`) run in-process: the server cannot read them.

Protocol: one JSON request and one JSON reply, each a line, per connection. Until the reply, the server writes an
empty line every HEARTBEAT_SECONDS (also while a connection waits its turn behind another shell's long command), so
the client can tell "alive and working" from "hung": SILENCE_SECONDS without a byte and the client kills the server
and runs the command in-process, with the same output.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import io
import json
import math
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
from kite.errors import refusal
from kite.own_files import own_files


def seconds_setting(name: str, default: float) -> float:
    """A time from the environment; one that is not a positive number of seconds is the default: a typo must not stop
    every command with a traceback, nor a 0 make every server count as hung."""
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if 0 < value < math.inf else default


IDLE_SECONDS = seconds_setting("KITE_SERVER_IDLE", 900)
START_SECONDS = 30.0  # for the server to listen; .NET starts later, on its first check
WARM_COMMANDS = frozenset({"check", "test", "build"})
NO_SERVER_FLAG = "--no-server"
HEARTBEAT_SECONDS = 1.0
SILENCE_SECONDS = seconds_setting("KITE_SERVER_SILENCE", 10)  # heartbeats missed before the server counts as hung
PROGRESS_PREFIX = b'{"progress":'  # a line of progress (kite.progress) the client's terminal shows
TURN_SECONDS = seconds_setting("KITE_SERVER_TURN", 5)  # waiting behind another shell's command, then in-process


def server_key() -> str:
    """Kite's and Python's versions, and kite's own files (code, grammar, stdlib, pinned packages, rule tables)."""
    digest = hashlib.sha256(f"{__version__}\n{sys.version}\n{sys.executable}\n".encode())
    for _, path in own_files():
        stat = path.stat()
        digest.update(f"{path}:{stat.st_mtime_ns}:{stat.st_size}\n".encode())
    return digest.hexdigest()[:16]


def server_folder() -> Path:
    from kite.own_files import cache_root

    folder = cache_root() / f"server-{os.getuid()}-{server_key()}"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder.chmod(0o700)
    return folder


def socket_path() -> Path:
    return server_folder() / "socket"


def locked(name: str, blocking: bool):
    """An exclusive lock on a file of the server's folder, held while the returned file is open (None: not got)."""
    handle = open(server_folder() / name, "a")  # noqa: SIM115 (held open for as long as the lock is)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except BlockingIOError:
        handle.close()
        return None
    return handle


# ---- the client's side


def wanted(argv: list[str]) -> bool:
    """A warm command, not told to stay in-process, naming none of this process's own descriptors."""
    from kite.source import reaches_own_descriptor

    command = next((arg for arg in argv if not arg.startswith("-")), None)
    try:
        os.getcwd()
    except OSError:
        return False  # a folder removed under the shell: no server can be sent there, in-process still works
    return command in WARM_COMMANDS and NO_SERVER_FLAG not in argv and os.environ.get("KITE_NO_SERVER") != "1" \
        and "--help" not in argv and "-h" not in argv and not any(map(reaches_own_descriptor, argv))


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
                while line == b"\n" or line.startswith(PROGRESS_PREFIX):  # a heartbeat, or progress for the terminal
                    if line.startswith(PROGRESS_PREFIX):
                        sys.stderr.write(json.loads(line)["progress"] + "\n")
                        sys.stderr.flush()
                    line = replies.readline()
            except TimeoutError:
                kill_peer(connection)
                raise ServerHung("the kite server stopped answering") from None
    if not line:
        raise ConnectionError("the kite server closed the connection")
    return json.loads(line)


def kill_peer(connection: socket.socket) -> None:
    """End a hung server (its pid from the socket's peer credentials); the next server replaces its socket."""
    pid, uid = peer_credentials(connection)
    if uid == os.getuid() and pid > 0:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def start_server() -> dict:
    """The status of this key's one server, started unless one already answers: clients that start together take
    turns under `start.lock`, so the second finds the first one's server."""
    with contextlib.closing(locked("start.lock", blocking=True)):
        with contextlib.suppress(OSError, ValueError):
            return request({"op": "status"}, silence=5)
        return spawn_server()


def spawn_server() -> dict:
    server = subprocess.Popen([sys.executable, "-m", "kite.cli.warm_server"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    deadline = time.monotonic() + START_SECONDS
    while True:
        # Seen before asking: one that exited as another took the lock is still asked once. One that could not start
        # (a socket path too long to bind) costs no wait: every command would otherwise wait START_SECONDS for it.
        exited = server.poll() is not None
        with contextlib.suppress(OSError, ValueError):
            return request({"op": "status"}, silence=5)
        if exited or time.monotonic() >= deadline:
            raise ConnectionError("the kite server did not start")
        time.sleep(0.05)


def run_through_server(argv: list[str]) -> int | None:
    """The command's exit code after writing its output, or None when it should run in-process (no server could be
    reached or started: the command then runs here, as with --no-server)."""
    message = {"op": "run", "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "tty": bool(sys.stderr and sys.stderr.isatty())}
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
                start_server()
    if reply.get("busy"):
        return None  # another shell's command holds the server: this one runs here rather than wait
    code, stderr = reply["exit"], reply["stderr"]
    try:
        write_out(sys.stdout, reply["stdout"])
    except OSError as error:  # a full disk, as in-process: one line after the command's own, exit 2
        line = refusal(error)
        if line is None:
            raise
        code, stderr = 2, f"{stderr}{line}\n"
    with contextlib.suppress(OSError):  # stderr refused too: nowhere is left to say so
        write_out(sys.stderr, stderr)
    return code


def write_out(stream, text: str) -> None:
    """The command's output as its process would have written it; nothing to a stream the shell closed (>&-)."""
    if stream is not None and text:
        stream.buffer.write(text.encode("utf-8", "surrogateescape"))
        stream.flush()


# ---- the server's side


def peer_credentials(connection: socket.socket) -> tuple[int, int]:
    """The pid and uid of the process at the other end of a Unix socket."""
    pid, uid, _gid = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return pid, uid


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


def interrupt(thread_id: int) -> None:
    """Raise KeyboardInterrupt in that thread at its next Python instruction: the command cancels as at Ctrl-C (the
    compile child it waits for is killed, kite.dotnet.compile_worker)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(KeyboardInterrupt))


def answer(connection: socket.socket, one_command: threading.Lock, status: dict, stop: threading.Event) -> None:
    """One connection: heartbeats until the reply (also while waiting for its turn), then the reply. A client that
    is gone (a heartbeat cannot be sent) cancels its command."""
    with connection:
        if peer_credentials(connection)[1] != os.getuid():
            return  # another user: no answer at all
        connection.settimeout(None)
        with connection.makefile("rb") as requests:
            message = json.loads(requests.readline() or b"{}")
        replied, client_gone, running, sending = threading.Event(), threading.Event(), threading.Lock(), threading.Lock()
        command_thread = threading.get_ident()
        cancellable = [False]

        def beat() -> None:
            while not replied.wait(HEARTBEAT_SECONDS):
                try:
                    with sending:
                        connection.sendall(b"\n")
                except OSError:
                    client_gone.set()
                    with running:
                        if cancellable[0]:
                            cancellable[0] = False
                            interrupt(command_thread)
                    return

        heart = threading.Thread(target=beat, daemon=True)
        heart.start()
        reply: dict | None = dict(status)
        def progress(line: str) -> None:
            with sending, contextlib.suppress(OSError):
                connection.sendall(json.dumps({"progress": line}).encode() + b"\n")

        if message.get("op") == "run":
            with progress_to(progress if message.get("tty") else None):
                reply = run_in_turn(message, one_command, status, running, cancellable, client_gone)
        replied.set()
        heart.join()
        if reply is not None and not client_gone.is_set():
            with contextlib.suppress(OSError):
                connection.sendall(json.dumps(reply).encode() + b"\n")
        if message.get("op") == "stop":
            stop.set()


def progress_to(send):
    """kite.progress's lines to the client's terminal while its request runs (none when its stderr is no terminal,
    as in-process)."""
    from kite.progress import forwarding

    return forwarding(send) if send is not None else contextlib.nullcontext()


def run_in_turn(message: dict, one_command: threading.Lock, status: dict, running: threading.Lock, cancellable: list,
                client_gone: threading.Event) -> dict | None:
    """The command's reply once it is this connection's turn; busy after TURN_SECONDS; None when it was cancelled."""
    deadline = time.monotonic() + TURN_SECONDS
    while not one_command.acquire(timeout=0.1):  # the command changes the process's folder and environment
        if client_gone.is_set():
            return None
        if time.monotonic() >= deadline:
            return {"busy": True}
    try:
        with running:
            cancellable[0] = not client_gone.is_set()
        if not cancellable[0]:
            return None
        try:
            reply = run_command(message["argv"], message["cwd"], message["env"])
            with running:
                cancellable[0] = False
        except KeyboardInterrupt:  # cancelled just as the command returned
            return None
        if client_gone.is_set():
            return None  # cancelled: not a command served
        status["served"] += 1
        return reply
    finally:
        one_command.release()


def serve() -> None:
    lock = locked("server.lock", blocking=False)
    if lock is None:
        return  # this key's server runs already: never a second one, unreachable on an unlinked socket
    with lock:
        listen()


def listen() -> None:
    path = socket_path()
    path.unlink(missing_ok=True)  # a dead server's (this process holds the lock)
    one_command, stop = threading.Lock(), threading.Event()
    status = {"pid": os.getpid(), "socket": str(path), "key": server_key(), "since": time.time(),
              "idle_exit": IDLE_SECONDS, "served": 0}
    connections: list[threading.Thread] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(path))
        path.chmod(0o600)
        bound = path.stat().st_ino
        listener.listen(16)
        listener.settimeout(min(IDLE_SECONDS, 0.2))
        last_active = time.monotonic()
        while not stop.is_set():
            connections = [thread for thread in connections if thread.is_alive()]
            if connections:
                last_active = time.monotonic()
            elif time.monotonic() - last_active >= IDLE_SECONDS:
                break  # idle: gone until the next command starts it again
            if not reachable(path, bound):
                return  # its socket was removed or replaced: nobody can reach this server any more
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            thread = threading.Thread(target=answer, args=(connection, one_command, status, stop), daemon=True)
            thread.start()
            connections.append(thread)
    if reachable(path, bound):
        path.unlink(missing_ok=True)


def reachable(path: Path, inode: int) -> bool:
    try:
        return path.stat().st_ino == inode
    except OSError:
        return False


if __name__ == "__main__":
    with contextlib.redirect_stdout(io.StringIO()):
        serve()
