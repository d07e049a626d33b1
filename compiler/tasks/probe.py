"""Running a program (the reference solution, or a mutant of it) on many generated inputs, and reading back what
each gave as a Kite value.

The inputs go into one generated test file, one test per input, so the session runs them all in one sandboxed
process under the task's time limit each (a time-out or a crash hands the rest to a fresh process, as for any
answer). Each test prints its result once, after a mark, in a structured form: JSON written by Kite functions the
file declares for the result's type (a str quoted and escaped, a dec as its digits, a record as its fields), so no
two values read alike and the value read back (kite.tasks.values) compares as Kite compares: `0.00 == 0.0`.
Whatever the program prints itself comes before the mark and is ignored."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property

from kite.diagnostics import Layer
from kite.scoring.tasks import Task, is_augmented
from kite.source import SourceFile
from kite.syntax.frontend import read_syntax
from kite.tasks.inputs import Input, TaskInputs, task_inputs
from kite.tasks.values import Declarations, KiteType, NotAValue, Writer, decoded, shown, writable
from kite.units import Unit

MARK = "⟦kite⟧"  # before each result; a str result escapes it, so it is found once
OUTSIDE = "outside"  # printed after the mark instead of a result: the input breaks the function's precondition
PROBE_FILE = "kite-probe.test.kite"  # the probe's name, inside the task's folder (never written there)


@dataclass(frozen=True)
class Observation:
    status: str  # value, crash, timeout, outside (its precondition is false), unknown (not run, or not readable)
    value: object = None
    message: str = ""

    def shown(self, time_limit: float | None) -> str:
        if self.status == "value":
            return f"gives {shown(self.value)}"
        if self.status == "timeout":
            return f"runs past the time limit{f' of {time_limit:g} s' if time_limit else ''}"
        return f"crashes ({self.message})" if self.message else "crashes"


def free_prefix(text: str, wanted: str) -> str:
    """`wanted`, or it with a number, such that no name in `text` starts with it and an underscore: names made
    with it never meet the module's own."""
    names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    candidate, number = wanted, 1
    while any(name.startswith(candidate + "_") or name == candidate for name in names):
        number += 1
        candidate = f"{wanted}{number}"
    return candidate


class ProbeFile:
    """The test file that prints a program's results on the inputs: encoders for the types, one test per input."""

    def __init__(self, module: str, declarations: Declarations, solution_text: str):
        self.module = module
        self.declarations = declarations
        self.prefix = free_prefix(solution_text, "probe")
        self.encoders: dict[KiteType, str] = {}
        self.functions: list[str] = []

    def text(self, inputs: list[Input]) -> str:
        tests = []
        for number, given in enumerate(inputs, 1):
            writer = Writer(self.declarations, f"{self.prefix}_arg")
            args = ", ".join(writer.expression(arg, t) for arg, (_, t) in zip(given.args, given.function.params))
            encode = self.encoder(given.function.returns)
            printed = f'print("{MARK}" + {encode}({given.function.name}({args})))'
            if given.function.requires:  # outside its precondition the function is not asked
                body = [*writer.setup, f"if {given.function.requires}({args})", f"    {printed}", "else", f'    print("{MARK}{OUTSIDE}")']
            else:
                body = [*writer.setup, printed]
            tests.append(f'test "input {number}"\n' + "".join(f"    {line}\n" for line in body))
        return f"module {self.module}\n\n" + "\n".join(self.functions + tests)

    def encoder(self, kite_type: KiteType) -> str:
        """The name of the function that writes a value of the type as JSON, declared on first use."""
        if kite_type not in self.encoders:
            name = f"{self.prefix}_{len(self.encoders) + 1}"
            self.encoders[kite_type] = name
            body = self._body(kite_type, f"{self.prefix}_v")
            self.functions.append(f"fn {name}({self.prefix}_v: {kite_type.text()}) -> str\n" + "".join(f"    {line}\n" for line in body))
        return self.encoders[kite_type]

    def _body(self, kite_type: KiteType, v: str) -> list[str]:
        """Its statements, the value named `v` (every name made with the probe's prefix: none meets the module's)."""
        if kite_type.nullable:
            return [f"if {v} == none", '    return "null"', f"return {self.encoder(kite_type.inner())}({v})"]
        kind = kite_type.kind
        if kind in ("int", "dec", "bool"):
            return [f"return to_str({v})"]
        if kind == "str":
            escaped = f'replace(replace(replace({v}, "\\\\", "\\\\\\\\"), "\\"", "\\\\\\""), "{MARK[0]}", "\\\\u{ord(MARK[0]):04x}")'
            return ['return "\\"" + ' + escaped + ' + "\\""']
        if kind == "char":
            return [f"return {self.encoder(KiteType('str'))}(to_str({v}))"]
        if kind == "enum":
            return [f'return "\\"" + to_str({v}) + "\\""']
        item, k = f"{self.prefix}_item", f"{self.prefix}_key"
        if kind in ("list", "set"):
            return [f'return "[" + join({v}.Select(fn({item}) => {self.encoder(kite_type.args[0])}({item})), ",") + "]"']
        if kind == "map":
            pair = f'"[" + {self.encoder(kite_type.args[0])}({k}) + "," + {self.encoder(kite_type.args[1])}({v}[{k}]) + "]"'
            return [f'return "[" + join(keys({v}).Select(fn({k}) => {pair}), ",") + "]"']
        fields = self.declarations.fields(kite_type)
        parts = ' + "," + '.join(f"{self.encoder(t)}({v}.{name})" for name, t in fields)
        return [f'return "[" + {parts} + "]"' if fields else 'return "[]"']


