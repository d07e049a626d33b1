"""The results file of `kite score`: locked for one run, resumed after a kill (`--resume`), read back for the summary."""

from __future__ import annotations

import fcntl
import json
from pathlib import Path

from kite.atomic import refuse_unless_writable
from kite.errors import UnusableInput
from kite.scoring.grading import SCHEMA_VERSION


def resumed_lines(out: Path) -> dict[int, str | None]:
    """The run lines already in --out, each with the digest of the run line it graded (None in results written before
    digests were); a line cut short by a kill is dropped, so it is graded again."""
    if not out.exists():
        return {}
    data = out.read_bytes()
    kept_end = 0
    done: dict[int, str | None] = {}
    for raw in data.splitlines(keepends=True):
        if not raw.endswith(b"\n"):
            break
        try:
            result = json.loads(raw)
            number = result["line"]
        except (ValueError, KeyError, TypeError):
            raise UnusableInput(f"{out}: line {len(done) + 1} is not a kite score result: cannot resume into this file") from None
        if result.get("schema") != SCHEMA_VERSION:
            raise UnusableInput(f"{out}: results of schema {result.get('schema')}, this kite writes {SCHEMA_VERSION}: cannot resume")
        done[number] = result.get("input_sha256")
        kept_end += len(raw)
    if kept_end < len(data):
        with open(out, "r+b") as results:
            results.truncate(kept_end)
    return done


def locked_results(out: Path):
    """--out, opened to append and locked for this run: two runs writing one file (a job started twice) would
    interleave their lines and the summary would count answers twice."""
    refuse_unless_writable(out)  # a FIFO would hold open() below until a reader came
    try:
        results = open(out, "a", encoding="utf-8")  # noqa: SIM115 -- held open for the whole run; the caller closes it
    except OSError as error:
        raise UnusableInput(f"{out}: cannot write the results ({error.strerror})") from None
    try:
        fcntl.flock(results, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        results.close()
        raise UnusableInput(f"{out}: another kite score is writing these results: wait for it, or give another --out") from None
    return results


def read_results(out: Path) -> list[dict]:
    with open(out, encoding="utf-8") as results:
        return [json.loads(line) for line in results if line.strip()]
