"""`kite test`: check a program with its tests through the static layers, then run each test in the worker."""

from __future__ import annotations

import itertools
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from kite import diagnostics as diag
from kite.codegen.csharp import test_methods
from kite.dotnet.runtime import write_runtime_config
from kite.errors import UnusableInput
from kite.pipeline import CheckResult, Checker, Unit, module_mismatches
from kite.testing.worker import Limits, Worker, isolation, prepare_folder

HOST_SOURCE = "KiteTestHost.cs"


@dataclass(frozen=True)
class TestCase:
    __test__ = False  # a Kite test's data, not a pytest class

    name: str
    file: str
    line: int
    type_name: str
    method: str


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False  # a Kite test's data, not a pytest class

    case: TestCase
    status: str  # pass, fail, timeout, crash
    message: str
    seconds: float
    output: str = ""
    truncated: bool = False


@dataclass(frozen=True)
class TestReport:
    __test__ = False  # a Kite test's data, not a pytest class

    program: str
    check: CheckResult
    outcomes: tuple[TestOutcome, ...]
    timeout_seconds: float

    @property
    def compiled(self) -> bool:
        return self.check.verdict is not diag.Verdict.FAILED

    @property
    def passed(self) -> int:
        return sum(outcome.status == "pass" for outcome in self.outcomes)

    @property
    def failed(self) -> int:
        return len(self.outcomes) - self.passed

    @property
    def passes(self) -> bool:
        """The answer passes only if it compiles and every test passes (and there is at least one)."""
        return self.compiled and bool(self.outcomes) and self.failed == 0


class TestSession:
    """What `kite test` reuses across answers: the checker, the compiled host, one healthy worker."""

    __test__ = False

    def __init__(self, checker: Checker | None = None, limits: Limits = Limits()):
        self.checker = checker or Checker()
        self.limits = limits
        self.root = prepare_folder(Path(tempfile.mkdtemp(prefix="kite-test-")), writable=False)
        self.runs = itertools.count(1)
        self._worker: Worker | None = None

    def __enter__(self) -> "TestSession":
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def close(self) -> None:
        if self._worker is not None:
            self._worker.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    @property
    def worker(self) -> Worker:
        if self._worker is None:
            host_dir = prepare_folder(self.root / "host", writable=False)
            from kite.dotnet.stdlib import compile_own_source, stdlib_text_of

            image = compile_own_source(self.checker.roslyn, "KiteTestHost", HOST_SOURCE, stdlib_text_of(HOST_SOURCE), executable=True)
            (host_dir / "KiteTestHost.dll").write_bytes(image)
            write_runtime_config(host_dir / "KiteTestHost.runtimeconfig.json")
            (self.root / "KiteStd.dll").write_bytes(self.checker.stdlib.image)
            (self.root / "KiteStd.dll").chmod(0o644)
            home = prepare_folder(self.root / "home", writable=True)
            self._worker = Worker(host_dir / "KiteTestHost.dll", home, self.limits)
        return self._worker

    @property
    def isolation(self) -> str:
        return isolation().describe()

    def run(self, unit: Unit) -> TestReport:
        analysis = self.checker.analyze(unit)
        for _, _, message in module_mismatches(unit, list(analysis.modules)):
            raise UnusableInput(message)
        cases = [
            TestCase(test.description, source.path, test.line, module.name, method)
            for index, (source, module) in enumerate(zip(unit.sources, analysis.modules)) if module is not None
            for test, method in test_methods(module, index)
        ]
        if not cases:
            raise UnusableInput(f"{unit.program.path}: no tests to run (no test blocks in the program or its test files)")
        compiled = self.checker.emit(unit, analysis)
        if compiled.image is None:
            failing = tuple(TestOutcome(case, "fail", "the program does not compile", 0.0) for case in cases)
            return TestReport(unit.program.path, compiled.result, failing, self.limits.timeout_seconds)
        worker = self.worker
        run_dir = prepare_folder(self.root / f"run-{next(self.runs)}", writable=False)
        try:
            assembly = run_dir / f"{compiled.module_name}.dll"
            assembly.write_bytes(compiled.image)
            assembly.chmod(0o644)
            workdir = prepare_folder(run_dir / "work", writable=True)  # a fresh folder per run
            outcomes = []
            for case in cases:
                request = {"assembly": str(assembly), "stdlib": str(self.root / "KiteStd.dll"), "type": case.type_name, "method": case.method, "workdir": str(workdir)}
                start = time.monotonic()
                raw = worker.run(request, self.limits.timeout_seconds)
                outcomes.append(TestOutcome(case, raw.status, raw.message, time.monotonic() - start, raw.output, raw.truncated))
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)
            worker.recycle_if_grown()
        return TestReport(unit.program.path, compiled.result, tuple(outcomes), self.limits.timeout_seconds)
