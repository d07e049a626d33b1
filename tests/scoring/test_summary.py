"""The arithmetic a paper quotes: Wilson intervals, unbiased pass@k, denominators that keep ungraded answers."""

import itertools
import math

from hypothesis import given, strategies as st

from kite.scoring.summary import pass_at_k, summarize, wilson


def test_wilson_matches_published_values():
    # Newcombe (1998), table I: 0/10 -> [0, 0.2775]; 1/10 -> [0.0179, 0.4042]; 81/263 -> [0.2553, 0.3662].
    assert (wilson(0, 10)["low"], round(wilson(0, 10)["high"], 4)) == (0.0, 0.2775)
    assert (round(wilson(1, 10)["low"], 4), round(wilson(1, 10)["high"], 4)) == (0.0179, 0.4042)
    assert (round(wilson(81, 263)["low"], 4), round(wilson(81, 263)["high"], 4)) == (0.2553, 0.3662)
    assert wilson(0, 0)["rate"] is None


@given(st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_is_the_chance_that_k_samples_drawn_hold_a_pass(case):
    samples, correct, k = case
    outcomes = [True] * correct + [False] * (samples - correct)
    draws = list(itertools.combinations(outcomes, k))
    assert math.isclose(pass_at_k(samples, correct, k), sum(any(draw) for draw in draws) / len(draws))


def result(line, task, passes, *, compiles=True, rules=None):
    return {"line": line, "id": None, "task": task, "graded": True, "format": "kite", "has_code": True, "compiles": compiles,
            "clean": compiles, "passes": passes, "leaked": False, "claims": [], "slop": [], "score": 10.0 if passes else 0.0,
            "final_score": None, "rules": rules or {"KT002": "n/a"}}


def ungraded(line, task):
    return {"line": line, "id": None, "task": task, "graded": False, "problem": {"kind": "broken line", "message": "not JSON"}}


def test_an_ungraded_answer_stays_in_the_denominator_and_is_listed():
    summary = summarize([result(1, "a", True), result(2, "a", True), ungraded(3, "a"), result(4, "b", False)])
    assert summary["rates"]["passes"]["count"] == 2 and summary["rates"]["passes"]["of"] == 4
    assert summary["rates"]["compiles"]["of"] == 4
    assert summary["ungradable"] == {"count": 1, "answers": [{"line": 3, "id": None, "kind": "broken line", "message": "not JSON"}]}


def test_a_line_whose_task_cannot_be_read_still_counts_against_passing():
    summary = summarize([result(1, "a", True), ungraded(2, None), ungraded(3, None), ungraded(4, None)])
    assert summary["rates"]["passes"]["of"] == summary["rates"]["compiles"]["of"] == 4
    assert summary["rates"]["passes"]["rate"] <= summary["rates"]["compiles"]["rate"]


def test_pass_at_k_goes_up_to_the_smallest_sample_count_and_averages_tasks():
    summary = summarize([result(1, "a", True), result(2, "a", False), result(3, "a", False),
                         result(4, "b", False), result(5, "b", False)])
    assert list(summary["pass_at_k"]) == ["1", "2"]
    assert math.isclose(summary["pass_at_k"]["1"], (1 / 3 + 0) / 2, abs_tol=1e-6)
    assert math.isclose(summary["pass_at_k"]["2"], (2 / 3 + 0) / 2, abs_tol=1e-6)


def test_not_applicable_is_left_out_of_a_rule_rate_and_counted():
    summary = summarize([result(1, None, None, rules={"KT002": "pass"}), result(2, None, None, rules={"KT002": "fail"}),
                         result(3, None, None, rules={"KT002": "n/a"})])
    assert summary["rules"]["KT002"] == {**wilson(1, 2), "failed": 1, "not_applicable": 1}
    assert "passes" not in summary["rates"]  # no hidden tests ran: nothing to say about passing


def with_tests(line, task, original, augmented, *, compiles=True):
    """A result whose hidden tests ran: `original` and `augmented` are the statuses of each file's tests."""
    tests = [{"file": f"{task}/solution.test.kite", "status": s} for s in original]
    tests += [{"file": f"{task}/augmented.test.kite", "status": s} for s in augmented]
    return {**result(line, task, compiles and all(t["status"] == "pass" for t in tests), compiles=compiles), "tests": tests}


def test_answers_that_pass_the_original_tests_but_fail_the_augmented_ones_are_counted_per_task_and_overall():
    summary = summarize([
        with_tests(1, "a", ["pass"], ["pass", "pass"]),   # passes both
        with_tests(2, "a", ["pass"], ["pass", "fail"]),   # caught by the augmented tests
        with_tests(3, "a", ["fail"], ["fail"]),           # the original tests caught it already
        with_tests(4, "b", ["pass", "pass"], ["timeout"]),
        with_tests(5, "b", ["pass"], ["pass"], compiles=False),
        with_tests(6, "c", ["pass"], []),                 # a task without augmented tests is not counted
    ])
    assert summary["augmented"] == {"answers": 5, "passed_original": 3, "fail_augmented": 2, "tasks": {
        "a": {"answers": 3, "passed_original": 2, "fail_augmented": 1}, "b": {"answers": 2, "passed_original": 1, "fail_augmented": 1}}}
    assert "augmented" not in summarize([with_tests(1, "c", ["pass"], [])])
