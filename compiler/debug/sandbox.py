"""Where a debug session runs: the engine and its debuggee (answer code) together inside one bubblewrap sandbox,
as tests run, in one pid namespace with one private /tmp (where the runtime's debugger transport keeps its pipes).
Diagnostics are on here only: the grading test host keeps DOTNET_EnableDiagnostics=0."""

from __future__ import annotations

import os
from pathlib import Path

from kite.testing.limits import Limits
from kite.testing.sandbox import NO_SANDBOX, Sandbox, bubblewrap

TMPFS_MB = 64  # the engine and the debuggee share it; the transport's pipes are tiny


def environment(limits: Limits | None = None) -> dict[str, str]:
    """The engine's (and so the debuggee's) whole environment in the sandbox."""
    limits = limits or Limits()
    return {
        "HOME": "/work",
        "TMPDIR": "/tmp",
        "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
        "DOTNET_NOLOGO": "1",
        "DOTNET_gcServer": "0",
        "DOTNET_EnableWriteXorExecute": "0",
        "DOTNET_GCHeapHardLimit": hex(limits.heap_mb * 1024 * 1024),
    }


def sandbox(sandboxed: bool) -> Sandbox:
    return bubblewrap() if sandboxed else NO_SANDBOX


INSIDE = "/kite-debug"  # where the engine's folder and the debug build appear in the sandbox (its /tmp is its own)


def inside(folder: Path) -> str:
    return f"{INSIDE}/{folder.name}"


def sandboxed_command(command: list[str], folders: list[Path], seccomp_fd: int | None) -> list[str]:
    """`command` inside bubblewrap, each folder bound read-only at `inside(folder)`: the command and every path
    handed to the engine name them so."""
    return bubblewrap().wrap(command, [(str(f), inside(f)) for f in folders], environment(), TMPFS_MB << 20, seccomp_fd)


def host_pid(root: int, pid_inside: int) -> int:
    """The debuggee's pid on the host: the descendant of `root` (bubblewrap) whose innermost namespace pid is
    `pid_inside`; `pid_inside` itself when none is found (no sandbox)."""
    pending = [root]
    while pending:
        pid = pending.pop()
        try:
            with open(f"/proc/{pid}/status") as status:
                spaces = next((line.split()[1:] for line in status if line.startswith("NSpid:")), [])
            if len(spaces) > 1 and spaces[-1] == str(pid_inside):
                return pid
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as children:
                    pending.extend(int(child) for child in children.read().split())
        except (OSError, ValueError):
            continue
    return pid_inside
