"""Starting the child processes kite kills with itself: the compile process and the sandboxed test processes."""

from __future__ import annotations

import concurrent.futures
import subprocess

# Both ask the kernel to kill them when their parent dies (PR_SET_PDEATHSIG, bubblewrap's --die-with-parent), and the
# kernel means the parent *thread*: a child started by a judging thread that then ends would die with it. So every
# such child is started by this one thread, which lives as long as the process.
_SPAWNER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kite-spawner")


def spawn(command: list[str], **options) -> subprocess.Popen:
    """subprocess.Popen, from the thread that outlives every child."""
    return _SPAWNER.submit(subprocess.Popen, command, **options).result()
