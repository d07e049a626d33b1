"""A run summed up: rates with Wilson 95% intervals, each rule with its not-applicable answers left out, and pass@k.

Answers that could not be graded stay in every denominator where success is counted (compiles, clean, passes):
they count as not achieving it. Rates of something bad (leaked, false claims, slop) are over graded answers, since
nothing is known of an ungraded one; the ungraded are counted and listed either way."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from kite.scoring.tasks import is_augmented

Z95 = 1.959963984540054

# What each figure of the summary counts over: one definition per table, written beside it wherever it is shown.
# Answers in another format (json, python, regex, csharp) are never counted as failed Kite answers.
OF_KITE_LINES = "the Kite answers and the lines that could not be graded (they count as not achieving it)"
OF_GRADED_KITE = "the graded Kite answers (nothing is known of an ungraded one)"
DENOMINATORS = {
    "achieved": OF_KITE_LINES,  # has_code, compiles, clean, passes
    "found": OF_GRADED_KITE,  # leaked, false_claims, slop
    "rules": "the graded Kite answers each rule applies to (n/a left out and counted)",
    "formats": "the graded answers in that format",
    "tasks": "per task: its Kite answers and its lines that could not be graded",
    "pass_at_k": "per task over its Kite answers and its lines that could not be graded, averaged over tasks",
    "mean_score": "every line of the run, an ungraded line scoring 0; final_score where there is one, else score",
}
ACHIEVED = ("has_code", "compiles", "clean", "passes")
FOUND = ("leaked", "false_claims", "slop")


def wilson(successes: int, total: int) -> dict:
    """The rate and its Wilson score interval at 95%: honest at 0, at 1 and for small samples."""
    if total == 0:
        return {"count": 0, "of": 0, "rate": None, "low": None, "high": None}
    p = successes / total
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = Z95 * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    return {"count": successes, "of": total, "rate": round(p, 6), "low": round(max(0.0, centre - half), 6),
            "high": round(min(1.0, centre + half), 6)}


def pass_at_k(samples: int, correct: int, k: int) -> float:
    """The unbiased estimator (Chen et al. 2021): 1 - C(n-c, k) / C(n, k), the chance that k of the n samples,
    drawn without replacement, hold at least one that passes."""
    if samples - correct < k:
        return 1.0
    return 1.0 - math.comb(samples - correct, k) / math.comb(samples, k)


def summarize(results: list[dict]) -> dict:
    results = sorted(results, key=lambda result: result["line"])
    graded = [r for r in results if r["graded"]]
    kite = [r for r in graded if r["format"] == "kite"]
    kite_total = len(kite) + sum(1 for r in results if not r["graded"])  # an ungraded line was meant to be graded
    tested = [r for r in kite if r["passes"] is not None]
    summary: dict[str, Any] = {
        "answers": len(results),
        "graded": len(graded),
        "ungradable": {"count": len(results) - len(graded),
                       "answers": [{"line": r["line"], "id": r["id"], **r["problem"]} for r in results if not r["graded"]]},
        "rates": {
            "has_code": wilson(sum(r["has_code"] for r in kite), kite_total),
            "compiles": wilson(sum(r["compiles"] for r in kite), kite_total),
            "clean": wilson(sum(r["clean"] for r in kite), kite_total),
            "leaked": wilson(sum(r["leaked"] for r in kite), len(kite)),
            "false_claims": wilson(sum(any(c["false"] for c in r["claims"]) for r in kite), len(kite)),
            "slop": wilson(sum(bool(r["slop"]) for r in kite), len(kite)),
        },
        "rules": rule_rates(kite),
        "denominators": DENOMINATORS,
    }
    if tested or any(not r["graded"] and r["task"] is not None for r in results):
        ungraded_with_task = [r for r in results if not r["graded"] and r["task"] is not None]
        # Hidden tests ran: every ungraded line was meant to meet them, the ones whose task could not be read too
        # (broken JSON, not UTF-8, no task id), or broken lines would raise the pass rate above the compile rate.
        summary["rates"]["passes"] = wilson(sum(r["passes"] for r in tested), len(tested) + len(results) - len(graded))
        summary["pass_at_k"] = pass_at_k_table(tested + ungraded_with_task)
        caught = augmented_catches(tested)
        if caught is not None:
            summary["augmented"] = caught
    others = [r for r in graded if r["format"] != "kite"]
    if others:
        by_format = defaultdict(list)
        for r in others:
            by_format[r["format"]].append(r["valid"])
        summary["formats"] = {fmt: wilson(sum(valid), len(valid)) for fmt, valid in sorted(by_format.items())}
    scores = [r["final_score"] if r["final_score"] is not None else r["score"] for r in graded]
    summary["mean_score"] = round(sum(scores) / len(results), 6) if results else None  # ungraded lines score 0
    return summary


def rule_rates(kite: list[dict]) -> dict:
    """Per rule: the pass rate over the answers where it applied, and how many it did not apply to."""
    rates = {}
    rule_ids = sorted({rule_id for r in kite for rule_id in r["rules"]})
    for rule_id in rule_ids:
        verdicts = [r["rules"][rule_id] for r in kite]
        judged = [v for v in verdicts if v != "n/a"]
        rates[rule_id] = {**wilson(judged.count("pass"), len(judged)), "failed": judged.count("fail"),
                          "not_applicable": len(verdicts) - len(judged)}
    return rates


def pass_at_k_table(results: list[dict]) -> dict:
    """pass@k for k = 1 .. the smallest number of samples any task has, averaged over tasks."""
    per_task: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        per_task[r["task"]].append(bool(r.get("passes")))
    if not per_task:
        return {}
    smallest = min(len(samples) for samples in per_task.values())
    return {
        str(k): round(sum(pass_at_k(len(s), sum(s), k) for s in per_task.values()) / len(per_task), 6)
        for k in range(1, smallest + 1)
    }


def augmented_catches(tested: list[dict]) -> dict | None:
    """With augmented hidden tests (kite tasks augment), how many answers pass the original tests but fail the
    augmented ones: the wrong answers the original tests let through (EvalPlus's figure), per task and overall.
    None when no answer met an augmented test."""
    per_task: dict[str, dict] = {}
    for r in tested:
        tests = r.get("tests") or []
        augmented = [t for t in tests if is_augmented(t["file"])]
        if not augmented:
            continue
        original = [t for t in tests if not is_augmented(t["file"])]
        passed_original = r["compiles"] and bool(original) and all(t["status"] == "pass" for t in original)
        counts = per_task.setdefault(r["task"], {"answers": 0, "passed_original": 0, "fail_augmented": 0})
        counts["answers"] += 1
        counts["passed_original"] += passed_original
        counts["fail_augmented"] += passed_original and any(t["status"] != "pass" for t in augmented)
    if not per_task:
        return None
    overall = {name: sum(counts[name] for counts in per_task.values()) for name in ("answers", "passed_original", "fail_augmented")}
    return {**overall, "tasks": dict(sorted(per_task.items()))}
