"""`kite tasks mutate`: how strong a task's hidden tests are. Each mutant of the reference solution that compiles runs
the hidden tests through the session (a fresh sandboxed process each, under the task's time limit). A time-out kills
a mutant. A survivor is then run on generated inputs beyond the tests (kite.tasks.inputs, through kite.tasks.probe):
where it gives another value than the reference, that input is shown; where it agrees on every one, it is likely
equivalent, and left out of the score: killed / (compiled - likely equivalent). Surviving tells nothing more, since
a survivor agrees with the reference on every expect by definition."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from kite.diagnostics import Layer
from kite.display import diff_name
from kite.errors import UnusableInput
from kite.scoring.tasks import Task, TaskFolder
from kite.source import SourceFile
from kite.syntax.frontend import read_syntax
from kite.tasks import DEFAULT_MAX_INPUTS, DEFAULT_MAX_MUTANTS
from kite.tasks.mutants import Mutant, mutants, sample
from kite.tasks.probe import Evidence, task_evidence
from kite.units import Unit

KILLED = ("killed", "timeout")  # a time-out kills a mutant too: it did not give the original's answers in time


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    status: str  # killed, timeout (killed by a time-out), survived, equivalent (survived, likely equivalent), not compiled
    test: str = ""  # the first test that told it apart
    diff: str = ""  # the mutant against the original, for survivors
    told: str = ""  # for a survivor: a generated input that tells it apart from the reference, and both results
    differences: tuple[int, ...] = ()  # for a survivor: every generated input it differs on (kite.tasks.augment's choice)

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
    inputs: int = 0  # generated inputs the reference answered, on which each survivor was compared with it
    unchecked: str = ""  # why survivors could not be compared on generated inputs (no function kite can make inputs for)

    def count(self, *statuses: str) -> int:
        return sum(result.status in statuses for result in self.results)

    @property
    def compiled(self) -> int:
        return len(self.results) - self.count("not compiled")

    @property
    def killed(self) -> int:
        return self.count(*KILLED)

    @property
    def checked(self) -> int:
        """Survivors compared with the reference on the generated inputs."""
        return self.count("survived", "equivalent")

    @property
    def score(self) -> float | None:
        """killed / (compiled - likely equivalent): an equivalent mutant is no hole in the tests. None without a
        compiled mutant; 1.0 when every compiled one is likely equivalent (nothing was left to kill)."""
        if not self.compiled:
            return None
        judged = self.compiled - self.count("equivalent")
        return self.killed / judged if judged else 1.0


def mutate_tasks(session, folder: TaskFolder, max_mutants: int = DEFAULT_MAX_MUTANTS, seed: int = 0, progress=None,
                 max_inputs: int = DEFAULT_MAX_INPUTS) -> list[TaskMutation]:
    measured = []
    for task_id, task, unusable in each_task(folder, progress):
        if unusable:
            measured.append(TaskMutation(task_id, unusable=unusable))
        else:
            measured.append(mutate_task(session, task, max_mutants, seed, lambda task=task: task_evidence(session, task, seed, max_inputs)))
    return measured


def each_task(folder: TaskFolder, progress=None):
    """(task id, the task, "") for each task in id order, or (task id, None, why) for one that cannot be read."""
    for task_id in folder.task_ids():
        if progress is not None:
            progress(task_id)
        try:
            yield task_id, folder.task(task_id), ""
        except UnusableInput as error:
            yield task_id, None, str(error)


def mutate_task(session, task: Task, max_mutants: int, seed: int, evidence) -> TaskMutation:
    """The task's mutants against its hidden tests; `evidence()` gives the generated inputs that survivors are
    compared on (made, and the reference run on them, only when some mutant survives)."""
    if task.solution is None:
        return TaskMutation(task.id, problem="no reference solution to mutate")
    syntax = read_syntax(task.solution)
    if syntax.module is None or syntax.diagnostics:
        return TaskMutation(task.id, problem="the reference solution does not parse (kite tasks check says why)")
    runner = _Runner(session, task, evidence)
    original = runner.run(task.solution.text)
    if not original.passes:
        return TaskMutation(task.id, problem="the reference solution does not pass its hidden tests (kite tasks check says why)")
    found = mutants(task.solution.text, syntax)
    chosen = sample(found, max_mutants, f"{seed}:{task.id}")
    results = tuple(runner.judge(mutant) for mutant in chosen)
    if runner.evidence is None:
        return TaskMutation(task.id, len(found), results)
    checked = runner.evidence
    return TaskMutation(task.id, len(found), results, inputs=len(checked.answered), unchecked=checked.unchecked())


class _Runner:
    def __init__(self, session, task: Task, evidence):
        assert task.solution is not None, "mutate_task runs only a task with a reference solution"
        self.session = session
        self.task = task
        self.solution = task.solution
        self.hidden = {test.path for test in task.tests}
        self._evidence = evidence
        self.evidence: Evidence | None = None  # made on the first survivor

    def run(self, text: str, stop_at_failure: bool = False, tests=None):
        unit = Unit(SourceFile(self.solution.path, text), self.task.tests if tests is None else tests)
        hidden = self.hidden if tests is None else {test.path for test in tests}
        return self.session.test(unit, hidden=hidden, timeout_seconds=self.task.time_limit, through=Layer.COMPILER,
                                 stop_at_failure=stop_at_failure)

    def judge(self, mutant: Mutant) -> MutantResult:
        report = self.run(mutant.text, stop_at_failure=True)
        if not report.compiled:
            return MutantResult(mutant, "not compiled")
        told = next((outcome for outcome in report.outcomes if outcome.status != "pass"), None)
        if told is not None:
            return MutantResult(mutant, "timeout" if told.status == "timeout" else "killed", told.case.name)
        if self.evidence is None:
            self.evidence = self._evidence()
        compared = self.evidence.compare(mutant.text)
        differences = tuple(index for index, _ in compared.differences)
        if compared.differences:
            return MutantResult(mutant, "survived", diff=self.diff(mutant), told=self.evidence.told(compared.differences[0]),
                                differences=differences)
        # Agreeing on no input is no evidence: only a survivor that agreed on some, and differed on none, is equivalent.
        return MutantResult(mutant, "equivalent" if compared.compared else "survived", diff=self.diff(mutant))

    def diff(self, mutant: Mutant) -> str:
        path = self.solution.path
        lines = difflib.unified_diff(self.solution.text.splitlines(keepends=True), mutant.text.splitlines(keepends=True),
                                     diff_name(f"a/{path}"), diff_name(f"b/{path}"))
        return "".join(lines)
