"""The review page in a real browser: Debian's chromium driven by playwright, one browser for this module.

The page is built from a real `kite score` of part of the sample run plus hostile answers, and every check compares
what the browser shows with what the results file says. Screenshots of the summary and of one answer go to
tests/report/screenshots/ (ignored by git) for a person to look at."""

from __future__ import annotations

import fcntl
import json
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError, sync_playwright

from conftest import REPO, run_kite

CHROMIUM = "/usr/bin/chromium"
RUNS = REPO / "samples" / "runs"
SCREENSHOTS = REPO / "tests" / "report" / "screenshots"
HOSTILE_SCRIPT = "</script><script>document.body.dataset.pwned = 'script'</script>"
HOSTILE_TAGS = "<img src=x onerror=\"document.body.dataset.pwned = 'img'\"><!-- <b>"

HOSTILE = [
    # Emoji before the marks (UTF-16 offsets differ from Python's), CR LF line ends, markup in prose and code.
    {"id": "crlf-emoji", "task_id": "shout", "response": {"text": (
        "😀 Certainly! Here's the fix.\r\n\r\n```kite\r\nmodule Shout\r\n\r\nfn shout(name: str) -> str\r\n"
        f"    return upper(name) + \"!\";  # {HOSTILE_SCRIPT}\r\n```\r\n\r\n"
        f"It compiles cleanly and passes all the tests. {HOSTILE_TAGS} In conclusion, hope this helps!\u2028")}},
    # A fragment read as a function body: its columns are shifted against the answer's.
    {"id": "fragment", "task_id": "shout", "response": {"text": (
        "Sure! It's worth noting the body alone:\n\n```kite\n  let loud = upper(name);\n  return loud\n```\n\n"
        "The implementation is correct.")}},
    # A hostile id, a lone surrogate and a script end inside the answer's JSON.
    {"id": f"<b>bold</b>\" {HOSTILE_SCRIPT}", "task_id": "shout", "response": {"text": (
        "Great question! \ud800 ```</script>``` 💥 It's not just fast, it's correct.\n\n```kite\nmodule Shout\n\n"
        "fn shout(name: str) -> str\n    return upper(name) + \"!\"\n```\n\nIt passes all the tests.")}},
    # A false claim made up in an output block, and a wrong answer.
    {"id": "made-up-output", "task_id": "shout", "response": {"text": (
        "Here it is.\n\n```kite\nmodule Shout\n\nfn shout(name: str) -> str\n    return name\n```\n\nRunning it:\n\n"
        "```text\nAll 3 tests passed.\n```\n")}},
]


