"""`kite tasks augment`: make a task's hidden tests strong enough that a wrong answer cannot pass them. Measure
(the mutants `kite tasks mutate` makes, against the tests as they are), strengthen (the reference's values on inputs
made by type, kite.tasks.inputs, are the oracle), minimise (a greedy set cover of the surviving mutants by the inputs
that kill them, shortest inputs first, then a few diverse ones), and write the chosen expects as
`<task>/augmented.test.kite`, which every command that reads hidden tests then reads too.

An existing augmented file is left out of every step (it is made again from the other tests, so the same options
give the same file), and the score after is measured by running the survivors on the written expects themselves."""

from __future__ import annotations

from dataclasses import dataclass, replace

from kite import __version__
from kite.atomic import write_atomically
from kite.diagnostics import Layer
from kite.scoring.tasks import AUGMENTED, Task, TaskFolder, is_augmented
from kite.source import SourceFile
from kite.syntax import nodes as n
from kite.syntax.frontend import read_syntax
from kite.tasks import DEFAULT_MAX_INPUTS, DEFAULT_MAX_MUTANTS
from kite.tasks.inputs import Input
from kite.tasks.mutation import MutantResult, TaskMutation, each_task, mutate_task
from kite.tasks.probe import Evidence, free_prefix, task_evidence
from kite.tasks.values import Writer, key, traits
from kite.units import Unit

DIVERSE_EXPECTS = 8  # added after the set cover, for traits no test input has: a task whose tests kill every mutant gains too
TEST_PREFIX = "augmented: "


@dataclass(frozen=True)
class Options:
    seed: int = 0
    max_inputs: int = DEFAULT_MAX_INPUTS
    max_mutants: int = DEFAULT_MAX_MUTANTS


@dataclass(frozen=True)
class ChosenExpect:
    input: Input
    value: object  # the reference's result on it
    kills: int  # surviving mutants it was chosen to kill (0: one of the diverse few)


@dataclass(frozen=True)
class TaskAugment:
    task_id: str
    tests_before: int = 0  # test blocks in the hidden tests, an augmented file left out
    before: TaskMutation | None = None
    after: TaskMutation | None = None  # the same mutants, the survivors run again with the augmented tests
    expects: tuple[ChosenExpect, ...] = ()
    text: str = ""  # the augmented file ("" when there is nothing to add)
    inputs: int = 0  # generated
    answered: int = 0  # of which the reference answered in time
    reference_failures: tuple[tuple[str, str], ...] = ()  # (input, what the reference did): crashed, timed out, failed its expect
    skipped: tuple[str, ...] = ()  # functions the tests call that got no inputs, and why
    written: str = ""  # the file written (with --write)
    problem: str = ""  # the task could not be augmented (exit 1)
    unusable: str = ""  # the task could not be read (exit 2)

    @property
    def tests_after(self) -> int:
        return self.tests_before + len(self.expects)


def augment_tasks(session, folder: TaskFolder, options: Options, write: bool = False, progress=None) -> list[TaskAugment]:
    done = []
    for task_id, task, unusable in each_task(folder, progress):
        if unusable:
            done.append(TaskAugment(task_id, unusable=unusable))
            continue
        augmented = augment_task(session, task, options)
        if write and augmented.text:
            path = folder.root / task_id / AUGMENTED
            write_atomically(path, augmented.text.encode("utf-8"))  # each task as it is done: nothing lost half-way
            augmented = replace(augmented, written=f"{task_id}/{AUGMENTED}")
        done.append(augmented)
    return done


