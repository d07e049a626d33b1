"""`kite check` of a 50-line program through the warm server, against `dotnet build` of its C# (both warm), and
against a cold `kite check --no-server`. Target (issue 14): warm server <= 0.1x dotnet build.

    .venv/bin/python benchmarks/warm_server.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from baseline import dotnet_build_seconds
from check import PROGRAM

ROUNDS = 5


def kite_check_seconds(path: Path, *options: str) -> float:
    env = {name: value for name, value in os.environ.items() if name != "KITE_NO_SERVER"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kite.cli", "check", *options, str(path)], check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    from kite.dotnet.stdlib import stdlib_source
    from kite.session import Session
    from kite.source import decode
    from kite.units import Unit

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "orders.kite"
        path.write_text(PROGRAM.format(n=0))
        kite_check_seconds(path)  # starts the server and warms it
        warm = statistics.median(kite_check_seconds(path) for _ in range(ROUNDS))
        cold = statistics.median(kite_check_seconds(path, "--no-server") for _ in range(2))
        with Session() as session:
            [(_, csharp)] = session.analyze(Unit(decode(str(path), path.read_bytes()))).generated.sources
        files = {"Orders.kite.cs": csharp, "KiteStd.cs": stdlib_source()}
        dotnet_build_seconds(files)  # the SDK's build servers warm
        build = statistics.median(dotnet_build_seconds(files) for _ in range(3))
    print(f"{PROGRAM.count(chr(10))}-line program, medians:")
    print(f"  kite check through the warm server: {warm:6.2f} s")
    print(f"  kite check --no-server (cold):      {cold:6.2f} s")
    print(f"  dotnet build of its C# (warm):      {build:6.2f} s")
    print(f"  warm server / dotnet build:         {warm / build:6.2f}x   (target <= 0.1x)")


if __name__ == "__main__":
    main()
