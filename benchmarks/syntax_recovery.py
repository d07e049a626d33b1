"""Syntax-error recovery cost: a file of about SIZE bytes, clean and with 21 syntax errors at its end.

    .venv/bin/python benchmarks/syntax_recovery.py [SIZE]
"""

from __future__ import annotations

import sys
import time

from kite.pipeline import kite_layer
from kite.source import decode

FUNCTION = "fn f_{i}(x: int) -> int\n    let y = x * 2 + {i}\n    if y > 10\n        return y\n    return x\n\n"
BROKEN = "fn bad_{k}()\n    let x = 1 +\n\n"


def program(size: int, errors: int) -> str:
    parts, i = ["module Big\n\n"], 0
    while sum(map(len, parts)) < size:
        parts.append(FUNCTION.format(i=i))
        i += 1
    return "".join(parts) + "".join(BROKEN.format(k=k) for k in range(errors))


def main() -> None:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    for errors in (0, 21):
        text = program(size, errors)
        start = time.perf_counter()
        _, found = kite_layer(decode("big.kite", text.encode()))
        print(f"{len(text):>9,} bytes, {errors:>2} syntax errors: {time.perf_counter() - start:6.2f} s, {len(found)} diagnostics")


if __name__ == "__main__":
    main()
