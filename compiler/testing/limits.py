"""What a hidden test and an answer may use: kept apart from the worker that enforces them, so that the session and
the commands that only check name them without importing the worker (its sandbox, its process pool)."""

from __future__ import annotations

from dataclasses import dataclass

from kite.defaults import ANSWER_BUDGET_SECONDS, TEST_TIMEOUT_SECONDS


@dataclass(frozen=True)
class Limits:
    timeout_seconds: float = TEST_TIMEOUT_SECONDS
    budget_seconds: float = ANSWER_BUDGET_SECONDS
    heap_mb: int = 512
    processes: int = 256  # threads count too on Linux; .NET itself runs a few dozen
    descriptors: int = 256  # .NET itself holds about 40; each socket can pin ~200 KB of kernel memory no RSS shows
    file_mb: int = 1  # RLIMIT_FSIZE: one file, memfd too (one held open, or in flight on a socket, is in no RSS)
    tmpfs_mb: int = 16  # each of /tmp and the working folder
    output_chars: int = 64 * 1024  # a test's captured output
    message_chars: int = 4096  # a failure's message
    load_seconds: float = 10.0  # from the answer's arrival to its assembly being loaded

    @property
    def rss_limit_bytes(self) -> int:
        return 2 * self.heap_mb * 1024 * 1024

    @property
    def line_limit_bytes(self) -> int:
        """The longest honest result line: output and message, each character escaped as \\uXXXX in JSON."""
        return 6 * (self.output_chars + self.message_chars) + 4096
