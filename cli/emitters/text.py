"""LANGUAGE.md section 10 for `check`; a line per test and `N passed, M failed` for `test`."""

from __future__ import annotations

from kite import diagnostics as diag
from kite.display import visible


def diagnostics_text(found) -> str:
    """One line per diagnostic, then the summary."""
    return "\n".join([*(d.render() for d in found), diag.summary(found)])


def check(reports) -> str:
    """Nothing when no unit could be checked at all: its one-line problem is the whole story."""
    if not any(report.check is not None for report in reports):
        return ""
    return diagnostics_text([d for report in reports for d in report.diagnostics])


def check_new(reports, new) -> str:
    """`kite check --new-only`: the new diagnostics, then how many were new and the summary of them all."""
    if not any(report.check is not None for report in reports):
        return ""
    found = [d for report in reports for d in report.diagnostics]
    return "\n".join([*(d.render() for d in new), f"{len(new)} new; all of them: {diag.summary(found)}"])


def describe_outcome(outcome, limits) -> str:
    """One line built from the outcome's fields; whatever the answer wrote is shown escaped, never raw."""
    name = visible(outcome.case.name)
    if outcome.status == "pass":
        return f"PASS {name}"
    if outcome.status == "timeout":
        why = f": {visible(outcome.message)}" if outcome.message else ""
        return f"TIMEOUT {name} after {limits.timeout_seconds:g} s{why}"
    label = "FAIL" if outcome.status == "fail" else "CRASH"
    cut = f" (output cut at {limits.output_chars // 1024} KiB)" if outcome.truncated else ""
    return f"{label} {name}: {visible(outcome.message)}{cut}"


def answer_lines(tests) -> list[str]:
    """One answer: its diagnostics when it did not compile, a line per deciding test, its own tests apart."""
    lines = []
    if not tests.compiled:
        lines.append(diagnostics_text(list(tests.check.diagnostics)))
    lines += [describe_outcome(outcome, tests.limits) for outcome in tests.outcomes]
    if tests.own_outcomes:
        lines.append("the program's own tests (reported apart; the hidden tests decide):")
        lines += ["  " + describe_outcome(outcome, tests.limits) for outcome in tests.own_outcomes]
    if tests.tampered:
        lines.append("the answer fails: it wrote to the results channel")
    return lines


def test(reports) -> str:
    """One answer prints as it always has; several get a heading each. The last line counts every deciding test."""
    tested = [report for report in reports if report.tests is not None]
    if not tested and not any(report.skipped for report in reports):
        return ""
    lines = []
    for report in reports:
        if len(reports) > 1:
            lines.append(f"== {visible(report.program)}" + (f": {report.skipped}" if report.skipped else ""))
        if report.tests is not None:
            lines += answer_lines(report.tests)
    passed = sum(report.tests.passed for report in tested)
    failed = sum(report.tests.failed for report in tested)
    lines.append(f"{passed} passed, {failed} failed")
    return "\n".join(lines)


