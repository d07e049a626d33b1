"""Starting child processes: the compile process and the sandboxed test processes, which kite kills with itself, and
pools of worker processes."""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import os
import signal
import subprocess
import time
from typing import IO

# Both ask the kernel to kill them when their parent dies (PR_SET_PDEATHSIG, bubblewrap's --die-with-parent), and the
# kernel means the parent *thread*: a child started by a judging thread that then ends would die with it. So every
# such child is started by this one thread, which lives as long as the process.
_SPAWNER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kite-spawner")


def spawn(command: list[str], **options) -> subprocess.Popen:
    """subprocess.Popen, from the thread that outlives every child."""
    return _SPAWNER.submit(lambda: subprocess.Popen(command, **options)).result()


def piped(stream: IO[bytes] | None) -> IO[bytes]:
    """A stream of a child started with it as a pipe: Popen types every stream optional, for those that are not."""
    if stream is None:
        raise ValueError("the child was started without this pipe")
    return stream


PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """In a child: the kernel kills this process when its parent dies, however the parent died (SIGTERM, kill -9),
    and it exits now if the parent is already gone."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:
        os._exit(1)


def kill_group(process: subprocess.Popen, streams) -> None:
    """SIGKILL the child's whole process group (inside bubblewrap the pid namespace goes with it), reap it, and close
    its pipes."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    for stream in streams:
        with contextlib.suppress(OSError):
            if stream is not None:
                stream.close()


def wait_dead(pid: int, seconds: float) -> bool:
    """Whether the process `pid`, SIGKILLed but not our child (one in a sandbox's pid namespace), has died within
    `seconds`: it dies when the kernel gets to it, not when the signal is sent, and a loaded machine makes that later."""
    deadline = time.monotonic() + seconds
    while _running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            return not any(line.startswith("State:") and line.split()[1] in ("Z", "X") for line in status)
    except OSError:
        return False


# Items a worker process takes per request (files, for find and graph): enough to make the round trip cheap, few
# enough that the workers finish together.
ITEMS_PER_REQUEST = 50


def in_batches(executor: concurrent.futures.Executor, work, items: list) -> list:
    """`work` (a list of items to a list of results) over `items` in `executor`'s workers, ITEMS_PER_REQUEST at a
    time: every result, in the items' order, whatever the number of workers."""
    batches = [items[start:start + ITEMS_PER_REQUEST] for start in range(0, len(items), ITEMS_PER_REQUEST)]
    return [result for made in executor.map(work, batches) for result in made]


def default_jobs() -> int:
    """The CPUs this process may run on: the worker processes a batch command starts by default."""
    return len(os.sched_getaffinity(0))


def process_executor(jobs: int, forked: bool = False) -> concurrent.futures.Executor:
    """`jobs` worker processes, started with spawn: a forked child would share this process's .NET runtime state, and
    its threads' locks. `forked`, for a command that never loads .NET (graph, find): copies of this process, which
    need neither imports nor a parser made again (about 0.3 CPU s a worker), as long as it runs one thread (nothing's
    lock to inherit); else spawned all the same. Each dies with this process: a SIGTERMed `kite score --jobs N` leaves
    no worker judging on (their compile and test processes die with them in turn)."""
    import multiprocessing
    import sys

    fork = forked and single_threaded()
    if fork:  # a forked child flushes the standard streams as it ends: what is buffered now would be written twice
        sys.stdout.flush()
        sys.stderr.flush()
    return concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork" if fork else "spawn"),
                                                  initializer=die_with_parent, initargs=(os.getpid(),))


def single_threaded() -> bool:
    """This process runs one thread, Python's or not (a .NET runtime's are not): the kernel's count, not threading's."""
    return len(os.listdir("/proc/self/task")) == 1


def tree_rss(root: int) -> int:
    """Bytes of RAM the process `root` and every process below it hold (VmRSS): what a memory watchdog bounds."""
    return sum(_rss_bytes(pid) for pid in _process_tree(root))


def _process_tree(root: int) -> list[int]:
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children") as children:
                    pending.extend(int(child) for child in children.read().split())
            except (OSError, ValueError):
                pass
    return found


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0
