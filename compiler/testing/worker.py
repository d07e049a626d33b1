"""One answer, one process: the test host (stdlib/KiteTestHost.cs) supervised from here, treated as hostile.

Each answer's tests run in a process of its own, started ahead of time (a pool keeps one idle) and killed when the
answer is done, so no culture, static, timer, thread or child process of one answer can touch the next. What is
enforced, and how (docs/cli.md has the threat model):
- time: each test has a limit and each answer a budget; past either, the process is killed, and the answer's
  remaining tests go to a fresh process;
- memory: the .NET GC heap is capped (DOTNET_GCHeapHardLimit), and a watchdog kills the process tree past twice that
  in RSS; what no RSS shows is bounded by other limits: /tmp and the working folder are tmpfs of a fixed size, a file
  (memfd too) is small, and descriptors (each a file or a socket's buffers) are few;
- processes, files and descriptors: RLIMIT_NPROC, RLIMIT_FSIZE and RLIMIT_NOFILE (kernel buffers behind sockets);
- results: signed lines on the process's stdout, under a key sent on its stdin (never in its environment, command
  line or a file); a line that does not verify fails the answer;
- output and messages: capped in the host, and every read here is capped too;
- the supervisor reads only pipes it created, never a path the answer could replace.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import os
import resource
import secrets
import selectors
import shutil
import subprocess
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from kite.display import well_formed
from kite.errors import ToolchainError
from kite.spawn import kill_group, piped, spawn, tree_rss
from kite.testing import seccomp
from kite.testing.limits import Limits
from kite.testing.sandbox import Sandbox

READ_CHUNK = 1 << 16
STDERR_KEPT = 4096
POLL_SECONDS = 0.05
BOOT_SECONDS = 120.0  # starting .NET in a new sandbox: never charged to an answer, but a machine that cannot is broken
TAMPERED = "the results channel was written by something other than the test host"


@dataclass(frozen=True)
class TestRequest:
    __test__ = False  # a Kite test's data, not a pytest class

    type_name: str
    method: str


@dataclass(frozen=True)
class RawResult:
    status: str  # pass, fail, crash, timeout
    message: str
    seconds: float = 0.0
    output: str = ""
    truncated: bool = False
    ended_process: bool = False  # the process died or was killed: later tests need a fresh one
    tampered: bool = False  # the channel was forged: nothing after it is believed


def host_environment(limits: Limits, home: str, temp: str) -> dict[str, str]:
    """The test host's whole environment: nothing secret, nothing inherited."""
    return {
        "HOME": home,
        "TMPDIR": temp,
        "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
        "DOTNET_NOLOGO": "1",
        "DOTNET_EnableDiagnostics": "0",  # no debugger or EventPipe socket
        "DOTNET_gcServer": "0",
        "DOTNET_EnableWriteXorExecute": "0",  # its code's memfd would need files past RLIMIT_FSIZE
        "DOTNET_GCHeapHardLimit": hex(limits.heap_mb * 1024 * 1024),
    }


PRLIMIT_OPTIONS = {resource.RLIMIT_NPROC: "--nproc", resource.RLIMIT_FSIZE: "--fsize", resource.RLIMIT_NOFILE: "--nofile",
                   resource.RLIMIT_CORE: "--core"}


def host_rlimits(limits: Limits, processes: bool) -> list[tuple[int, int]]:
    """(resource, soft and hard limit) of a test host; `processes`: RLIMIT_NPROC too."""
    return [*([(resource.RLIMIT_NPROC, limits.processes)] if processes else []), (resource.RLIMIT_FSIZE, limits.file_mb << 20),
            (resource.RLIMIT_NOFILE, limits.descriptors), (resource.RLIMIT_CORE, 0)]


@functools.cache
def prlimit_executable() -> str | None:
    """util-linux's prlimit, which runs a command under limits it sets; None where it is missing."""
    return shutil.which("prlimit")


