"""`kite test`: check a program with its tests through the static layers, then run them in a fresh sandboxed process."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from kite import diagnostics as diag
from kite.codegen.csharp import test_methods
from kite.dotnet.runtime import write_runtime_config
from kite.errors import UnusableInput
from kite.pipeline import CheckResult, Checker, Unit, module_mismatches
from kite.testing.sandbox import NO_SANDBOX, bubblewrap
from kite.testing.worker import Limits, ProcessPool, TestRequest, run_answer

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
    tampered: bool = False  # the answer forged its results channel


@dataclass(frozen=True)
class TestReport:
    __test__ = False  # a Kite test's data, not a pytest class

    program: str
    check: CheckResult
    outcomes: tuple[TestOutcome, ...]  # the tests that decide: the hidden tests when there are any
    timeout_seconds: float
    sandbox: str  # "bubblewrap" or "none"
    own_outcomes: tuple[TestOutcome, ...] = ()  # the answer's own tests when hidden tests decide: reported apart

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
    def tampered(self) -> bool:
        return any(outcome.tampered for outcome in (*self.outcomes, *self.own_outcomes))

    @property
    def passes(self) -> bool:
        """Compiles, every deciding test passes (and there is one), and nothing was forged."""
        return self.compiled and bool(self.outcomes) and self.failed == 0 and not self.tampered


class TestSession:
    """What `kite test` reuses across answers: the checker, the compiled host, a test process started ahead."""

    __test__ = False

    def __init__(self, checker: Checker | None = None, limits: Limits = Limits(), *, sandboxed: bool = True, processes_ahead: int = 1):
        self.sandbox = bubblewrap() if sandboxed else NO_SANDBOX  # refuses before any work when it cannot hold
        self.checker = checker or Checker()
        self.limits = limits
        self.processes_ahead = processes_ahead
        self.root = _readable_folder(Path(tempfile.mkdtemp(prefix="kite-test-")))
        self._pool: ProcessPool | None = None

    def __enter__(self) -> "TestSession":
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        shutil.rmtree(self.root, ignore_errors=True)

    @property
    def pool(self) -> ProcessPool:
        """The test host, compiled once; its folder is bound read-only into every sandbox."""
        if self._pool is None:
            from kite.dotnet.stdlib import compile_own_source, stdlib_text_of

            host_dir = _readable_folder(self.root / "host")
            image = compile_own_source(self.checker.roslyn, "KiteTestHost", HOST_SOURCE, stdlib_text_of(HOST_SOURCE), executable=True)
            (host_dir / "KiteTestHost.dll").write_bytes(image)
            write_runtime_config(host_dir / "KiteTestHost.runtimeconfig.json")
            (host_dir / "KiteStd.dll").write_bytes(self.checker.stdlib.image)
            for written in host_dir.iterdir():
                written.chmod(0o644)
            self._pool = ProcessPool(self.sandbox, host_dir, self.limits, self.processes_ahead)
        return self._pool

    def run(self, unit: Unit, hidden: Collection[str] | None = None) -> TestReport:
        """Compile the unit, then run its tests; with `hidden` (test file paths), only their tests decide."""
        analysis = self.checker.analyze(unit)
        for _, _, message in module_mismatches(unit, list(analysis.modules)):
            raise UnusableInput(message)
        cases = [
            TestCase(test.description, source.path, test.line, module.name, method)
            for index, (source, module) in enumerate(zip(unit.sources, analysis.modules)) if module is not None
            for test, method in test_methods(module, index)
        ]
        deciding = [case for case in cases if hidden is None or case.file in hidden]
        own = [case for case in cases if case not in deciding]
        if not deciding:
            where = "the hidden test files" if hidden is not None else "the program or its test files"
            raise UnusableInput(f"{unit.program.path}: no tests to run (no test blocks in {where})")
        compiled = self.checker.emit(unit, analysis)
        if compiled.image is None:
            outcomes = [TestOutcome(case, "fail", "the program does not compile", 0.0) for case in deciding + own]
        else:
            outcomes = self.run_image(compiled.image, deciding + own)
        return TestReport(unit.program.path, compiled.result, tuple(outcomes[: len(deciding)]), self.limits.timeout_seconds,
                          self.sandbox.mode, tuple(outcomes[len(deciding):]))

    def run_image(self, image: bytes, cases: list[TestCase]) -> list[TestOutcome]:
        """Run compiled tests (a Kite answer's, or a raw assembly's) in one fresh process."""
        results = run_answer(self.pool, image, [TestRequest(case.type_name, case.method) for case in cases])
        return [
            TestOutcome(case, raw.status, raw.message, raw.seconds, raw.output, raw.truncated, raw.tampered)
            for case, raw in zip(cases, results)
        ]


def _readable_folder(path: Path) -> Path:
    """A folder kite writes and the sandbox (maybe running as nobody) may only read."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o755)
    return path
