"""Progress for a person: lines on stderr when it is a terminal, never on stdout and never into a format. In the
warm server a request's client is the terminal: while it runs, `forwarding` sends the lines there instead."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator

_forward: list[Callable[[str], None]] = []  # the warm server's client, while its request runs
_lock = threading.Lock()


def say(line: str) -> None:
    with _lock:
        if _forward:
            _forward[-1](line)
            return
    if sys.stderr.isatty():
        print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def forwarding(send: Callable[[str], None]) -> Iterator[None]:
    with _lock:
        _forward.append(send)
    try:
        yield
    finally:
        with _lock:
            _forward.remove(send)