class TestProcess:
    """A started test host waiting for its one answer; killed (with everything it started) when done."""

    __test__ = False

    def __init__(self, sandbox: Sandbox, host_dir: Path, limits: Limits):
        self.limits = limits
        self.scratch: Path | None = None
        if sandbox.mode == "none":
            self.scratch = Path(tempfile.mkdtemp(prefix="kite-answer-"))
            env = {**host_environment(limits, str(self.scratch), str(self.scratch)), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
            if "DOTNET_ROOT" in os.environ:
                env["DOTNET_ROOT"] = os.environ["DOTNET_ROOT"]
            cwd = str(self.scratch)
        else:
            env, cwd = {}, None  # bubblewrap clears the environment and sets the host's own
        filter_fd = seccomp.descriptor() if sandbox.mode != "none" else None
        rlimits = host_rlimits(limits, processes=sandbox.own_user or os.geteuid() != 0)  # root's own count would starve it
        command = sandbox.command(host_dir, host_environment(limits, "/work", "/tmp"), limits.tmpfs_mb << 20, filter_fd)
        prlimit = prlimit_executable()
        # prlimit sets the limits and execs the sandbox; without it, a function run between fork and exec sets them,
        # which makes Python fork rather than vfork: ~2.5 ms more CPU a host (benchmarks/score.py --breakdown).
        if prlimit is not None:
            command = [prlimit, *(f"{PRLIMIT_OPTIONS[which]}={value}:{value}" for which, value in rlimits), "--", *command]

        def apply_limits():
            for which, value in rlimits:
                resource.setrlimit(which, (value, value))

        try:
            self.process = spawn(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env,
                start_new_session=True, preexec_fn=apply_limits if prlimit is None else None,
                pass_fds=() if filter_fd is None else (filter_fd,),
            )
        finally:
            if filter_fd is not None:
                os.close(filter_fd)  # bubblewrap has its own copy
        self.stderr_tail: deque[bytes] = deque()
        self.channel = _Channel(self)
        self.stderr_kept = 0

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """The whole process group; inside bubblewrap the pid namespace goes with it."""
        kill_group(self.process, (self.process.stdin, self.process.stdout, self.process.stderr))
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)  # rmtree never follows a planted link

    def run(self, image: bytes, tests: list[TestRequest], budget_end: float, timeout_seconds: float) -> list[RawResult]:
        """Results in test order, up to the first that ended the process (a crash, a timeout, a forged line)."""
        key = secrets.token_bytes(32)
        request = [key.hex(), f"{self.limits.output_chars} {self.limits.message_chars}", str(len(tests)),
                   *(f"{t.type_name} {t.method}" for t in tests), base64.b64encode(image).decode()]
        channel = self.channel
        channel.key = key
        started = time.monotonic()
        if not self._send("".join(line + "\n" for line in request).encode(), started + self.limits.load_seconds):
            return [self._ended("crash", f"the test host died before the answer arrived{self._stderr_reason()}", 0.0)]
        event = channel.next(min(started + self.limits.load_seconds, budget_end))
        if event is None or event.get("event") != "loaded":
            if isinstance(event, dict) and event.get("event") == "unloadable":
                message = well_formed(str(event.get("message", "")))[: self.limits.message_chars * 2]
                return [RawResult("crash", f"the answer's assembly cannot be loaded: {message}", 0.0, ended_process=True)]
            return [channel.abnormal(event, time.monotonic() - started, budget_end)]
        results = []
        for index, _ in enumerate(tests):
            test_start = time.monotonic()
            deadline = min(test_start + timeout_seconds, budget_end)
            event = channel.next(deadline)
            seconds = time.monotonic() - test_start
            if not isinstance(event, dict) or event.get("event") != "result" or event.get("index") != index:
                results.append(channel.abnormal(event, seconds, budget_end))
                break
            results.append(RawResult(
                event["status"] if event.get("status") in ("pass", "fail", "crash") else "crash",
                well_formed(str(event.get("message", "")))[: self.limits.message_chars * 2],
                seconds, well_formed(str(event.get("output", "")))[: self.limits.output_chars], event.get("truncated") is True,
            ))
        return results

    def _send(self, data: bytes, deadline: float) -> bool:
        """Write the request without ever blocking past the deadline; False if the host is gone."""
        fd = piped(self.process.stdin).fileno()
        os.set_blocking(fd, False)
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_WRITE)
            while data:
                if time.monotonic() >= deadline:
                    return False
                if selector.select(POLL_SECONDS):
                    try:
                        data = data[os.write(fd, data):]
                    except BrokenPipeError:
                        return False
        piped(self.process.stdin).close()  # the answer can read nothing more from stdin
        return True

    def _ended(self, status: str, message: str, seconds: float, tampered: bool = False) -> RawResult:
        self.kill()
        return RawResult(status, message, seconds, ended_process=True, tampered=tampered)

    def _keep_stderr(self, chunk: bytes) -> None:
        self.stderr_tail.append(chunk)
        self.stderr_kept += len(chunk)
        while self.stderr_kept - len(self.stderr_tail[0]) >= STDERR_KEPT:
            self.stderr_kept -= len(self.stderr_tail.popleft())

    def _stderr_reason(self) -> str:
        lines = b"".join(self.stderr_tail)[-STDERR_KEPT:].decode("utf-8", "replace").strip().splitlines()
        reason = next((line for line in lines if "overflow" in line.lower()), lines[0] if lines else "")
        return f": {reason.strip()}" if reason.strip() else ""

    def _tree_rss(self) -> int:
        return tree_rss(self.process.pid)