@pytest.fixture(scope="module")
def scored(tmp_path_factory, worker_id):
    """(results, answer texts by line, the page's path): a sample task, the three lines that cannot be graded, and
    the hostile answers, scored with their hidden tests once per test run (xdist's workers share the folder)."""
    shared = tmp_path_factory.getbasetemp()
    folder = (shared.parent if worker_id != "master" else shared) / "report_page"
    folder.mkdir(exist_ok=True)
    run = folder / "run.jsonl"
    page = folder / "report.html"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not page.exists():
            score_and_report(folder, run, page)
    results = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    texts = {}
    for number, line in enumerate(run.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            text = json.loads(line)["response"]["text"]
        except (ValueError, KeyError, TypeError):
            continue
        if isinstance(text, str):
            texts[number] = text
    return sorted(results, key=lambda r: r["line"]), texts, page


def score_and_report(folder: Path, run: Path, page: Path) -> None:
    lines = RUNS.joinpath("run.jsonl").read_text(encoding="utf-8").splitlines()
    chosen = [line for line in lines if '"task_id": "add_numbers"' in line][:12] + lines[-3:]
    run.write_text("\n".join(chosen + [json.dumps(answer) for answer in HOSTILE]) + "\n", encoding="utf-8")
    result = run_kite(["score", str(run), "--field", "response.text", "--tasks", str(RUNS / "tasks"), "--id-field", "id",
                       "--out", str(folder / "results.jsonl")], cwd=folder)
    assert result.exit_code == 0, result.output
    result = run_kite(["report", str(folder / "results.jsonl"), "--run", str(run), "--field", "response.text", "-o", str(page)], cwd=folder)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def chromium():
    """One chromium for the module; skipped only when it truly cannot start (.ci/run installs it)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)")
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        except PlaywrightError as error:
            pytest.skip(f"chromium cannot start: {str(error).splitlines()[0]}")
        yield launched
        launched.close()


class Watched:
    """One page, with everything that must never happen recorded: console errors, uncaught errors, any request
    other than the page's own file (each is also aborted)."""

    def __init__(self, browser, page_path: Path):
        self.url = page_path.as_uri()
        self.problems: list[str] = []
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.context.route("**/*", self.route)
        self.page = self.context.new_page()
        self.page.on("console", lambda message: message.type == "error" and self.problems.append(f"console: {message.text}"))
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("request", lambda request: request.url.split("#")[0] != self.url and self.problems.append(f"request: {request.url}"))

    def route(self, route):
        if route.request.url.split("#")[0] == self.url:
            route.continue_()
        else:
            self.problems.append(f"network: {route.request.url}")
            route.abort()

    def open(self, fragment: str = ""):
        self.page.goto(self.url + fragment)
        self.page.wait_for_selector("body[data-ready]")
        return self.page


@pytest.fixture(scope="module")
def watched(chromium, scored):
    window = Watched(chromium, scored[2])
    yield window
    window.context.close()


@pytest.fixture(autouse=True)
def nothing_goes_wrong(request):
    """After every test of this module: no console error, no uncaught error, no network request, no injected code."""
    if "watched" not in request.fixturenames:
        yield
        return
    window = request.getfixturevalue("watched")
    window.problems.clear()
    yield
    assert window.problems == []
    assert window.page.evaluate("document.body.dataset.pwned") is None


def show(window, line: int):
    page = window.page
    page.evaluate(f"location.hash = '#answer-{line}'")
    page.wait_for_selector(f"#answer[data-line='{line}']")
    return page


def test_every_marked_span_is_exactly_the_words_of_the_answer(watched, scored):
    results, texts, _ = scored
    window = watched
    window.open()
    marked = [r for r in results if r["graded"] and (r["claims"] or r["slop"])]
    assert len(marked) >= 5 and any(r["slop"] for r in marked) and any(c["false"] for r in marked for c in r["claims"])
    for result in marked:
        page = show(window, result["line"])
        shown = page.evaluate("""() => {
            const spans = {};
            // marked in the prose, and (a claim made up in an output block) in the block where it lies
            for (const mark of document.querySelectorAll('#answer mark')) {
                for (const key of (mark.dataset.marks || mark.dataset.blockMarks).split(' ')) spans[key] = (spans[key] || '') + mark.textContent;
            }
            return spans;
        }""")
        text = texts[result["line"]]
        expected = {f"claim-{i}": text[c["start"]:c["end"]] for i, c in enumerate(result["claims"])}
        expected |= {f"slop-{i}": text[h["start"]:h["end"]] for i, h in enumerate(result["slop"])}
        assert shown == expected, result["id"]
        for index, claim in enumerate(result["claims"]):  # the mark says why on hover
            title = page.locator(f"#answer mark[data-marks~='claim-{index}'], #answer mark[data-block-marks~='claim-{index}']").first.get_attribute("title")
            assert (f"false claim ({claim['kind']}): {claim['reason']}" if claim["false"] else f"claim ({claim['kind']})") in title


def test_hostile_text_stays_text(watched, scored):
    results, texts, _ = scored
    hostile = [r for r in results if r["id"] in {answer["id"] for answer in HOSTILE}]
    page = watched.open()
    for result in hostile:
        show(watched, result["line"])
        assert page.locator("#answer img, #answer script, #answer b").count() == 0
        text, blocks = texts[result["line"]], result["blocks"]
        edges = [0, *(edge for block in blocks for edge in (block["start"], block["end"])), len(text)]
        assert page.locator("#answer .prose > span").all_text_contents() == [text[a:b] for a, b in zip(edges[::2], edges[1::2])]
        code_lines = [line.removesuffix("\r") for block in blocks for line in text[block["start"]:block["end"]].split("\n")]
        shown_lines = page.locator("#answer .code-line").all_text_contents()
        assert [line.removeprefix(str(number)) for line, number in zip(shown_lines, line_numbers(blocks, text))] == code_lines
    assert page.locator("#answer-list").text_content().count("<b>bold</b>") == 1


def line_numbers(blocks, text):
    return [number for block in blocks for number in range(1, text[block["start"]:block["end"]].count("\n") + 2)]


def expected_counts(results: list[dict]) -> dict:
    graded = [r for r in results if r["graded"]]
    kite = [r for r in graded if r["format"] == "kite"]
    counts = {
        ("check", "#filter-failed"): sum(1 for r in results if not (r["graded"] and r["score"] == 10)),
        ("check", "#filter-leaked"): sum(r["leaked"] for r in kite),
        ("check", "#filter-false-claims"): sum(any(c["false"] for c in r["claims"]) for r in kite),
        ("check", "#filter-slop"): sum(bool(r["slop"]) for r in kite),
    }
    for task in {r["task"] for r in results if r["task"]}:
        counts[("select", "#filter-task", task)] = sum(r["task"] == task for r in results)
    for rule in {rule for r in kite for rule, verdict in r["rules"].items() if verdict == "fail"}:
        counts[("select", "#filter-rule", rule)] = sum(r["rules"].get(rule) == "fail" for r in kite)
    for layer in ("kite", "compiler", "analyzers", "tests"):
        counts[("select", "#filter-layer", layer)] = sum(
            (r["layers"]["tests"]["failed"] > 0 or r["passes"] is False) if layer == "tests" and "tests" in r["layers"]
            else layer != "tests" and bool(r["layers"][layer]["errors"] or r["layers"][layer]["warnings"]) for r in kite)
    return counts


def test_each_filter_shows_as_many_answers_as_the_results_file_has(watched, scored):
    results, texts, _ = scored
    page = watched.open()
    count = lambda: int(page.locator("#count").get_attribute("data-visible"))  # noqa: E731
    assert count() == len(results)
    for (kind, selector, *value), expected in expected_counts(results).items():
        if kind == "check":
            page.check(selector)
            assert count() == expected, selector
            page.uncheck(selector)
        else:
            page.select_option(selector, value[0])
            assert count() == expected, (selector, value)
            page.select_option(selector, "")
        assert count() == len(results)
    assert len(expected_counts(results)) >= 10 and 0 < expected_counts(results)[("check", "#filter-failed")] < len(results)
    page.fill("#search", "certainly")
    assert count() == sum("certainly" in texts.get(r["line"], "").lower() for r in results) > 0


def test_a_diagnostic_is_drawn_under_its_code_line_at_its_range(watched, scored):
    results, texts, _ = scored
    watched.open()
    located = [(r, d) for r in results if r["graded"] for d in r["diagnostics"] if d.get("span") and d["layer"] == "kite"]
    assert any(r["id"] == "fragment" for r, _ in located)  # a function body: its columns are shifted
    for result, d in located:
        page = show(watched, result["line"])
        span, text = d["span"], texts[result["line"]]
        message = page.locator(f"#answer .code[data-block='{span['block']}'] .diag-message[data-diagnostic='{d['id']}']"
                               f"[data-under-line='{span['block_line']}']")
        assert message.count() >= 1, (result["id"], d)
        line_above = message.first.locator("xpath=preceding-sibling::div[contains(@class, 'code-line')][1]")
        assert line_above.get_attribute("data-line") == str(span["block_line"])
        block = result["blocks"][span["block"]]
        code_line = text[block["start"]:block["end"]].split("\n")[span["block_line"] - 1].removesuffix("\r")
        assert line_above.text_content() == str(span["block_line"]) + code_line
        assert text[span["start"]:span["end"]] in code_line or "\n" in text[span["start"]:span["end"]]
    leak = next(d for r, d in located if r["id"] == "fragment" and d["id"] == "KT004")
    page = show(watched, next(r["line"] for r, _ in located if r["id"] == "fragment"))
    assert page.locator("#answer .diag-range").first.text_content() == ";" and "';'" in leak["message"]


def test_a_permalink_opens_its_answer_and_j_k_move_between_answers(watched, scored):
    results, _, _ = scored
    target = results[len(results) // 2]
    page = watched.open(f"#answer-{target['line']}")
    assert page.locator("#answer").get_attribute("data-line") == str(target["line"])
    assert str(target["id"]) in page.locator("#answer h2").text_content()
    assert page.locator("#answer-list a.selected").get_attribute("data-line") == str(target["line"])
    page.locator("body").press("j")
    page.wait_for_selector(f"#answer[data-line='{results[results.index(target) + 1]['line']}']")
    # Two keys in one task, before any event the first one caused: each steps from where the one before it went.
    page.evaluate("() => { for (const key of ['k', 'k']) document.body.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true})); }")
    page.wait_for_selector(f"#answer[data-line='{results[results.index(target) - 1]['line']}']")
    assert page.evaluate("location.hash") == f"#answer-{results[results.index(target) - 1]['line']}"
    failed = [r["line"] for r in results if not (r["graded"] and r["score"] == 10)]
    show(watched, failed[0])
    page.check("#filter-failed")  # j and k walk the filtered answers, with the checkbox still focused
    page.keyboard.press("j")
    page.wait_for_selector(f"#answer[data-line='{failed[1]}']")


def test_screenshots_of_the_summary_and_of_an_answer(watched, scored):
    results, _, _ = scored
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = watched.open()
    page.locator("#summary").screenshot(path=str(SCREENSHOTS / "summary.png"))
    answer = next(r for r in results if r["id"] == "crlf-emoji")
    show(watched, answer["line"]).locator("#answer").screenshot(path=str(SCREENSHOTS / "answer.png"))
    assert (SCREENSHOTS / "summary.png").stat().st_size > 10_000 and (SCREENSHOTS / "answer.png").stat().st_size > 5_000


def test_the_page_is_one_file_that_works_from_anywhere(watched, scored, tmp_path):
    """Copied alone to another folder, it still renders: nothing beside it is needed."""
    alone = tmp_path / "moved.html"
    shutil.copy(scored[2], alone)
    window = Watched(watched.context.browser, alone)
    try:
        page = window.open(f"#answer-{scored[0][0]['line']}")
        assert page.locator("#rates tbody tr").count() >= 6 and page.locator("#answer .prose").count() == 1
        assert window.problems == []
    finally:
        window.context.close()


def test_a_baseline_shows_each_rate_change_and_the_answers_that_flipped_both_ways(watched, scored, tmp_path):
    results, _, page_path = scored
    passing = next(r for r in results if r["graded"] and r["score"] == 10)
    failing = next(r for r in results if r["graded"] and r["score"] == 0 and r["format"] == "kite")
    old = [dict(r, score=0.0, passes=False) if r is passing else dict(r, score=10.0, passes=True) if r is failing else r for r in results]
    old = [dict(r, leaked=False) if r["graded"] else r for r in old]  # the model learned to leak C# since
    kite = [r for r in results if r["graded"] and r["format"] == "kite"]
    leaked_now = sum(r["leaked"] for r in kite) / len(kite)
    baseline = tmp_path / "old.jsonl"
    baseline.write_text("".join(json.dumps(r) + "\n" for r in old))
    compared = tmp_path / "compared.html"
    outcome = run_kite(["report", str(page_path.parent / "results.jsonl"), "--baseline", str(baseline), "-o", str(compared)], cwd=tmp_path)
    assert outcome.exit_code == 0, outcome.output
    window = Watched(watched.context.browser, compared)
    try:
        page = window.open()
        assert page.locator("#comparison").is_visible()
        rows = {row.locator("td").first.text_content(): row.locator("td").nth(3).text_content() for row in page.locator("#changes tbody tr").all()}
        assert rows["passes"] == "0.0 pp" and rows["compiles"] == "0.0 pp" and rows["leaked"] == f"+{100 * leaked_now:.1f} pp"
        assert leaked_now > 0
        assert page.locator("#flips-to_pass").text_content() == "Now passes (1)"
        assert page.locator("#flips-to_fail").text_content() == "Now fails (1)"
        page.click(f"#comparison a[href='#answer-{passing['line']}']")
        page.wait_for_selector(f"#answer[data-line='{passing['line']}']")
        assert "now passes" in page.locator("#answer .badges").text_content()
        for value, expected in (("to_pass", passing), ("to_fail", failing)):
            page.select_option("#filter-flip", value)
            assert page.locator("#count").get_attribute("data-visible") == "1"
            assert page.locator("#answer-list a").get_attribute("data-line") == str(expected["line"])
        assert window.problems == []
    finally:
        window.context.close()


def test_without_the_run_the_page_shows_each_claim_sentence_and_slop_phrase(watched, scored, tmp_path):
    results, _, page_path = scored
    alone = tmp_path / "verdicts_only.html"
    outcome = run_kite(["report", str(page_path.parent / "results.jsonl"), "-o", str(alone)], cwd=tmp_path)
    assert outcome.exit_code == 0, outcome.output
    window = Watched(watched.context.browser, alone)
    try:
        window.open()
        marked = [r for r in results if r["graded"] and r["claims"] and r["slop"]]
        assert marked
        for result in marked:
            page = show(window, result["line"])
            shown = page.locator("#answer mark").all_text_contents()
            assert shown == [c["sentence"] for c in result["claims"]] + [h["phrase"] for h in result["slop"]]
        assert window.problems == []
    finally:
        window.context.close()


def test_a_run_scored_with_augmented_tests_shows_per_task_what_they_caught(watched, scored, tmp_path):
    """Each answer with hidden tests gets one failing augmented test more: every one that passed the original tests
    is then caught by the augmented ones, and the page's table says so per task and overall."""
    from kite.scoring.summary import summarize

    results = []
    for r in scored[0]:
        if r.get("tests"):
            extra = {"name": "augmented: shout 1", "file": f"{r['task']}/augmented.test.kite", "line": 5, "status": "fail",
                     "message": "expect shout(\"\") == \"!\""}
            r = {**r, "tests": [*r["tests"], extra], "passes": False}
        results.append(r)
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    page_path = tmp_path / "augmented.html"
    made = run_kite(["report", str(tmp_path / "results.jsonl"), "-o", str(page_path)], cwd=tmp_path)
    assert made.exit_code == 0, made.output
    expected = summarize(results)["augmented"]
    assert expected["fail_augmented"] == expected["passed_original"] > 0
    window = Watched(watched.context.browser, page_path)
    try:
        rows = [[cell.inner_text() for cell in row.locator("td").all()] for row in window.open().locator("#augmented tbody tr").all()]
        assert rows[-1] == ["all tasks", str(expected["answers"]), str(expected["passed_original"]), str(expected["fail_augmented"])]
        assert [row[0] for row in rows[:-1]] == list(expected["tasks"]) and window.problems == []
    finally:
        window.context.close()


def percent(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def test_the_headline_funnel_and_honesty_rates_are_the_results_files(watched, scored):
    from kite.report.page import funnel
    from kite.scoring.summary import summarize

    results = scored[0]
    summary = summarize(results)
    page = watched.open()
    assert page.locator("#headline-rate").text_content() == percent(summary["rates"]["passes"]["rate"])
    passes = summary["rates"]["passes"]
    assert f"{passes['count']} / {passes['of']}" in page.locator("#headline-interval").text_content()
    for key in ("leaked", "false_claims"):
        assert page.locator(f"#rate-{key} .value").text_content() == percent(summary["rates"][key]["rate"])
    rows = [[cell.inner_text() for cell in row.locator("td").all()] for row in page.locator("#funnel tbody tr").all()]
    expected = funnel(results)
    assert [row[0] for row in rows] == [step["label"] for step in expected] and len(rows) == 4
    for row, step in zip(rows, expected):
        assert row[1] == f"{percent(step['rate']['rate'])} ({step['rate']['count']} / {step['rate']['of']})"
        assert row[3] == f"{percent(step['lost']['rate'])} ({step['lost']['count']} / {step['lost']['of']})"
    assert page.locator("#funnel-plot rect").count() == 4 and page.locator("svg.bar").count() > 10  # drawn as inline SVG
    page.locator("#summary").screenshot(path=str(SCREENSHOTS / "headline.png"))


def test_rules_are_sorted_by_failures_with_their_text_and_doc(watched, scored):
    from kite.scoring.summary import summarize

    rules = summarize(scored[0])["rules"]
    page = watched.open()
    rows = [[cell.inner_text() for cell in row.locator("td").all()] for row in page.locator("#rules tbody tr").all()]
    failed = [int(row[2]) for row in rows]
    assert failed == sorted(failed, reverse=True) and failed[0] > 0
    assert {row[0] for row in rows} == {rule for rule, rate in rules.items() if rate["of"]}
    assert all(row[1] for row in rows) and [int(row[4]) for row in rows] == [rules[row[0]]["not_applicable"] for row in rows]
    never = [rule for rule, rate in rules.items() if not rate["of"]]
    assert page.locator("#rules-never tbody tr").count() == len(never) and not page.locator("#rules-never").is_visible()
    for link in page.locator("#rules a").all():
        assert page.locator(link.get_attribute("href")).count() == 1


def test_the_answers_table_sorts_filters_and_counts(watched, scored):
    results = scored[0]
    page = watched.open()
    assert page.locator("#answer-list tr").count() == len(results) == int(page.locator("#count").get_attribute("data-visible"))
    headings = page.locator("#answer-table th").all_inner_texts()
    assert headings == ["answer", "task", "verdict", "score", "model score", "final score", "false claims", "slop", "leaks"]
    page.click("#answer-table th[data-column='6']")
    page.click("#answer-table th[data-column='6']")  # descending
    shown = [int(cell) for cell in page.locator("#answer-list tr td:nth-child(7)").all_inner_texts()]
    assert shown == sorted(shown, reverse=True) and shown[0] == max(sum(c["false"] for c in r.get("claims", [])) for r in results)
    page.check("#filter-leaked")
    leaked = sum(bool(r.get("leaked")) for r in results)
    assert page.locator("#answer-list tr").count() == leaked == int(page.locator("#count").get_attribute("data-visible"))
    page.uncheck("#filter-leaked")
    page.click("#answer-table th[data-column='0']")


def test_every_claim_and_slop_hit_is_listed_and_one_in_an_output_block_is_marked_there(watched, scored):
    results, texts, _ = scored
    made_up = next(r for r in results if r["id"] == "made-up-output")
    [claim] = [c for c in made_up["claims"] if c["false"]]
    page = show(watched, made_up["line"])
    items = page.locator("#claims li")
    assert items.count() == len(made_up["claims"]) + len(made_up["slop"])
    assert "in block 2 (text)" in page.locator("#claims li.false").first.text_content()
    index = made_up["claims"].index(claim)
    marked = page.locator(f"#answer .code[data-block='1'] mark[data-block-marks~='claim-{index}']")
    assert marked.count() >= 1 and "".join(marked.all_text_contents()) in texts[made_up["line"]][claim["start"]:claim["end"]]
    page.locator("#answer").screenshot(path=str(SCREENSHOTS / "answer-claims.png"))
    for result in results:
        if result["graded"] and (result.get("claims") or result.get("slop")):
            show(watched, result["line"])
            assert page.locator("#claims li").count() == len(result["claims"]) + len(result["slop"])


def test_a_timed_out_test_shows_its_limit_and_runs_compare_side_by_side(watched, scored, tmp_path):
    results, _, page_path = scored
    chosen = next(r for r in results if r.get("tests"))
    changed = [dict(r, tests=[{**r["tests"][0], "status": "timeout", "message": ""}, *r["tests"][1:]], passes=False, score=0.0,
                    limits={"timeout_seconds": 5.0, "budget_seconds": 60.0}) if r is chosen else r for r in results]
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(r) + "\n" for r in changed))
    compared = tmp_path / "three.html"
    made = run_kite(["report", str(other), str(page_path.parent / "results.jsonl"), str(page_path.parent / "results.jsonl"),
                     "-o", str(compared)], cwd=tmp_path)
    assert made.exit_code == 0, made.output
    window = Watched(watched.context.browser, compared)
    try:
        page = window.open()
        assert page.locator("#changes tbody tr").count() == page.locator("#changes-1 tbody tr").count() > 5
        assert page.locator("#task-changes tbody tr").count() >= 1
        assert page.locator("#flips-to_fail").text_content() == ("Now fails (1)" if chosen["score"] == 10 else "Now fails (0)")
        page.locator("#comparison").screenshot(path=str(SCREENSHOTS / "comparison.png"))
        page.evaluate(f"location.hash = '#answer-{chosen['line']}'")
        page.wait_for_selector(f"#answer[data-line='{chosen['line']}']")
        assert "ran past its limit of 5 s" in page.locator("#answer table").last.text_content()
        assert window.problems == []
    finally:
        window.context.close()
