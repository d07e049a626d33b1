"""The test worker: a .NET process (stdlib/KiteTestHost.cs) supervised from here, treated as hostile.

What is enforced, and how:
- time: each test has a limit; past it the worker's whole process group is killed (SIGKILL) and replaced;
- memory: the .NET GC heap is capped (DOTNET_GCHeapHardLimit), and a watchdog kills the worker past twice that in RSS;
- processes: RLIMIT_NPROC, which binds when the worker runs as an unprivileged user (see `isolation()`);
- output: 64 KiB per test is kept (the rest is cut, and the result says so); files: RLIMIT_FSIZE 16 MiB;
- results: only on a private pipe, each line opened by a per-worker secret the program never sees,
  so printing "PASS" or exiting early can never count as a pass;
- network and user: where the machine allows it, the worker runs in its own network namespace
  (`unshare -n`), and as `nobody` when kite runs as root.
KT007 refuses processes, files, network, environment and exit at compile time, before any of this is needed.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import secrets
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from kite.dotnet.packages import dotnet_executable

NOBODY = 65534
READ_CHUNK = 1 << 16


@dataclass(frozen=True)
class Limits:
    timeout_seconds: float = 5.0
    heap_mb: int = 512
    processes: int = 256  # threads count too on Linux; .NET itself runs a few dozen
    file_mb: int = 16

    @property
    def rss_limit_bytes(self) -> int:
        return 2 * self.heap_mb * 1024 * 1024


@dataclass(frozen=True)
class RawResult:
    status: str  # pass, fail, crash, timeout
    message: str
    output: str = ""
    truncated: bool = False


@dataclass(frozen=True)
class Isolation:
    prefix: tuple[str, ...]
    runs_as_nobody: bool
    no_network: bool

    def describe(self) -> str:
        network = "no network (own network namespace)" if self.no_network else "network NOT isolated (unshare unavailable)"
        user = "as nobody" if self.runs_as_nobody else "as the current user"
        return f"{network}, {user}"


def _works(command: list[str]) -> bool:
    try:
        return subprocess.run([*command, "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.cache
def isolation() -> Isolation:
    """The strongest isolation this machine allows, probed once per process."""
    unshare = shutil.which("unshare")
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and unshare and setpriv:
        drop = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
        if _works([unshare, "-n", *drop]):
            return Isolation((unshare, "-n", *drop), True, True)
        if _works(drop):
            return Isolation(tuple(drop), True, False)
    if unshare:
        for flags in (["-n"], ["-n", "-r"]):
            if _works([unshare, *flags]):
                return Isolation((unshare, *flags), False, True)
    return Isolation((), False, False)


def prepare_folder(path: Path, writable: bool) -> Path:
    """A folder the worker can read (and, for its working folder, write) when it runs as nobody."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o755)
    if writable and isolation().runs_as_nobody:
        os.chown(path, NOBODY, NOBODY)
    return path


class Worker:
    """One test host process, reused while healthy, killed with its process group and replaced otherwise."""

    def __init__(self, host_dll: Path, home: Path, limits: Limits):
        self.host_dll = host_dll
        self.home = home
        self.limits = limits
        self.process: subprocess.Popen | None = None
        self.results_fd = -1
        self.secret = ""
        self.stderr_path = home / "worker.stderr"
        self.started = 0  # how many processes this worker has been: a benchmark number

    def _start(self) -> None:
        read_fd, write_fd = os.pipe()
        self.secret = secrets.token_hex(16)
        limits = self.limits
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "TMPDIR": str(self.home),
            "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
            "DOTNET_NOLOGO": "1",
            "DOTNET_gcServer": "0",
            "DOTNET_GCHeapHardLimit": hex(limits.heap_mb * 1024 * 1024),
            "KITE_HOST_SECRET": self.secret,
        }
        if "DOTNET_ROOT" in os.environ:
            env["DOTNET_ROOT"] = os.environ["DOTNET_ROOT"]

        def apply_limits():
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb << 20, limits.file_mb << 20))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(
                [*isolation().prefix, dotnet_executable(), str(self.host_dll), str(write_fd)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr, pass_fds=(write_fd,),
                cwd=self.home, env=env, start_new_session=True, preexec_fn=apply_limits,
            )
        os.close(write_fd)
        self.results_fd = read_fd
        self.started += 1

    def stop(self) -> None:
        """Kill the worker and everything it started (its own process group)."""
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait()
            if self.process.stdin:
                self.process.stdin.close()
            os.close(self.results_fd)
        self.process = None

    def recycle_if_grown(self) -> None:
        """Between answers: a worker past half its heap limit is replaced before it can fail someone's test."""
        if self.process is not None and _rss_bytes(self.process.pid) > self.limits.heap_mb * 1024 * 1024 // 2:
            self.stop()

    def run(self, request: dict, timeout: float) -> RawResult:
        if self.process is None:
            self._start()
        try:
            self.process.stdin.write((json.dumps(request) + "\n").encode())
            self.process.stdin.flush()
        except BrokenPipeError:
            return self._died()
        deadline = time.monotonic() + timeout
        received = b""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.stop()
                return RawResult("timeout", "")
            ready, _, _ = select.select([self.results_fd], [], [], min(remaining, 0.05))
            if not ready:
                if _rss_bytes(self.process.pid) > self.limits.rss_limit_bytes:
                    self.stop()
                    return RawResult("crash", f"used more than {self.limits.rss_limit_bytes >> 20} MB of memory")
                continue
            chunk = os.read(self.results_fd, READ_CHUNK)
            if not chunk:
                return self._died()
            received += chunk
            if b"\n" in received:
                line = received.split(b"\n", 1)[0].decode("utf-8", "replace")
                secret, _, payload = line.partition(" ")
                if secret != self.secret:
                    self.stop()
                    return RawResult("crash", "the results channel was written by something other than the test host")
                result = json.loads(payload)
                return RawResult(result["status"], result["message"], result["output"], result["truncated"])

    def _died(self) -> RawResult:
        code = self.process.wait() if self.process else None
        self.stop()
        tail = self.stderr_path.read_bytes()[-2000:].decode("utf-8", "replace").strip().splitlines()
        reason = next((line for line in tail if "overflow" in line.lower()), tail[0] if tail else "")
        described = f"the test host died (exit code {code})"
        return RawResult("crash", f"{described}: {reason}" if reason else described)


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
