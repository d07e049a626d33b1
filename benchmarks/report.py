"""The review page at 5,000 answers: how long `kite report` takes to write it, and how soon chromium can use it.

    .venv/bin/python benchmarks/report.py [--answers 5000]

Scores samples/runs once (its 204 answers, with the hidden tests), repeats the results and their answers to the size
asked for, writes the page, then opens it in Debian's chromium (/usr/bin/chromium) through playwright and prints: the
page's size, the time to write it, the time from navigation until the page is ready (summary drawn, list and filters
working, the first answer shown), and the time one filter change and one `j` take. Printed, not asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUNS = REPO / "samples" / "runs"
KITE = [sys.executable, "-m", "kite.cli.main"]


def repeated(lines: list[str], results: list[dict], answers: int) -> tuple[list[str], list[dict]]:
    """The run and its results repeated until there are `answers` of them, each copy on its own lines and ids."""
    run, out = [], []
    for number in range(answers):
        original = results[number % len(results)]
        line = number + 1
        run.append(lines[original["line"] - 1])
        out.append({**original, "line": line, "id": f"{original['id']}#{number // len(results)}"})
    return run, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=5000)
    answers = parser.parse_args().answers
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        scored = folder / "scored.jsonl"
        subprocess.run([*KITE, "score", str(RUNS / "run.jsonl"), "--field", "response.text", "--tasks", str(RUNS / "tasks"),
                        "--id-field", "id", "--out", str(scored)], check=True, stdout=subprocess.DEVNULL)
        results = sorted((json.loads(line) for line in scored.read_text().splitlines()), key=lambda r: r["line"])
        run_lines, big = repeated(RUNS.joinpath("run.jsonl").read_text(encoding="utf-8").splitlines(), results, answers)
        (folder / "run.jsonl").write_text("\n".join(run_lines) + "\n", encoding="utf-8")
        (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in big))
        page = folder / "report.html"
        started = time.perf_counter()
        subprocess.run([*KITE, "report", str(folder / "results.jsonl"), "--run", str(folder / "run.jsonl"), "--field",
                        "response.text", "-o", str(page)], check=True, stdout=subprocess.DEVNULL)
        written = time.perf_counter() - started
        print(f"{answers} answers: page {page.stat().st_size / 1e6:.1f} MB, written in {written:.2f} s (kite report, process included)")
        measure_in_chromium(page, answers)


def measure_in_chromium(page_path: Path, answers: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for attempt in range(3):
            page.goto("about:blank")
            started = time.perf_counter()
            page.goto(page_path.as_uri() + "#answer-1")
            page.wait_for_selector("body[data-ready]")
            ready = time.perf_counter() - started
            loaded = page.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
            print(f"  load {attempt + 1}: ready {ready:.2f} s after navigation (script done at {loaded / 1000:.2f} s)")
        started = time.perf_counter()
        page.check("#filter-failed")
        page.locator("#count").text_content()
        print(f"  filter 'failed' over {answers} answers: {1000 * (time.perf_counter() - started):.0f} ms "
              f"({page.locator('#count').text_content()})")
        started = time.perf_counter()
        page.locator("body").press("j")
        page.wait_for_selector("#answer[data-line]:not([data-line='1'])")
        print(f"  j (next answer drawn): {1000 * (time.perf_counter() - started):.0f} ms")
        browser.close()


if __name__ == "__main__":
    main()
