"""Where an answer's test process runs: inside bubblewrap, or (only when asked for) with no sandbox at all.

bubblewrap gives the process new user, pid, network, ipc, uts and mount namespaces. Its file system is a fresh
tmpfs root with only the .NET runtime, the shared libraries and the test host bound read-only, a private tmpfs for
`/tmp` and for the working folder, and an empty environment. When the process ends, its pid namespace ends with it:
nothing the answer started survives. A seccomp filter refuses System V IPC (kite.testing.seccomp). Where kite runs as root, each process gets a user of its own (an unused uid
drawn at random), so that limits counted per user (RLIMIT_NPROC) are one answer's alone.
"""

from __future__ import annotations

import functools
import itertools
import os
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kite.dotnet.packages import dotnet_executable
from kite.errors import ToolchainError
from kite.testing import seccomp

# Far above the ids distributions give accounts (below 65536): inside the sandbox such a user owns only its tmpfs.
OWN_USERS = range(1 << 28, 1 << 31)
HOST_DIR = "/kite"  # where the test host and the stdlib appear inside the sandbox
WORK_DIR = "/work"  # the answer's working folder inside the sandbox (a private tmpfs)
NAMESPACES = ("--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
LIBRARY_DIRS = ("/usr/lib", "/usr/lib64", "/lib", "/lib64")


@dataclass(frozen=True)
class Sandbox:
    """How a test process is started: the words before `dotnet HOST.dll`, and what they give."""

    mode: str  # "bubblewrap" or "none"
    bwrap: str = ""
    setpriv: str = ""  # set when every process runs as a user of its own: kite is root and setpriv can switch
    no_nested_namespaces: bool = False  # --disable-userns: the answer cannot make a user namespace of its own

    def describe(self) -> str:
        if self.mode == "none":
            return "no sandbox (--no-sandbox): the test process runs as the current user, with the network"
        user = "each as a user of its own" if self.own_user else "as the current user outside its user namespace"
        nested = ", no nested user namespaces" if self.no_nested_namespaces else ""
        return f"bubblewrap: own user, pid, network, ipc, uts and mount namespaces{nested}, read-only runtime, tmpfs /tmp and {WORK_DIR}, {user}"

    def command(self, host_dir: Path, environment: dict[str, str], tmpfs_bytes: int, seccomp_fd: int | None = None) -> list[str]:
        """The full argv that starts the test host in this sandbox; seccomp_fd (kite.testing.seccomp) must be passed."""
        dotnet = str(Path(dotnet_executable()).resolve())
        if self.mode == "none":
            return [dotnet, str(host_dir / "KiteTestHost.dll")]
        return self.wrap([dotnet, f"{HOST_DIR}/KiteTestHost.dll"], [(str(host_dir), HOST_DIR)], environment, tmpfs_bytes, seccomp_fd)

    def wrap(self, program: list[str], binds: list[tuple[str, str]], environment: dict[str, str], tmpfs_bytes: int,
             seccomp_fd: int | None = None) -> list[str]:
        """The argv that runs `program` in this sandbox with `binds` (source, target) read-only beside the runtime:
        the test host's, and the debug engine's with its debuggee (kite.debug.sandbox)."""
        dotnet = str(Path(dotnet_executable()).resolve())
        words = [*_launcher(self.bwrap, self.setpriv), *_isolation(self.no_nested_namespaces), *_filter(seccomp_fd)]
        for name, value in sorted(environment.items()):
            words += ["--setenv", name, value]
        words += _runtime_binds(dotnet)
        for source, target in binds:
            words += ["--ro-bind", source, target]
        words += ["--proc", "/proc", "--dev", "/dev"]
        for folder in ("/tmp", WORK_DIR):
            words += ["--size", str(tmpfs_bytes), "--tmpfs", folder]
        # The root and /dev are tmpfs with no size of their own: writable, they would hold files without limit.
        words += ["--remount-ro", "/dev", "--remount-ro", "/"]
        return [*words, "--chdir", WORK_DIR, "--", *program]

    @property
    def own_user(self) -> bool:
        return bool(self.setpriv)


NO_SANDBOX = Sandbox("none")


def _launcher(bwrap: str, setpriv: str) -> list[str]:
    """bwrap, under a fresh user when setpriv is given: random, so concurrent kite processes (which know nothing of
    each other) share no per-user count, and no answer shares its user with any process it could signal."""
    if not setpriv:
        return [bwrap]
    user = OWN_USERS[secrets.randbelow(len(OWN_USERS))]
    return [setpriv, f"--reuid={user}", f"--regid={user}", "--clear-groups", "--", bwrap]


def _runtime_binds(dotnet: str) -> list[str]:
    """What the .NET runtime needs, read-only: its muxer, host and shared framework, the system's libraries."""
    root = Path(dotnet).parent
    words = []
    for needed in (root / "dotnet", root / "host", root / "shared" / "Microsoft.NETCore.App"):
        words += ["--ro-bind", str(needed), str(needed)]
    for folder in LIBRARY_DIRS:
        if os.path.islink(folder):
            words += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            words += ["--ro-bind", folder, folder]
    if os.path.exists("/etc/ld.so.cache"):
        words += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return words


def _filter(seccomp_fd: int | None) -> list[str]:
    return [] if seccomp_fd is None else ["--seccomp", str(seccomp_fd)]


def _isolation(no_nested_namespaces: bool) -> list[str]:
    return [*NAMESPACES, *(["--disable-userns"] if no_nested_namespaces else []), "--die-with-parent", "--new-session", "--clearenv"]


def _setprivs() -> list[str]:
    """setpriv first (bwrap as a user of its own, in an unprivileged user namespace), then none (the current user)."""
    setpriv = shutil.which("setpriv")
    return [setpriv, ""] if os.geteuid() == 0 and setpriv else [""]


@functools.cache
def bubblewrap() -> Sandbox:
    """The sandbox this machine gives, probed once per process; ToolchainError says what is missing."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise ToolchainError(
            "kite test runs every answer inside bubblewrap, and bwrap is not installed "
            "(Debian/Ubuntu: apt-get install bubblewrap); --no-sandbox runs tests without it"
        )
    dotnet = str(Path(dotnet_executable()).resolve())
    refusals = []
    for setpriv, no_nested in itertools.product(_setprivs(), (True, False)):
        filter_fd = seccomp.descriptor()
        probe = [*_launcher(bwrap, setpriv), *_isolation(no_nested), *_filter(filter_fd), *_runtime_binds(dotnet),
                 "--proc", "/proc", "--dev", "/dev", "--", dotnet, "--list-runtimes"]
        try:
            done = subprocess.run(probe, capture_output=True, timeout=30, pass_fds=() if filter_fd is None else (filter_fd,), check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            refusals.append(str(error))
            continue
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
        if done.returncode == 0 and b"Microsoft.NETCore.App" in done.stdout:
            return Sandbox("bubblewrap", bwrap, setpriv, no_nested)
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        refusals.append(said[-1] if said else f"exit code {done.returncode}")
    raise ToolchainError(f"bubblewrap cannot start a sandbox on this machine ({refusals[-1]}); --no-sandbox runs tests without it")
