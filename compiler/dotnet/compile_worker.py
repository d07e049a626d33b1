"""Roslyn in a child process that kite can kill: the time budget of the C# layers.

Roslyn observes cancellation between methods, not while it binds one: nested lambdas passed to overloaded methods
make binding a single method exponential, and a cancelled or abandoned compile keeps burning a core until that
method is bound (minutes to hours). Only killing the process that runs it bounds it. So every check and emit of an
answer runs here, one request at a time; a request past its budget kills the process (and anything it started),
and the next request starts a fresh one. The process is shared by every Checker in a kite process.

The budget is memory as well as time: a watchdog reads the process tree's RSS while a request runs (as the test
processes' does, kite.spawn.tree_rss) and kills it past the request's limit, and a process that a large request left
holding more than half of it is replaced, so what one answer's compile kept is never charged to the next.

The other formats an answer may be given in (C#, a .NET or Python regex, JSON, Python) are checked here too: their
parsers are no more bounded than Roslyn is.

Protocol: one JSON object per line, requests on the child's stdin, replies on its stdout.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

from kite.defaults import COMPILE_MEMORY_MB
from kite.diagnostics import Diagnostic
from kite.errors import ToolchainError
from kite.source import not_unicode
from kite.spawn import die_with_parent, piped, spawn, tree_rss
from kite.text_formats import json_problem, python_problem, python_regex_problem

BOOT_TIMEOUT_SECONDS = 300  # starting .NET and Roslyn; not part of any answer's budget
READ_CHUNK = 1 << 16
# A reply is waited for in slices, so an interrupt (Ctrl-C, a cancelled request) comes soon and the memory watchdog
# looks often: parsing can take a few hundred MB a second.
WAIT_SLICE_SECONDS = 0.05
# A fresh child's first check also JIT-compiles Roslyn's binder and the analyzers (most of a cold check's CPU), which
# is not the unit's own time: until one check is done, requests get this many times the child's start on top of their
# budget. It scales with the machine's load as the JIT does; a warm-up compile at start would cost a one-shot check
# that CPU twice (benchmarks/cold_vs_csc.py).
FIRST_CHECK_ALLOWANCE_PER_START = 3.0

class CompileTimeout(Exception):
    """The compile ran past its budget and was killed."""


class CompileOutOfMemory(CompileTimeout):
    """The compile held more memory than its budget allows and was killed: past the budget as a timeout is, so
    whatever keeps the one keeps the other (KT010, and no cache)."""

    def __init__(self, megabytes: int):
        super().__init__(f"more than {megabytes} MB")
        self.megabytes = megabytes


class CompilerCrashed(Exception):
    """The compile process failed in a way kite did not expect: a bug in kite, reported as an internal error."""


class CompileWorker:
    """The parent's side: send a request, wait for its reply at most `timeout` seconds, kill the child past it."""

    def __init__(self):
        self.process: subprocess.Popen | None = None
        self._pending = bytearray()  # what the child wrote after the last complete reply
        self._stdlib_image = b""
        self._allowance = 0.0  # seconds on top of a request's budget, until the child's first check (see above)
        # The child serves one request at a time: a thread waits here while another's unit compiles.
        self._lock = threading.RLock()

    def stdlib_image(self) -> bytes:
        """Kite.Std.dll exactly as the assemblies emitted here reference it."""
        with self._lock:
            if self.process is None:
                self._start()
            return self._stdlib_image

    def check(self, sources: list[tuple[str, str]], timeout: float, with_stdlib: bool = True,
              memory_mb: int = COMPILE_MEMORY_MB) -> list[Diagnostic]:
        """Roslyn's and the analyzers' diagnostics; without the stdlib: raw C# on its own (an answer in C#)."""
        reply = self._request({"op": "check", "sources": sources, "stdlib": with_stdlib}, timeout, memory_mb)
        return [Diagnostic.from_json(d) for d in reply["diagnostics"]]

    def text_problem(self, kind: str, text: str, timeout: float, memory_mb: int = COMPILE_MEMORY_MB) -> str:
        """Why `text` is not valid `kind` (one of TEXT_CHECKS), "" when it is."""
        return self._request({"op": "text", "kind": kind, "text": text}, timeout, memory_mb)["problem"]

    def emit(self, assembly_name: str, sources: list[tuple[str, str]], executable: bool, timeout: float,
             memory_mb: int = COMPILE_MEMORY_MB):
        """(image or None, diagnostics) of an assembly that references Kite's stdlib."""
        image, found, _ = self.emit_with(assembly_name, sources, executable, timeout, memory_mb=memory_mb)
        return image, found

    def emit_with(self, assembly_name: str, sources: list[tuple[str, str]], executable: bool, timeout: float,
                  debug: bool = False, unsafe: bool = False, memory_mb: int = COMPILE_MEMORY_MB):
        """(image or None, diagnostics, PDB or None): `debug` is a debugger's build (RoslynService.emit)."""
        request = {"op": "emit", "name": assembly_name, "sources": sources, "executable": executable, "debug": debug, "unsafe": unsafe}
        reply = self._request(request, timeout, memory_mb)
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
            self._allowance = 0.0
            self._pending.clear()

    def _start(self) -> subprocess.Popen:
        from kite.dotnet.packages import restore

        restore()  # here, not in the child: a first run's progress reaches this process's terminal (kite.progress)
        started = time.monotonic()
        process = self.process = spawn(
            [sys.executable, "-m", "kite.dotnet.compile_worker", str(os.getpid())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            ready = self._reply(process, time.monotonic() + BOOT_TIMEOUT_SECONDS)
        except CompileTimeout:
            self.stop()
            raise ToolchainError(f"the C# compiler did not start within {BOOT_TIMEOUT_SECONDS} s") from None
        except KeyboardInterrupt:
            self.stop()
            raise
        self._stdlib_image = base64.b64decode(ready["stdlib"])
        self._allowance = FIRST_CHECK_ALLOWANCE_PER_START * (time.monotonic() - started)
        return process

    def _request(self, request: dict, timeout: float, memory_mb: int) -> dict:
        for path, text in request.get("sources", [("answer", request.get("text", ""))]):
            refused = not_unicode(path, text)
            if refused is not None:  # .NET cannot take it: the child would die of SIGABRT
                raise refused
        with self._lock:  # the timeout counts from here: waiting for another thread's unit is not this one's time
            try:
                process = self.process if self.process is not None else self._start()
                try:
                    piped(process.stdin).write(json.dumps(request).encode() + b"\n")
                    piped(process.stdin).flush()
                except BrokenPipeError:
                    self._died()
                # A text check (a regex, Python, JSON answer) runs no Roslyn: it gets no JIT allowance, so a huge regex
                # has the same budget first in a process as later.
                allowance = 0.0 if request["op"] == "text" else self._allowance
                reply = self._reply(process, time.monotonic() + timeout + allowance, memory_mb << 20)
                if request["op"] == "check":
                    self._allowance = 0.0
                if tree_rss(process.pid) > (memory_mb << 20) // 2:  # what this compile kept is not the next one's
                    self.stop()
                return reply
            except CompileTimeout:
                self.stop()
                raise
            except KeyboardInterrupt:  # abandoned half-way: the child's next reply would be this request's
                self.stop()
                raise

    def _reply(self, process: subprocess.Popen, deadline: float, memory_limit: int | None = None) -> dict:
        """The next reply by `deadline`, while the process tree holds at most `memory_limit` bytes (None: booting)."""
        fd = piped(process.stdout).fileno()
        end = self._pending.find(b"\n")
        while end < 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CompileTimeout()
            if not select.select([fd], [], [], min(remaining, WAIT_SLICE_SECONDS))[0]:
                if memory_limit is not None and tree_rss(process.pid) > memory_limit:
                    raise CompileOutOfMemory(memory_limit >> 20)
                continue
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


def _serve(replies) -> None:
    from kite.dotnet.roslyn import RoslynService
    from kite.dotnet.stdlib import compile_stdlib

    roslyn = RoslynService()
    stdlib = compile_stdlib(roslyn)
    _send(replies, {"stdlib": base64.b64encode(stdlib.image).decode()})
    for line in sys.stdin:
        request = json.loads(line)
        sources = [tuple(source) for source in request.get("sources", ())]
        try:
            if request["op"] == "check":
                found = roslyn.check(sources, [stdlib.reference] if request["stdlib"] else [])
                _send(replies, {"diagnostics": [d.to_json() for d in found]})
            elif request["op"] == "text":
                _send(replies, {"problem": TEXT_CHECKS[request["kind"]](request["text"])})
            else:
                emitted = roslyn.emit(request["name"], sources, [stdlib.reference], executable=request["executable"],
                                      debug=request.get("debug", False), unsafe=request.get("unsafe", False))
                image = base64.b64encode(emitted.image).decode() if emitted.image is not None else None
                pdb = base64.b64encode(emitted.pdb).decode() if emitted.pdb is not None else None
                _send(replies, {"image": image, "pdb": pdb, "diagnostics": [d.to_json() for d in emitted.diagnostics]})
        except Exception as error:  # reported to the parent as one line, never a traceback
            _send(replies, {"internal": f"{type(error).__name__}: {error}"})


def dotnet_regex_problem(pattern: str) -> str:
    import clr

    clr.AddReference("System.Text.RegularExpressions")
    from System import ArgumentException
    from System.Text.RegularExpressions import Regex

    try:
        Regex(pattern)
    except ArgumentException as error:
        return f"not a .NET regex: {error.Message}"
    return ""


TEXT_CHECKS = {"json": json_problem, "python": python_problem, "python regex": python_regex_problem, "dotnet regex": dotnet_regex_problem}


def _send(replies, message: dict) -> None:
    replies.write(json.dumps(message).encode() + b"\n")
    replies.flush()


def main() -> None:
    die_with_parent(int(sys.argv[1]))  # a kite killed mid-compile must not leave its compile running
    # Replies get their own copy of stdout; whatever else writes to fd 1 (.NET, a library) goes to stderr.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    try:
        _serve(replies)
    except ToolchainError as error:
        _send(replies, {"toolchain": str(error)})


if __name__ == "__main__":
    main()
