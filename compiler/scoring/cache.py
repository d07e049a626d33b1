"""`kite score --cache DIR`: verdicts kept across runs, keyed by the toolchain and the request."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from kite.atomic import write_atomically
from kite.own_files import own_files


def toolchain_fingerprint() -> str:
    """What a cached verdict depends on besides its request: every file of kite's, and the .NET runtimes installed."""
    import kite
    from kite.dotnet.runtime import installed_runtimes

    digest = hashlib.sha256(kite.__version__.encode() + b"\0" + installed_runtimes().encode())
    for name, path in own_files():
        digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class VerdictCache:
    """--cache DIR: one file per verdict, named by the hash of the toolchain and the request."""

    def __init__(self, folder: str | None):
        self.folder = Path(folder) if folder else None
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)

    def get(self, key: str) -> dict | None:
        if self.folder is None:
            return None
        try:
            return json.loads((self.folder / f"{key}.json").read_text())
        except (OSError, ValueError):
            return None

    def put(self, key: str, verdict: dict) -> None:
        if self.folder is None:
            return
        write_atomically(self.folder / f"{key}.json", json.dumps(verdict).encode())  # two runs may share the folder


def ran_out_of_time(verdict: dict) -> bool:
    """A verdict that met a time limit (a test's timeout, the budget, the compile timeout) depends on the machine's load
    as much as on the answer: one busy moment must not fail a right answer in every later run, so it is not cached."""
    tests = (verdict.get("tests") or []) + (verdict.get("own_tests") or [])
    return any(test["status"] == "timeout" for test in tests) or any(d["id"] == "KT010" for d in verdict.get("diagnostics", []))