def augment_task(session, task: Task, options: Options) -> TaskAugment:
    original = replace(task, tests=tuple(test for test in task.tests if not is_augmented(test.path)))
    if not original.tests:
        return TaskAugment(task.id, problem=f"no hidden tests besides {AUGMENTED}: nothing to make inputs from")
    tests_before = sum(_test_count(test) for test in original.tests)
    evidence = task_evidence(session, original, options.seed, options.max_inputs) if original.solution is not None else None
    before = mutate_task(session, original, options.max_mutants, options.seed, lambda: evidence)
    if before.problem:
        return TaskAugment(task.id, tests_before, before, problem=before.problem)
    assert evidence is not None, "mutate_task reports a task without a reference solution as its problem"
    reference = evidence.reference
    if evidence.problem:
        return TaskAugment(task.id, tests_before, before, problem=evidence.problem)
    limit = task.time_limit
    failures = [(given.shown(), f"{seen.shown(limit)}") for given, seen in evidence.failures]
    tested = set().union(*(call_traits(evidence, given, None) for given in evidence.inputs.tested))
    picked = choose(evidence, before.results, {trait for trait in tested if ".result" not in trait})
    chosen = [ChosenExpect(evidence.inputs.inputs[index], reference[index].value, kills) for index, kills in picked]
    writer = ExpectWriter(original, evidence, options)
    if chosen:
        # The reference must pass its own expects: one it fails (another value on a second run) is reported, left out.
        own, problem = writer.failing(session, chosen)
        if problem:
            return TaskAugment(task.id, tests_before, before, problem=problem)
        failures += [(expect.input.shown(), f"fails its own expect ({message})") for expect, message in own]
        chosen = [expect for expect in chosen if all(expect is not failed for failed, _ in own)]
    text = writer.text(chosen) if chosen else ""
    after = _after(session, original, before, text)
    return TaskAugment(task.id, tests_before, before, after, tuple(chosen), text, len(evidence.inputs.inputs),
                       len(evidence.answered), tuple(failures), evidence.inputs.skipped)


def _test_count(test: SourceFile) -> int:
    module = read_syntax(test).module
    return 0 if module is None else sum(isinstance(item, n.TestDecl) for item in module.items)


def choose(evidence: Evidence, results: tuple[MutantResult, ...], tested: frozenset[str] | set[str] = frozenset()) -> list[tuple[int, int]]:
    """(input index, mutants it kills) for each input chosen: greedily the one that kills the most survivors still
    alive, the shortest among equals (its input, then its value); then up to DIVERSE_EXPECTS more, each the one with
    the most traits (kite.tasks.values.traits of its arguments and its result, and its result itself) that neither
    the hidden tests' inputs (`tested`) nor a chosen input have, the shortest among equals."""
    candidates = [index for index in evidence.answered if evidence.writable(index)]
    cost = {index: (len(evidence.inputs.inputs[index].shown()), len(evidence.reference[index].shown(None)), index) for index in candidates}
    alive = [set(result.differences).intersection(candidates) for result in results if result.status == "survived"]
    alive = [killers for killers in alive if killers]
    chosen: list[tuple[int, int]] = []
    while alive:
        best = min(candidates, key=lambda index: (-sum(index in killers for killers in alive), cost[index]))
        chosen.append((best, sum(best in killers for killers in alive)))
        alive = [killers for killers in alive if best not in killers]
    seen = set(tested).union(*(input_traits(evidence, index) for index, _ in chosen))
    for _ in range(DIVERSE_EXPECTS):
        rest = {index: input_traits(evidence, index) - seen for index in candidates if index not in {i for i, _ in chosen}}
        rest = {index: new for index, new in rest.items() if new}
        if not rest:
            break
        best = min(rest, key=lambda index: (-len(rest[index]), cost[index]))
        chosen.append((best, 0))
        seen |= rest[best]
    return chosen


def input_traits(evidence: Evidence, index: int) -> set[str]:
    """An input's traits, each named by its function and place (`find.0.empty`, `find.result.neg`), and its result."""
    given = evidence.inputs.inputs[index]
    return call_traits(evidence, given, evidence.reference[index].value)


def call_traits(evidence: Evidence, given: Input, result) -> set[str]:
    function, declarations = given.function, evidence.inputs.declarations
    found = {f"{function.name}.result={key(result)}"}
    for position, (arg, (_, kite_type)) in enumerate(zip(given.args, function.params)):
        found |= traits(arg, kite_type, declarations, f"{function.name}.{position}.")
    return found | traits(result, function.returns, declarations, f"{function.name}.result.")


