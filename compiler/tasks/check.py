"""`kite tasks check`: a task is usable when its reference solution passes all four layers clean, with its hidden tests
passing, every test file is the task's module, every test has an expect (KT005), and the prompt names every function
of the module the tests call."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kite import diagnostics as diag
from kite.errors import NoTests, UnusableInput
from kite.scoring.tasks import PROMPT, SOLUTION, Task, TaskFolder
from kite.syntax import nodes as n
from kite.units import Unit


@dataclass(frozen=True)
class Problem:
    file: str  # relative to TASKS_DIR: "<task_id>/<name>"
    line: int | None
    message: str


@dataclass(frozen=True)
class TaskCheck:
    task_id: str
    problems: tuple[Problem, ...] = ()
    unusable: str = ""  # the task could not be read at all (exit 2)

    @property
    def ok(self) -> bool:
        return not self.problems and not self.unusable


def check_tasks(session, folder: TaskFolder) -> list[TaskCheck]:
    return [check_task(session, folder, task_id) for task_id in folder.task_ids()]


def check_task(session, folder: TaskFolder, task_id: str) -> TaskCheck:
    try:
        task = folder.task(task_id)
    except UnusableInput as error:
        return TaskCheck(task_id, unusable=str(error))
    return TaskCheck(task_id, tuple(_problems(session, task)))


def _problems(session, task: Task):
    if task.prompt is None:
        yield Problem(f"{task.id}/{PROMPT}", None, "no prompt: the task has nothing to ask")
    if task.solution is None:
        yield Problem(f"{task.id}/{SOLUTION}", None, "no reference solution: nothing shows the task can be done")
        return
    unit = Unit(task.solution, task.tests)
    kite_layer = session.analyze(unit, "kite")
    program = kite_layer.modules[0]
    if program is not None and program.name != task.module:
        yield Problem(task.solution.path, program.line, f"the solution is module '{program.name}', but the task's module is '{task.module}'")
    if kite_layer.result.verdict is diag.Verdict.FAILED:  # a test file of another module is KT000 here, among others
        yield from _diagnostics(kite_layer.result.diagnostics)
        return
    try:
        report = session.test(unit, hidden={test.path for test in task.tests}, timeout_seconds=task.time_limit)
    except NoTests:
        yield Problem(task.tests[0].path, None, "no test blocks in the hidden tests")
        return
    yield from _diagnostics(report.check.diagnostics)
    for outcome in report.outcomes:
        if outcome.status != "pass":
            why = f": {outcome.message}" if outcome.message else ""
            yield Problem(outcome.case.file, outcome.case.line, f"the reference solution fails test '{outcome.case.name}' ({outcome.status}{why})")
    yield from _unnamed_in_prompt(task, program, kite_layer.modules[1:])


def _diagnostics(found):
    """Any diagnostic, warnings included: a task's own code must be clean (KT005 is a test without an expect)."""
    for d in found:
        yield Problem(d.file, d.line, f"{d.severity.value} {d.id}: {d.message}")


def _unnamed_in_prompt(task: Task, program: n.Module, tests) -> list[Problem]:
    """The module's functions the hidden tests call, each of which the prompt has to name."""
    if task.prompt is None:
        return []  # said already: no prompt
    functions = {item.name for item in program.items if isinstance(item, n.FnDecl)}
    called: dict[str, tuple[str, int]] = {}
    for source, module in zip(task.tests, tests):
        for item in module.items:
            if isinstance(item, n.TestDecl):
                for statement in n.walk_statements(item.body):
                    for expression in n.statement_expressions(statement):
                        for node in n.expression_nodes(expression):
                            if isinstance(node, n.Call) and isinstance(node.func, n.Name) and node.func.name in functions:
                                called.setdefault(node.func.name, (source.path, node.line))
    return [
        Problem(f"{task.id}/{PROMPT}", None, f"never names '{name}', which the hidden tests call ({path}, line {line})")
        for name, (path, line) in sorted(called.items()) if not re.search(rf"\b{re.escape(name)}\b", task.prompt)
    ]