def observation(outcome, returns: KiteType, declarations: Declarations) -> Observation:
    """What one input's test came to: the value it printed after the mark, or how it ended."""
    if outcome.status == "crash":
        return Observation("crash", message=outcome.message)
    if outcome.status == "timeout":
        return Observation("unknown" if outcome.message.startswith("not run") else "timeout", message=outcome.message)
    if outcome.status != "pass" or outcome.truncated or MARK not in outcome.output:
        return Observation("unknown", message=outcome.message)
    printed = outcome.output[outcome.output.rindex(MARK) + len(MARK):].removesuffix("\n")
    if printed == OUTSIDE:
        return Observation("outside")
    try:
        return Observation("value", decoded(json.loads(printed, strict=False, parse_float=Decimal), returns, declarations))
    except (ValueError, NotAValue):
        return Observation("unknown", message="its result could not be read back")


@dataclass(frozen=True)
class Comparison:
    """A program against the reference on the inputs the reference answered."""

    compared: int  # inputs whose both results are known
    differences: tuple[tuple[int, Observation], ...]  # (index into TaskInputs.inputs, what the program did there)


def task_evidence(session, task: Task, seed: int, max_inputs: int) -> Evidence:
    """The task's inputs, seeded by `seed` and the task id from its hidden tests, an augmented file's left out: they
    were made from the others, and seeding from them would make other inputs on every run."""
    assert task.solution is not None, "evidence is made only for a task with a reference solution"
    solution = read_syntax(task.solution).module
    assert solution is not None, "the reference solution parses (kite tasks check)"
    tests = [read_syntax(test).module for test in task.tests if not is_augmented(test.path)]
    made = task_inputs(solution, [module for module in tests if module is not None],
                       f"{seed}:{task.id}", max_inputs)
    return Evidence(session, task, made)


class Evidence:
    """A task's generated inputs, the reference's results on them (run once, on first need), and any program's results
    compared with the reference's: what tells a survivor apart from the reference, or shows it likely equivalent."""

    def __init__(self, session, task: Task, inputs: TaskInputs):
        self.session = session
        assert task.solution is not None, "evidence is made only for a task with a reference solution"
        self.task = task
        self.solution = task.solution
        self.inputs = inputs
        self.probe = ProbeFile(task.module, inputs.declarations, self.solution.text)
        self.problem = ""  # why the reference's results could not be had (the probe does not compile with it)

    def run(self, text: str, chosen: list[int], stop_at_failure: bool) -> tuple[list[Observation], str]:
        """The program's results on the inputs at `chosen` (indices), in one process (nothing run when there are
        none), and why there are none when the inputs do not compile with it."""
        if not chosen:
            return [], ""
        given = [self.inputs.inputs[index] for index in chosen]
        probe = SourceFile(f"{self.task.id}/{PROBE_FILE}", self.probe.text(given))
        unit = Unit(SourceFile(self.solution.path, text), (probe,))
        report = self.session.test(unit, hidden={probe.path}, timeout_seconds=self.task.time_limit, through=Layer.COMPILER,
                                   stop_at_failure=stop_at_failure)
        if not report.compiled:
            first = next((d for d in report.check.diagnostics if d.severity.value == "error"), None)
            problem = f"the generated inputs do not compile with the program ({first.render() if first else 'no diagnostic'})"
            return [Observation("unknown", message=problem)] * len(given), problem
        return [observation(outcome, item.function.returns, self.inputs.declarations) for outcome, item in zip(report.outcomes, given)], ""

    @cached_property
    def reference(self) -> list[Observation]:
        """The reference's result on every input (all of them run, whatever times out)."""
        seen, self.problem = self.run(self.solution.text, list(range(len(self.inputs.inputs))), stop_at_failure=False)
        return seen

    @cached_property
    def answered(self) -> list[int]:
        """The inputs the reference answered within the time limit: the only ones a program is judged on."""
        return [index for index, seen in enumerate(self.reference) if seen.status == "value"]

    @property
    def failures(self) -> list[tuple[Input, Observation]]:
        """Each input on which the reference crashed or ran past the time limit."""
        return [(self.inputs.inputs[index], seen) for index, seen in enumerate(self.reference) if seen.status in ("crash", "timeout")]

    def compare(self, text: str) -> Comparison:
        """The program on every input the reference answered, in one process: after its first time-out the rest are
        not run (it differs already), so a program that loops costs one time limit, not one per input."""
        answered = self.answered
        seen, _ = self.run(text, answered, stop_at_failure=True)  # a mutant that breaks them compares on nothing
        compared, differences = 0, []
        for index, observed in zip(answered, seen):
            if observed.status == "unknown":
                continue
            compared += 1
            if observed.status != "value" or observed.value != self.reference[index].value:
                differences.append((index, observed))
        return Comparison(compared, tuple(differences))

    def unchecked(self) -> str:
        """Why survivors could not be compared on generated inputs, if they could not."""
        if self.problem:
            return self.problem
        if not self.inputs.inputs:
            return "; ".join(self.inputs.skipped) or "no generated input for the functions the hidden tests call"
        if not self.answered:
            return "the reference answered none of the generated inputs"
        return ""

    def told(self, difference: tuple[int, Observation]) -> str:
        """`the tests miss: f(0) gives 1 here, 0 in the reference`."""
        index, observed = difference
        reference = self.reference[index]
        given = self.inputs.inputs[index]
        return f"the tests miss: {given.shown()} {observed.shown(self.task.time_limit)} here, {reference.shown(None).removeprefix('gives ')} in the reference"

    def writable(self, index: int) -> bool:
        """Whether the reference's result on the input can be written as an expect's value."""
        return self.reference[index].status == "value" and writable(self.reference[index].value)
