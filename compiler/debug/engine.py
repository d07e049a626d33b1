"""The debug engine's process: compiled once from compiler/debug/*.cs (cached like the test host), started in the
sandbox with the debuggee beside it, and spoken to in JSON lines (a request, its reply, events in between).

Nothing of a session outlives it: the engine runs in a process group (inside bubblewrap, a pid namespace) of its
own, with a parent-death signal, and `close` kills the group.
"""

from __future__ import annotations

import functools
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from kite.dotnet.packages import dotnet_executable
from kite.errors import ToolchainError
from kite.spawn import die_with_parent, kill_group, spawn

ENGINE_SOURCES = ("KiteDebugCom.cs", "KiteDebugSymbols.cs", "KiteDebugEngine.cs")
HOOK_SOURCE = "KiteDebugHook.cs"
RUNNER_SOURCE = "KiteDebugRun.cs"
COMPILE_SECONDS = 120.0  # kite's own C#: never an answer's budget, but never a hang
REPLY_SECONDS = 30.0  # one request of the engine (a launch waits for the runtime to start)


class EngineError(Exception):
    """The engine refused a request or died: its one-line reason."""


@dataclass(frozen=True)
class EngineFiles:
    """The engine, the startup hook and the runner, written where the sandbox can read them."""

    folder: Path

    @property
    def engine(self) -> Path:
        return self.folder / "KiteDebugEngine.dll"

    @property
    def hook(self) -> Path:
        return self.folder / "KiteDebugHook.dll"

    @property
    def runner(self) -> Path:
        return self.folder / "KiteDebugRun.dll"


def _source(name: str) -> str:
    return (resources.files("kite.debug") / name).read_text(encoding="utf-8")


def build_engine(compiler, folder: Path) -> EngineFiles:
    """Compile (or take from kite's cache of its own images) the three assemblies into `folder`."""
    from kite.dotnet.own_images import own_image
    from kite.dotnet.packages import restore
    from kite.dotnet.runtime import write_runtime_config
    from kite.dotnet.stdlib import STDLIB_DLL, does_not_compile

    def compiled(name: str, files: tuple[str, ...], executable: bool, unsafe: bool) -> bytes:
        sources = [(file, _source(file)) for file in files]

        def compile_image() -> bytes:
            image, found, _ = compiler.emit_with(name, sources, executable, COMPILE_SECONDS, unsafe=unsafe)
            if image is None:
                raise does_not_compile(files[0], [d for d in found if d.severity.value == "error"] or found)
            return image

        return own_image(restore(), name, [text for _, text in sources], compile_image)

    folder.mkdir(parents=True, exist_ok=True)
    files = EngineFiles(folder)
    files.engine.write_bytes(compiled("KiteDebugEngine", ENGINE_SOURCES, True, True))
    files.hook.write_bytes(compiled("KiteDebugHook", (HOOK_SOURCE,), False, False))
    files.runner.write_bytes(compiled("KiteDebugRun", (RUNNER_SOURCE,), True, False))
    (folder / STDLIB_DLL).write_bytes(compiler.stdlib_image())
    for name in ("KiteDebugEngine", "KiteDebugRun"):
        write_runtime_config(folder / f"{name}.runtimeconfig.json")
    for written in folder.iterdir():
        written.chmod(0o644)
    return files


def read_symbols(files: EngineFiles, dll: Path, pdb: Path) -> dict:
    """The PDB and metadata of a debug build as plain data (kite.debug.mapping reads it); no debugger involved."""
    done = subprocess.run([dotnet_executable(), str(files.engine), "symbols", str(dll), str(pdb)],
                          capture_output=True, text=True, timeout=REPLY_SECONDS, check=False)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise ToolchainError(f"kite's debug engine cannot read {pdb}: {said[-1] if said else done.returncode}")
    return json.loads(done.stdout)


class Engine:
    """One engine process, serving one debuggee. `events` receives every event line as a dict, in order."""

    def __init__(self, command: list[str], env: dict[str, str] | None, on_event, pass_fds: tuple[int, ...] = ()):
        self.on_event = on_event
        self.process = spawn(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, env=env, preexec_fn=functools.partial(die_with_parent, os.getpid()), pass_fds=pass_fds)
        assert self.process.stdin and self.process.stdout and self.process.stderr  # all three are pipes
        self.stdin, self.stdout, self.stderr = self.process.stdin, self.process.stdout, self.process.stderr
        self._replies: queue.Queue = queue.Queue()
        self._next_id = 0
        self._lock = threading.Lock()  # one request in flight: the engine serves them in order
        self.stderr_tail = b""
        # Events are handed on from a thread of their own, so a handler may make requests: this reader goes on
        # reading their replies.
        self._events: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        threading.Thread(target=self._hand_on, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def request(self, op: str, timeout: float = REPLY_SECONDS, **arguments) -> dict:
        with self._lock:
            self._next_id += 1
            message = {"id": self._next_id, "op": op, **arguments}
            try:
                self.stdin.write(json.dumps(message).encode() + b"\n")
                self.stdin.flush()
            except (BrokenPipeError, OSError):
                raise EngineError(self._death()) from None
            while True:
                try:
                    reply = self._replies.get(timeout=timeout)
                except queue.Empty:
                    raise EngineError(f"the debug engine did not answer '{op}' within {timeout:g} s") from None
                if reply is None:
                    self._replies.put(None)  # every later request sees the end too
                    raise EngineError(self._death())
                if reply.get("id") == self._next_id:
                    break
            if "error" in reply:
                raise EngineError(reply["error"])
            return reply["ok"]

    def _read(self) -> None:
        for line in self.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "event" in message:
                self._events.put(message)
            else:
                self._replies.put(message)
        self._replies.put(None)
        self._events.put({"event": "engine-ended"})

    def _hand_on(self) -> None:
        while True:
            message = self._events.get()
            self.on_event(message)
            if message["event"] == "engine-ended":
                return

    def _read_stderr(self) -> None:
        for chunk in iter(lambda: self.stderr.read1(4096), b""):  # type: ignore[attr-defined]  # a BufferedReader
            self.stderr_tail = (self.stderr_tail + chunk)[-4096:]

    def _death(self) -> str:
        lines = self.stderr_tail.decode("utf-8", "replace").strip().splitlines()
        return f"the debug engine ended{': ' + lines[-1] if lines else ''}"

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        """Kill the engine and, with its process group (and, sandboxed, its pid namespace), the debuggee."""
        kill_group(self.process, (self.stdin, self.stdout, self.stderr))


def scratch_folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="kite-debug-"))
    folder.chmod(0o755)
    return folder


def remove_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
