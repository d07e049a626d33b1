"""Roslyn in a child process that kite can kill: the time budget of the C# layers.

Roslyn observes cancellation between methods, not while it binds one: nested lambdas passed to overloaded methods
make binding a single method exponential, and a cancelled or abandoned compile keeps burning a core until that
method is bound (minutes to hours). Only killing the process that runs it bounds it. So every check and emit of an
answer runs here, one request at a time; a request past its budget kills the process (and anything it started),
and the next request starts a fresh one. The process is shared by every Checker in a kite process.

Protocol: one JSON object per line, requests on the child's stdin, replies on its stdout.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import ctypes
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

from kite.diagnostics import Diagnostic
from kite.errors import ToolchainError
from kite.spawn import piped, spawn

BOOT_TIMEOUT_SECONDS = 300  # starting .NET and Roslyn; not part of any answer's budget
READ_CHUNK = 1 << 16
PR_SET_PDEATHSIG = 1
# Compiled once before the child says it is ready, so the JIT's first pass over the binder and the analyzers is not
# charged to the first answer's budget.
WARM_UP = (
    "using System.Linq; using System.Collections.Generic;\n"
    "public static class WarmUp { public static int F(List<int> xs) => xs.Where(x => x > 0).Sum(x => x * 2); }\n"
)


class CompileTimeout(Exception):
    """The compile ran past its budget and was killed."""


class CompilerCrashed(Exception):
    """The compile process failed in a way kite did not expect: a bug in kite, reported as an internal error."""


class CompileWorker:
    """The parent's side: send a request, wait for its reply at most `timeout` seconds, kill the child past it."""

    def __init__(self):
        self.process: subprocess.Popen | None = None
        self._pending = bytearray()  # what the child wrote after the last complete reply
        self._stdlib_image = b""
        # The child serves one request at a time: a thread waits here while another's unit compiles.
        self._lock = threading.RLock()

    def stdlib_image(self) -> bytes:
        """KiteStd.dll exactly as the assemblies emitted here reference it."""
        with self._lock:
            if self.process is None:
                self._start()
            return self._stdlib_image

    def check(self, sources: list[tuple[str, str]], timeout: float) -> list[Diagnostic]:
        reply = self._request({"op": "check", "sources": sources}, timeout)
        return [Diagnostic.from_json(d) for d in reply["diagnostics"]]

    def emit(self, assembly_name: str, sources: list[tuple[str, str]], executable: bool, timeout: float):
        """(image or None, diagnostics) of an assembly that references Kite's stdlib."""
        image, found, _ = self.emit_with(assembly_name, sources, executable, timeout)
        return image, found

    def emit_with(self, assembly_name: str, sources: list[tuple[str, str]], executable: bool, timeout: float,
                  debug: bool = False, unsafe: bool = False):
        """(image or None, diagnostics, PDB or None): `debug` is a debugger's build (RoslynService.emit)."""
        request = {"op": "emit", "name": assembly_name, "sources": sources, "executable": executable, "debug": debug, "unsafe": unsafe}
        reply = self._request(request, timeout)
        image = base64.b64decode(reply["image"]) if reply["image"] is not None else None
        pdb = base64.b64decode(reply["pdb"]) if reply.get("pdb") is not None else None
        return image, [Diagnostic.from_json(d) for d in reply["diagnostics"]], pdb

    def stop(self) -> None:
        """Kill the child and its process group; the next request starts a new one."""
        with self._lock:
            if self.process is None:
                return
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            piped(self.process.stdin).close()
            piped(self.process.stdout).close()
            self.process = None
            self._pending.clear()

    def _start(self) -> subprocess.Popen:
        process = self.process = spawn(
            [sys.executable, "-m", "kite.dotnet.compile_worker", str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            ready = self._reply(process, time.monotonic() + BOOT_TIMEOUT_SECONDS)
        except CompileTimeout:
            self.stop()
            raise ToolchainError(f"the C# compiler did not start within {BOOT_TIMEOUT_SECONDS} s") from None
        self._stdlib_image = base64.b64decode(ready["stdlib"])
        return process

    def _request(self, request: dict, timeout: float) -> dict:
        with self._lock:  # the timeout counts from here: waiting for another thread's unit is not this one's time
            process = self.process if self.process is not None else self._start()
            try:
                piped(process.stdin).write(json.dumps(request).encode() + b"\n")
                piped(process.stdin).flush()
            except BrokenPipeError:
                self._died()
            try:
                return self._reply(process, time.monotonic() + timeout)
            except CompileTimeout:
                self.stop()
                raise

    def _reply(self, process: subprocess.Popen, deadline: float) -> dict:
        fd = piped(process.stdout).fileno()
        end = self._pending.find(b"\n")
        while end < 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise CompileTimeout()
            chunk = os.read(fd, READ_CHUNK)
            if not chunk:
                self._died()
            searched = len(self._pending)  # a long reply comes in many chunks: search each byte once
            self._pending += chunk
            end = self._pending.find(b"\n", searched)
        reply = json.loads(self._pending[:end])
        del self._pending[: end + 1]
        if "toolchain" in reply:
            self.stop()
            raise ToolchainError(reply["toolchain"])
        if "internal" in reply:
            raise CompilerCrashed(reply["internal"])
        return reply

    def _died(self):
        code = self.process.wait()
        self.stop()
        raise CompilerCrashed(f"the C# compiler process died (exit code {code})")


_shared: CompileWorker | None = None
_shared_lock = threading.Lock()


def shared_worker() -> CompileWorker:
    """One child per kite process, whatever the number of sessions or threads: starting .NET and Roslyn costs seconds."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = CompileWorker()
            atexit.register(_shared.stop)
        return _shared


# ---- the child


def _die_with_parent(parent_pid: int) -> None:
    """A kite killed mid-compile must not leave its compile running: the kernel kills this process with its parent."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:
        os._exit(1)


def _serve(replies) -> None:
    from kite.dotnet.roslyn import RoslynService
    from kite.dotnet.stdlib import compile_stdlib

    roslyn = RoslynService()
    stdlib = compile_stdlib(roslyn)
    roslyn.check([("WarmUp.cs", WARM_UP)], [stdlib.reference])
    _send(replies, {"stdlib": base64.b64encode(stdlib.image).decode()})
    for line in sys.stdin:
        request = json.loads(line)
        sources = [tuple(source) for source in request["sources"]]
        try:
            if request["op"] == "check":
                found = roslyn.check(sources, [stdlib.reference])
                _send(replies, {"diagnostics": [d.to_json() for d in found]})
            else:
                emitted = roslyn.emit(request["name"], sources, [stdlib.reference], executable=request["executable"],
                                      debug=request.get("debug", False), unsafe=request.get("unsafe", False))
                image = base64.b64encode(emitted.image).decode() if emitted.image is not None else None
                pdb = base64.b64encode(emitted.pdb).decode() if emitted.pdb is not None else None
                _send(replies, {"image": image, "pdb": pdb, "diagnostics": [d.to_json() for d in emitted.diagnostics]})
        except Exception as error:  # reported to the parent as one line, never a traceback
            _send(replies, {"internal": f"{type(error).__name__}: {error}"})


def _send(replies, message: dict) -> None:
    replies.write(json.dumps(message).encode() + b"\n")
    replies.flush()


def main() -> None:
    _die_with_parent(int(sys.argv[1]))
    # Replies get their own copy of stdout; whatever else writes to fd 1 (.NET, a library) goes to stderr.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    try:
        _serve(replies)
    except ToolchainError as error:
        _send(replies, {"toolchain": str(error)})


if __name__ == "__main__":
    main()
