"""`kite score --cache DIR`: verdicts kept across runs, keyed by the toolchain and the request."""

from __future__ import annotations

import hashlib
import json

from kite.own_files import own_files
from kite.signed_files import OwnFolder


def toolchain_fingerprint() -> str:
    """What a cached verdict depends on besides its request: every file of kite's, and the .NET runtimes installed."""
    import kite
    from kite.dotnet.runtime import installed_runtimes

    digest = hashlib.sha256(kite.__version__.encode() + b"\0" + installed_runtimes().encode())
    for name, path in own_files():
        digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class VerdictCache:
    """--cache DIR: one file per verdict, named by the hash of the toolchain and the request. Anyone can compute that
    hash, so an entry is believed only when this user wrote it (kite.signed_files: a folder only this user can write,
    an HMAC under the user's key) and it holds the verdict of its own key: a planted or edited entry (`passes: true`
    for a wrong answer, or JSON that is not a verdict) is ignored and graded again."""

    def __init__(self, folder: str | None):
        self.own = OwnFolder(folder) if folder else None

    def get(self, key: str) -> dict | None:
        if self.own is None:
            return None
        payload = self.own.read(self.own.folder / f"{key}.json")
        try:
            entry = json.loads(payload) if payload is not None else None
        except ValueError:
            return None
        if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("verdict"), dict):
            return None
        return entry["verdict"]

    def put(self, key: str, verdict: dict) -> None:
        if self.own is not None:  # atomic: two runs may share the folder
            self.own.write(self.own.folder / f"{key}.json", json.dumps({"key": key, "verdict": verdict}).encode())


def ran_out_of_time(verdict: dict) -> bool:
    """A verdict that met a time limit (a test's timeout, the budget, the compile timeout) depends on the machine's load
    as much as on the answer: one busy moment must not fail a right answer in every later run, so it is not cached."""
    tests = (verdict.get("tests") or []) + (verdict.get("own_tests") or [])
    return any(test["status"] == "timeout" for test in tests) or any(d["id"] == "KT010" for d in verdict.get("diagnostics", []))