class _Channel:
    """The host's signed result lines, read with a deadline, a length cap and a memory watchdog."""

    def __init__(self, process: TestProcess):
        self.owner = process
        self.key = b""  # the answer's key, set when the answer is sent
        self.sequence = 0
        self.buffer = b""
        self.forged = False
        self.died = False
        self.out_of_memory = False
        self.next_memory_check = 0.0
        self.selector = selectors.DefaultSelector()
        for stream in (piped(process.process.stdout), piped(process.process.stderr)):
            os.set_blocking(stream.fileno(), False)
            self.selector.register(stream.fileno(), selectors.EVENT_READ, stream)

    def next(self, deadline: float) -> dict | None:
        """The next verified event; None when the deadline passed, the host died or the line was forged."""
        owner = self.owner
        while True:
            if b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                return self._verified(line)
            if len(self.buffer) > owner.limits.line_limit_bytes:
                self.forged = True
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self._read_ready(min(remaining, POLL_SECONDS))
            if self.died and b"\n" not in self.buffer:  # a last line written before exiting still counts
                self._drain_stderr()
                return None
            if time.monotonic() >= self.next_memory_check:
                self.next_memory_check = time.monotonic() + POLL_SECONDS
                if owner._tree_rss() > owner.limits.rss_limit_bytes:
                    self.out_of_memory = True
                    return None

    def ready(self, deadline: float) -> bool:
        """The host's first line, before any answer exists: it has booted and waits for one."""
        while b"\n" not in self.buffer and time.monotonic() < deadline and not self.died:
            self._read_ready(POLL_SECONDS)
        line, found, self.buffer = self.buffer.partition(b"\n")
        return bool(found) and line == b"ready"

    def _read_ready(self, timeout: float) -> None:
        """Whatever the host's stdout and stderr have within `timeout`: stdout into the buffer, stderr's tail kept."""
        for selected, _ in self.selector.select(timeout):
            try:
                chunk = os.read(selected.fd, READ_CHUNK)
            except BlockingIOError:
                continue
            if selected.data is self.owner.process.stderr:
                if chunk:
                    self.owner._keep_stderr(chunk)
                else:
                    self.selector.unregister(selected.fd)  # closed: never ready again, never a busy loop
            elif chunk:
                self.buffer += chunk
            else:
                self.died = True

    def _verified(self, line: bytes) -> dict | None:
        signature, _, payload = line.partition(b" ")
        expected = hmac.new(self.key, payload, hashlib.sha256).hexdigest().upper().encode()
        try:
            event = json.loads(payload) if hmac.compare_digest(signature, expected) else None
        except ValueError:
            event = None
        if not isinstance(event, dict) or event.get("sequence") != self.sequence:
            self.forged = True
            return None
        self.sequence += 1
        return event

    def _drain_stderr(self) -> None:
        stream = piped(self.owner.process.stderr)
        try:
            for _ in range(STDERR_KEPT // READ_CHUNK + 4):  # bounded: a process may still be writing
                chunk = os.read(stream.fileno(), READ_CHUNK)
                if not chunk:
                    break
                self.owner._keep_stderr(chunk)
        except OSError:
            pass

    def abnormal(self, event, seconds: float, budget_end: float) -> RawResult:
        """Why no honest result came, and the process killed so the rest can go to a fresh one."""
        owner = self.owner
        if self.forged or event is not None:
            return owner._ended("crash", TAMPERED, seconds, tampered=True)
        if self.out_of_memory:
            return owner._ended("crash", f"used more than {owner.limits.rss_limit_bytes >> 20} MB of memory", seconds)
        if self.died:
            try:
                code: int | str = owner.process.wait(timeout=0.5)  # it closed its results; it may not have exited
            except subprocess.TimeoutExpired:
                code = "none: it closed its results and went on"
            return owner._ended("crash", f"the test host died (exit code {code}){owner._stderr_reason()}", seconds)
        if time.monotonic() >= budget_end:
            return owner._ended("timeout", f"the answer's time budget of {owner.limits.budget_seconds:g} s ran out", seconds)
        return owner._ended("timeout", "", seconds)


class ProcessPool:
    """Keeps test processes started ahead (one by default), so an answer never waits for .NET to boot."""

    def __init__(self, sandbox: Sandbox, host_dir: Path, limits: Limits, ahead: int = 1):
        self.sandbox = sandbox
        self.host_dir = host_dir
        self.limits = limits
        self.ahead = ahead
        self.idle: deque[TestProcess] = deque()
        self.started = 0  # how many processes were started (the ones kept ahead too): a benchmark number
        self.taken = 0  # how many answers' runs took one
        self._lock = threading.Lock()  # answers in flight on several threads each take their own process

    def _start(self) -> TestProcess:
        self.started += 1
        return TestProcess(self.sandbox, self.host_dir, self.limits)

    def take(self) -> TestProcess:
        with self._lock:
            process = None
            while self.idle and process is None:
                candidate = self.idle.popleft()
                if candidate.alive:
                    process = candidate
                else:
                    candidate.kill()
            process = process or self._start()
            self.taken += 1
            while len(self.idle) < self.ahead:
                self.idle.append(self._start())
            return process

    def close(self) -> None:
        with self._lock:
            while self.idle:
                self.idle.popleft().kill()


NOT_RUN_AFTER_FAILURE = "not run: an earlier test already failed"


def run_answer(pool: ProcessPool, image: bytes, tests: list[TestRequest], timeout_seconds: float | None = None,
               stop_at_failure: bool = False) -> list[RawResult]:
    """Every test of one answer, in order; a crash or timeout hands the rest to a fresh process. Each test runs for
    the pool's limit, or `timeout_seconds` (a task's own time limit). With `stop_at_failure` (a mutant: one failure
    decides it), the tests left when a process ends on a failure are not run."""
    limits = pool.limits
    budget_end: float | None = None  # the budget starts when the first process is ready, so booting is never charged
    results: list[RawResult] = []
    while len(results) < len(tests):
        left = len(tests) - len(results)
        if stop_at_failure and any(result.status != "pass" for result in results):
            return results + [RawResult("fail", NOT_RUN_AFTER_FAILURE)] * left
        if results and results[-1].tampered:
            return results + [RawResult("crash", f"not run: {TAMPERED}")] * left
        if budget_end is not None and time.monotonic() >= budget_end:
            return results + [RawResult("timeout", f"not run: the answer's time budget of {limits.budget_seconds:g} s ran out")] * left
        process = pool.take()
        try:
            if not process.channel.ready(time.monotonic() + BOOT_SECONDS):
                raise ToolchainError(f"a test process did not start within {BOOT_SECONDS:g} s{process._stderr_reason()}")
            budget_end = budget_end or time.monotonic() + limits.budget_seconds
            results += process.run(image, tests[len(results):], budget_end, timeout_seconds or limits.timeout_seconds)
        finally:
            process.kill()
    return results