def percent(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def rate_row(name: str, rate: dict, extra: str = "") -> str:
    interval = f"[{percent(rate['low'])}, {percent(rate['high'])}]" if rate["of"] else ""
    return f"{name:<14} {percent(rate['rate']):>7} {interval:<17} {rate['count']:>6}/{rate['of']:<6} {extra}".rstrip()


def score(summary) -> str:
    """The run's rates as a table (Wilson 95% intervals), each rule's not-applicable count, pass@k, the ungraded."""
    from kite.scoring.summary import ACHIEVED, FOUND  # here: every command imports its formats, only score needs these

    lines = [f"{summary['answers']} answers, {summary['graded']} graded, {summary['ungradable']['count']} could not be graded", "",
             f"{'rate':<14} {'value':>7} {'95% interval':<17} {'count':>13}"]
    lines += [rate_row(name, rate) for name, rate in summary["rates"].items()]
    of = summary.get("denominators") or {}
    if of:
        achieved = ", ".join(name for name in summary["rates"] if name in ACHIEVED)
        found = ", ".join(name for name in summary["rates"] if name in FOUND)
        lines += [f"  {achieved}: of {of['achieved']}", f"  {found}: of {of['found']}"]
    if summary["rules"]:
        lines += ["", "rule pass rates (not applicable left out):"]
        lines += [rate_row(rule_id, rate, f"n/a {rate['not_applicable']}") for rule_id, rate in summary["rules"].items()]
    if summary.get("formats"):
        lines += ["", f"formats (of {of.get('formats', 'the graded answers in that format')}):"]
    for fmt, rate in summary.get("formats", {}).items():
        lines.append(rate_row(f"format {fmt}", rate))
    if summary.get("pass_at_k"):
        lines += ["", "pass@k: " + ", ".join(f"k={k} {percent(value)}" for k, value in summary["pass_at_k"].items())]
    if summary.get("augmented"):
        caught = summary["augmented"]
        lines += ["", f"augmented tests: {caught['fail_augmented']} of the {caught['passed_original']} answers that pass the original "
                  "hidden tests fail the augmented ones; per task: "
                  + ", ".join(f"{visible(task)} {c['fail_augmented']}/{c['passed_original']}" for task, c in caught["tasks"].items())]
    if summary.get("mean_score") is not None:
        lines.append(f"mean score: {summary['mean_score']:.2f} / 10" + (f", over {of['mean_score']}" if of else ""))
    ungraded = summary["ungradable"]["answers"]
    if ungraded:
        lines += ["", "could not be graded:"]
        lines += [f"  line {u['line']}" + (f" (id {visible(str(u['id']))})" if u["id"] is not None else "")
                  + f": {u['kind']}: {visible(u['message'])}" for u in ungraded]
    return "\n".join(lines)


def prose(report) -> str:
    """A line per slop phrase (file:line:column: category: "phrase"), then the count by category."""
    from kite.scoring.slop import CLEAN_MEANS

    lines = []
    for hit in report.hits:
        line, column = report.line_column(hit.start)
        lines.append(f'{visible(report.path)}:{line}:{column}: {hit.category}: "{visible(hit.phrase)}"')
    counts = ", ".join(f"{name} {count}" for name, count in report.by_category().items() if count)
    found = f"{len(report.hits)} slop phrase{'s' if len(report.hits) != 1 else ''} ({counts})" if report.hits else "no known slop phrase"
    lines.append(f"{found}; {CLEAN_MEANS}")
    return "\n".join(lines)


def _match_line(path: str, found) -> str:
    """`file(line,col)-(line,col): text`; a match over several lines shows its first, then `...`."""
    line, column, end_line, end_column = found.span
    first, *rest = found.text.split("\n")
    return f"{visible(path)}({line},{column})-({end_line},{end_column}): {visible(first)}{' ...' if rest else ''}"


def find(pattern, searched) -> str:
    from kite.search.pattern import described  # here: the parser loads only for a command that needs it

    lines = [_match_line(file.path, found) for file in searched for found in file.found]
    count = len(lines)
    files = sum(bool(file.found) for file in searched)
    lines.append(f"{count} match{'es' if count != 1 else ''} in {files} file{'s' if files != 1 else ''} "
                 f"({sum(file.problem is None for file in searched)} searched, pattern read as {described(pattern.context)})")
    return "\n".join(lines)


def rewrite_plan(plan, plan_path: str) -> str:
    """The unified diff (each line shown safe: the files are answers), then what the plan holds and how to apply it."""
    diff = "".join(visible(line) + "\n" for file in plan.files for line in file.diff.split("\n")[:-1])
    if plan.problems:
        return f"{diff}no plan written: {len(plan.problems)} file{'s' if len(plan.problems) != 1 else ''} could not be searched\n"
    if not plan.files:
        return "nothing matched: no plan written\n"
    files = len(plan.files)
    return (f"{diff}{plan.matches} match{'es' if plan.matches != 1 else ''} in {files} file{'s' if files != 1 else ''}; "
            f"nothing written. Plan: {plan_path}\napply it with: kite rewrite --apply {plan_path} --check\n")


def _problem_line(problem) -> str:
    where = visible(problem.file) + (f"({problem.line})" if problem.line is not None else "")
    return f"{where}: {visible(problem.message)}"


def tasks_check(checks) -> str:
    """A line per problem (file(line): message), then how many tasks passed."""
    lines = [f"{visible(check.task_id)}: {visible(check.unusable)}" for check in checks if check.unusable]
    lines += [_problem_line(problem) for check in checks for problem in check.problems]
    failed = [check.task_id for check in checks if not check.ok]
    lines.append(f"{len(checks)} tasks: {len(checks) - len(failed)} ok, {len(failed)} failed"
                 + (f" ({', '.join(visible(task_id) for task_id in failed)})" if failed else ""))
    return "\n".join(lines)


def tasks_mutate(measured, min_score) -> str:
    """Per task its score and counts, each surviving mutant as a diff with an input that tells it apart, the likely
    equivalent ones apart; a summary."""
    lines = []
    for task in measured:
        if task.unusable or task.problem:
            lines.append(f"{visible(task.task_id)}: {visible(task.unusable or task.problem)}")
            continue
        score = "-" if task.score is None else f"{task.score:.2f}"
        below = " BELOW MIN" if min_score is not None and (task.score is None or task.score < min_score) else ""
        lines.append(f"{visible(task.task_id)}: score {score}{below} = {task.killed} killed / ({task.compiled} compiled - "
                     f"{task.count('equivalent')} likely equivalent); {task.count('timeout')} killed by time-out, "
                     f"{task.count('not compiled')} did not compile, {len(task.results)} of {task.made} mutants run")
        lines += survivor_lines(task)
    scored = [task for task in measured if task.score is not None]
    summary = f"{len(measured)} tasks"
    if scored:
        lowest = min(scored, key=lambda task: task.score)
        summary += f": mean score {sum(task.score for task in scored) / len(scored):.2f}, lowest {lowest.score:.2f} ({visible(lowest.task_id)})"
    lines.append(summary + "; score = killed / (compiled - likely equivalent)"
                 + (f", each task at least {min_score:g}" if min_score is not None else ""))
    return "\n".join(lines)


def survivor_lines(task) -> list[str]:
    """How the survivors were checked on generated inputs, then each with its diff: the told-apart ones first."""
    if not task.checked:
        return []
    if task.unchecked:
        lines = [f"  {task.checked} survivors not checked on generated inputs: {visible(task.unchecked)}"]
    else:
        lines = [(f"  {task.checked} survivors checked on {task.inputs} generated inputs the reference answers: "
                 f"{task.count('survived')} told apart, {task.count('equivalent')} likely equivalent")]
    labels = (("survived", "survived"), ("equivalent", "likely equivalent (the reference's value on every generated input)"))
    for status, label in labels:
        for result in task.results:
            if result.status == status:
                mutant = result.mutant
                lines.append(f"  {label}: line {mutant.line}, {mutant.kind}: {visible(mutant.description)}")
                if result.told:
                    lines.append(f"    {visible(result.told)}")
                lines += ["    " + visible(line) for line in result.diff.splitlines()]
    return lines


def _score(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def tasks_augment(augmented) -> str:
    """Per task: tests and mutation score before and after, where the reference fails, the survivors still alive
    (told apart first, then the likely equivalent); then the mean scores."""
    lines = []
    for task in augmented:
        if task.unusable or task.problem:
            lines.append(f"{visible(task.task_id)}: {visible(task.unusable or task.problem)}")
            continue
        written = f"; wrote {visible(task.written)}" if task.written else ("; nothing to add" if not task.text else "")
        lines.append(f"{visible(task.task_id)}: tests {task.tests_before} -> {task.tests_after}, score {_score(task.before.score)} -> "
                     f"{_score(task.after.score)} ({len(task.expects)} expects from {task.answered} of {task.inputs} generated inputs "
                     f"the reference answers{written})")
        lines += [f"  the reference fails on {visible(given)}: it {visible(what)}" for given, what in task.reference_failures]
        lines += [f"  no inputs for {visible(why)}" for why in task.skipped]
        lines += survivor_lines(task.after)[1:]
    scored = [task for task in augmented if task.after is not None and task.after.score is not None]
    summary = f"{len(augmented)} tasks"
    if scored:
        mean = [sum(getattr(task, side).score for task in scored) / len(scored) for side in ("before", "after")]
        lowest = min(scored, key=lambda task: task.after.score)
        summary += (f": mean score {mean[0]:.2f} -> {mean[1]:.2f}, lowest after {lowest.after.score:.2f} ({visible(lowest.task_id)}); "
                    f"{sum(len(task.reference_failures) for task in augmented)} inputs the reference fails on")
    lines.append(summary)
    return "\n".join(lines)


def _symbol_line(symbol) -> str:
    where = f"{visible(symbol.file)}({symbol.range.line},{symbol.range.column})" if symbol.file else "std"
    return f"{where}: {symbol.kind} {visible(symbol.id)}"


def graph(graph, found) -> str:
    """A query's symbols, one `file(line,col): kind id` each; the whole graph: its symbols, then an edge a line
    (`from kind to`). The standard library's functions are `std: fn std.NAME`."""
    if found is not None:
        return "\n".join(_symbol_line(symbol) for symbol in found)
    lines = [_symbol_line(symbol) for symbol in graph.workspace.symbols]
    lines += [f"{visible(a)} {kind} {visible(b)}" for a, b, kind in graph.workspace.edges()]
    return "\n".join(lines)