class ExpectWriter:
    """The augmented file: a header saying how it was made, the task's module, one test per expect."""

    def __init__(self, task: Task, evidence: Evidence, options: Options):
        self.task = task
        self.evidence = evidence
        self.options = options
        assert task.solution is not None, "augment_task writes expects only for a task with a reference solution"
        self.solution = task.solution
        self.path = f"{task.id}/{AUGMENTED}"
        self.prefix = free_prefix(self.solution.text + "".join(test.text for test in task.tests), "given")

    def text(self, chosen: list[ChosenExpect]) -> str:
        options = self.options
        header = (f"# Made by `kite tasks augment` (kite {__version__}, --seed {options.seed}, --max-inputs {options.max_inputs}, "
                  f"--max-mutants {options.max_mutants}).\n"
                  "# Each expect's value is the reference solution's, on an input made from the other hidden tests' arguments;\n"
                  "# the inputs were chosen to kill the mutants those tests let survive. The same options make the same file.\n")
        return header + f"module {self.task.module}\n" + "".join(f"\n{block}" for _, _, block in self.tests(chosen))

    def tests(self, chosen: list[ChosenExpect]) -> list[tuple[str, ChosenExpect, str]]:
        """(name, expect, test block) per expect: grouped by function in the module's order, numbered from 1 in each."""
        made = []
        for function in self.evidence.inputs.functions:
            mine = [expect for expect in chosen if expect.input.function == function]
            for number, expect in enumerate(mine, 1):
                name = f"{TEST_PREFIX}{function.name} {number}"
                made.append((name, expect, f'test "{name}"\n' + "".join(f"    {line}\n" for line in self.lines(expect))))
        return made

    def lines(self, expect: ChosenExpect) -> list[str]:
        function = expect.input.function
        writer = Writer(self.evidence.inputs.declarations, self.prefix)
        call = f"{function.name}(" + ", ".join(writer.expression(arg, t) for arg, (_, t) in zip(expect.input.args, function.params)) + ")"
        if function.returns.kind == "bool" and not function.returns.nullable:
            return [*writer.setup, f"expect {call}" if expect.value else f"expect not {call}"]
        value = writer.expression(expect.value, function.returns)
        return [*writer.setup, f"expect {call} == {value}"]

    def failing(self, session, chosen: list[ChosenExpect]) -> tuple[list[tuple[ChosenExpect, str]], str]:
        """The expects the reference fails, run beside the task's other test files through all four layers; and a
        problem when the file is not clean (a bug of this writer: `kite tasks check` would refuse the task)."""
        source = SourceFile(self.path, self.text(chosen))
        report = session.test(Unit(self.solution, (*self.task.tests, source)), hidden={source.path},
                              timeout_seconds=self.task.time_limit)
        found = [d for d in report.check.diagnostics if d.file == source.path]
        if found or not report.compiled:
            first = found[0].render() if found else next((d.render() for d in report.check.diagnostics), "")
            return [], f"the augmented tests are not clean ({first})"
        by_name = {name: expect for name, expect, _ in self.tests(chosen)}
        return [(by_name[outcome.case.name], f"{outcome.status}: {outcome.message}" if outcome.message else outcome.status)
                for outcome in report.outcomes if outcome.status != "pass"], ""


def _after(session, task: Task, before: TaskMutation, text: str) -> TaskMutation:
    """The mutants again: the killed stay killed (the tests that killed them are unchanged), each survivor runs the
    hidden tests with the augmented ones."""
    if not text:
        return before
    assert task.solution is not None, "a task mutated has a reference solution"
    tests = (*task.tests, SourceFile(f"{task.id}/{AUGMENTED}", text))
    hidden = {test.path for test in tests}
    results = []
    for result in before.results:
        if result.status not in ("survived", "equivalent"):
            results.append(result)
            continue
        unit = Unit(SourceFile(task.solution.path, result.mutant.text), tests)
        report = session.test(unit, hidden=hidden, timeout_seconds=task.time_limit, through=Layer.COMPILER, stop_at_failure=True)
        told = next((outcome for outcome in report.outcomes if outcome.status != "pass"), None)
        if told is None:
            results.append(result)
        else:
            results.append(MutantResult(result.mutant, "timeout" if told.status == "timeout" else "killed", told.case.name))
    return replace(before, results=tuple(results))
