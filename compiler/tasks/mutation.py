"""`kite tasks mutate`: how strong a task's hidden tests are. Each mutant of the reference solution that compiles runs
the hidden tests through the session (a fresh sandboxed process each, under the task's time limit); the score is
killed / compiled. A time-out kills a mutant. A survivor whose every observed value on the tests' inputs equals the
original's is listed apart as likely equivalent: no test could tell them apart."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from kite.diagnostics import Layer
from kite.errors import UnusableInput
from kite.pipeline import Unit
from kite.scoring.tasks import Task, TaskFolder
from kite.tasks import DEFAULT_MAX_MUTANTS
from kite.source import SourceFile
from kite.syntax import nodes as n
from kite.syntax.frontend import read_syntax
from kite.tasks.mutants import COMPARISON, Mutant, mutants, sample
from kite.tasks.positions import Positions, Span, edited

KILLED = ("killed", "timeout")  # a time-out kills a mutant too: it did not give the original's answers in time


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    status: str  # killed, timeout (killed by a time-out), survived, equivalent (survived, likely equivalent), not compiled
    test: str = ""  # the first test that told it apart
    diff: str = ""  # the mutant against the original, for survivors

    @property
    def killed(self) -> bool:
        return self.status in KILLED


@dataclass(frozen=True)
class TaskMutation:
    task_id: str
    made: int = 0  # mutants the solution has, before the sample
    results: tuple[MutantResult, ...] = ()
    problem: str = ""  # why its tests could not be measured (exit 1)
    unusable: str = ""  # the task could not be read (exit 2)

    def count(self, *statuses: str) -> int:
        return sum(result.status in statuses for result in self.results)

    @property
    def compiled(self) -> int:
        return len(self.results) - self.count("not compiled")

    @property
    def killed(self) -> int:
        return self.count(*KILLED)

    @property
    def score(self) -> float | None:
        return self.killed / self.compiled if self.compiled else None


def mutate_tasks(session, folder: TaskFolder, max_mutants: int = DEFAULT_MAX_MUTANTS, seed: int = 0, progress=None) -> list[TaskMutation]:
    measured = []
    for task_id in folder.task_ids():
        if progress is not None:
            progress(task_id)
        measured.append(mutate_task(session, folder, task_id, max_mutants, seed))
    return measured


def mutate_task(session, folder: TaskFolder, task_id: str, max_mutants: int, seed: int) -> TaskMutation:
    try:
        task = folder.task(task_id)
    except UnusableInput as error:
        return TaskMutation(task_id, unusable=str(error))
    if task.solution is None:
        return TaskMutation(task_id, problem="no reference solution to mutate")
    syntax = read_syntax(task.solution)
    if syntax.module is None or syntax.diagnostics:
        return TaskMutation(task_id, problem="the reference solution does not parse (kite tasks check says why)")
    runner = _Runner(session, task)
    original = runner.run(task.solution.text, task.tests)
    if not original.passes:
        return TaskMutation(task_id, problem="the reference solution does not pass its hidden tests (kite tasks check says why)")
    found = mutants(task.solution.text, syntax)
    chosen = sample(found, max_mutants, f"{seed}:{task_id}")
    return TaskMutation(task_id, len(found), tuple(runner.judge(mutant) for mutant in chosen))


class _Runner:
    def __init__(self, session, task: Task):
        self.session = session
        self.task = task
        self.hidden = {test.path for test in task.tests}
        self.observing = tuple(SourceFile(test.path, observing_text(test.text)) for test in task.tests)
        self._original_observed = None

    def run(self, text: str, tests, stop_at_failure: bool = False):
        unit = Unit(SourceFile(self.task.solution.path, text), tests)
        return self.session.test(unit, hidden=self.hidden, timeout_seconds=self.task.time_limit, through=Layer.COMPILER,
                                 stop_at_failure=stop_at_failure)

    def observed(self, text: str):
        report = self.run(text, self.observing)
        return [(o.case.name, o.status, o.message, o.output) for o in report.outcomes]

    def judge(self, mutant: Mutant) -> MutantResult:
        report = self.run(mutant.text, self.task.tests, stop_at_failure=True)
        if not report.compiled:
            return MutantResult(mutant, "not compiled")
        told = next((outcome for outcome in report.outcomes if outcome.status != "pass"), None)
        if told is not None:
            return MutantResult(mutant, "timeout" if told.status == "timeout" else "killed", told.case.name)
        if self._original_observed is None:
            self._original_observed = self.observed(self.task.solution.text)
        same = self.observed(mutant.text) == self._original_observed
        return MutantResult(mutant, "equivalent" if same else "survived", diff=self.diff(mutant))

    def diff(self, mutant: Mutant) -> str:
        path = self.task.solution.path
        lines = difflib.unified_diff(self.task.solution.text.splitlines(keepends=True), mutant.text.splitlines(keepends=True),
                                     f"a/{path}", f"b/{path}")
        return "".join(lines)


def observing_text(text: str) -> str:
    """The tests with every expect's values printed first (both sides of a comparison), so a test's output is what
    it observed of the program, not only whether its expects held."""
    syntax = read_syntax(SourceFile("observed.test.kite", text))
    if syntax.module is None:
        return text
    positions = Positions(text, syntax)
    insertions: list[tuple[int, str]] = []
    for item in syntax.module.items:
        if isinstance(item, n.TestDecl):
            for statement in n.walk_statements(item.body):
                span = positions.span(statement) if isinstance(statement, n.Expect) else None
                if span is not None:
                    expression = statement.expr
                    sides = (expression.left, expression.right) if isinstance(expression, n.Binary) and expression.op in COMPARISON else (expression,)
                    values = [positions.span(side) for side in sides]
                    if all(values):
                        indent = " " * (statement.column - 1)
                        insertions.append((span.start, "".join(f"print({text[v.start:v.end]})\n{indent}" for v in values)))
    for start, shown in sorted(insertions, reverse=True):
        text = edited(text, Span(start, start), shown)
    return text
