"""Runs side by side (`kite report NEW OLD [MORE...]`, `--baseline OLD` being the two-run case): how each rate
and each task's pass rate moved, with a 95% interval for the change, and which answers' verdicts flipped, both ways."""

from __future__ import annotations

import math

from kite.report.results import verdict_passed


def difference(new: dict, old: dict) -> dict:
    """new - old with Newcombe's hybrid score interval (his method 10), built from the two Wilson intervals the
    summary already has: honest at 0 and 1 and for small samples, where the plain Wald interval is not."""
    if not new["of"] or not old["of"]:
        return {"change": None, "low": None, "high": None}
    p1, l1, u1 = new["count"] / new["of"], new["low"], new["high"]
    p2, l2, u2 = old["count"] / old["of"], old["low"], old["high"]
    change = p1 - p2
    low = change - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = change + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return {"change": round(change, 6), "low": round(max(-1.0, low), 6), "high": round(min(1.0, high), 6)}


def rate_changes(new: dict, old: dict) -> list[dict]:
    """Every rate and rule rate both summaries have, in the new summary's order."""
    rows = []
    for group, label in (("rates", ""), ("rules", "rule ")):
        for name, rate in new.get(group, {}).items():
            if name in old.get(group, {}):
                rows.append({"name": label + name, "new": rate, "old": old[group][name], **difference(rate, old[group][name])})
    return rows


def distinct_ids(results: list[dict]) -> bool:
    ids = [result["id"] for result in results]
    return all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in ids) and len(set(ids)) == len(ids)


def flips(new: list[dict], old: list[dict]) -> dict:
    """The answers of both runs whose verdict changed: `to_pass` (failed before, passes now) and `to_fail`. Answers
    are matched by id when every answer of both runs has its own id, else by their line in the run."""
    matched_by = "id" if distinct_ids(new) and distinct_ids(old) else "line"
    before = {result[matched_by]: result for result in old}
    flipped: dict[str, list] = {"to_pass": [], "to_fail": []}
    matched = 0
    for result in new:
        previous = before.get(result[matched_by])
        if previous is None:
            continue
        matched += 1
        now, then = verdict_passed(result), verdict_passed(previous)
        if now != then:
            flipped["to_pass" if now else "to_fail"].append({"line": result["line"], "old_line": previous["line"]})
    return {**flipped, "matched": matched, "matched_by": matched_by}


def task_changes(new_tasks: list[dict], old_tasks: list[dict]) -> list[dict]:
    """Per task both runs have: its pass rate in each (over its Kite answers and ungraded lines) and the change."""
    old = {row["task"]: row for row in old_tasks}
    return [{"task": row["task"], "new": row["passes"], "old": old[row["task"]]["passes"],
             **difference(row["passes"], old[row["task"]]["passes"])} for row in new_tasks if row["task"] in old]
