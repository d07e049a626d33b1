"""samples/runs: a realistic run (204 lines, 10 tasks) scored, against a reviewed snapshot of every answer's verdicts
and of the summary table. KITE_UPDATE_SNAPSHOTS=1 rewrites both: review the diff."""

import json

from conftest import REPO, assert_snapshot, run_kite

RUNS = REPO / "samples" / "runs"
HERE = REPO / "tests" / "scoring"


def verdict_line(result: dict) -> str:
    """One answer in one reviewable line: what it was read as, what each layer found, its rules, claims and slop."""
    if not result["graded"]:
        return f"{result['line']} {result['id']}: ungradable {result['problem']['kind']}"
    flags = " ".join(name for name in ("has_code", "compiles", "clean", "passes", "leaked") if result[name])
    reads = ",".join(b.get("read_as") or f"{b['language'] or 'untagged'}:{'kite' if b['is_kite'] else 'other'}" for b in result["blocks"])
    found = ",".join(f"{d['id']}@{d['span']['block']}:{d['span']['block_line']}" if d.get("span") else f"{d['id']}@{d['file']}"
                     for d in result["diagnostics"])
    rules = ",".join(f"{rule_id}={verdict}" for rule_id, verdict in result["rules"].items() if verdict != "n/a")
    tests = "".join(t["status"][0] for t in result["tests"] or [])
    claims = ",".join(f"{c['kind']}{'!' if c['false'] else ''}" for c in result["claims"])
    slop = ",".join(hit["category"] for hit in result["slop"])
    return (f"{result['line']} {result['id']}: [{flags}] read={reads} diag={found} rules={rules} tests={tests} "
            f"claims={claims} slop={slop} reasons={'; '.join(result['reasons'])}")


def test_the_sample_run_scores_as_reviewed(tmp_path):
    out = tmp_path / "results.jsonl"
    result = run_kite(["score", str(RUNS / "run.jsonl"), "--field", "response.text", "--tasks", str(RUNS / "tasks"),
                       "--id-field", "id", "--out", str(out)], cwd=tmp_path)
    assert result.exit_code == 0, result.output
    results = sorted((json.loads(line) for line in out.read_text().splitlines()), key=lambda r: r["line"])
    assert [r["line"] for r in results] == list(range(1, 205))
    assert_snapshot("\n".join(map(verdict_line, results)) + "\n", HERE / "samples_run.expected")
    assert_snapshot(result.output, HERE / "samples_run.summary.expected")
