"""Where `kite score` judges: in this process (--jobs 1), in worker processes each holding a warm session (--jobs N,
kite.spawn.process_executor), or on a Dask cluster (--dask ADDRESS), all with the same submit and wait."""

from __future__ import annotations

import atexit
import concurrent.futures
from dataclasses import dataclass

from kite.defaults import COMPILE_MEMORY_MB, COMPILE_TIMEOUT_SECONDS
from kite.errors import UnusableInput
from kite.scoring.grading import CodeRequest, judge
from kite.testing.limits import Limits


@dataclass(frozen=True)
class SessionSettings:
    """How each worker's session runs the hidden tests."""

    sandboxed: bool = True
    timeout_seconds: float = Limits.timeout_seconds
    budget_seconds: float = Limits.budget_seconds
    compile_timeout_seconds: float = COMPILE_TIMEOUT_SECONDS
    compile_memory_mb: int = COMPILE_MEMORY_MB

    def open(self, processes_ahead: int = 1):
        """`processes_ahead`: test processes kept booted, one per answer this session judges at once."""
        from kite.session import Session

        limits = Limits(timeout_seconds=self.timeout_seconds, budget_seconds=self.budget_seconds)
        return Session(limits=limits, sandboxed=self.sandboxed, compile_timeout=self.compile_timeout_seconds,
                       processes_ahead=processes_ahead, compile_memory_mb=self.compile_memory_mb)


_worker_session = None


def judge_in_worker(settings: SessionSettings, request: CodeRequest) -> dict:
    """One warm session per worker process (or Dask worker), opened on its first request and kept."""
    global _worker_session
    if _worker_session is None:
        _worker_session = settings.open()
        atexit.register(_worker_session.close)  # spawned workers end through sys.exit: the test processes go too
    return judge(_worker_session, request)


ANSWERS_IN_FLIGHT = 2  # --jobs 1: one answer compiles while the other's tests run in their own process


class InlineExecutor(concurrent.futures.ThreadPoolExecutor):
    """--jobs 1: one warm session in this process, judging on two threads: the compile process and the test
    processes are separate processes, so one answer's tests run while the next one compiles."""

    def __init__(self, settings: SessionSettings):
        super().__init__(max_workers=ANSWERS_IN_FLIGHT, thread_name_prefix="kite-judge")
        # Both answers in flight take a booted process: with one kept ahead, the second waited for .NET to start.
        self.session = settings.open(processes_ahead=ANSWERS_IN_FLIGHT)

    def submit(self, fn, /, *args, **kwargs):
        return super().submit(lambda request: judge(self.session, request), args[-1])

    def shutdown(self, wait=True, *, cancel_futures=False):
        super().shutdown(wait, cancel_futures=cancel_futures)
        self.session.close()


class DaskExecutor:
    """The same submit/wait over a Dask cluster; each Dask worker keeps its own session (module state)."""

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:
            raise UnusableInput("--dask needs the distributed package (pip install distributed)") from None
        try:
            self.client = Client(address, timeout="20s")
        except (OSError, TimeoutError) as error:
            raise UnusableInput(f"--dask {address}: cannot reach the scheduler ({error})") from None

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def wait(self, futures):
        from distributed import wait

        return wait(futures, return_when="FIRST_COMPLETED").done

    def shutdown(self):
        self.client.close()


def first_done(executor, futures):
    if isinstance(executor, DaskExecutor):
        return executor.wait(futures)
    return concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_COMPLETED).done
