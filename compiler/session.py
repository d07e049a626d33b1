"""One grading session per process: the expensive parts built once, and every front door a thin adapter over it.

The session owns CoreCLR (through the Roslyn service), the compiled standard library and the compiled test host
with its pool of sandboxed processes, each built on first use. It checks, tests and builds units with the layers
chosen per call, and `grade` turns whatever goes wrong with one unit (unusable input, a crash inside a layer) into
that unit's report, so a batch always goes on. Only a broken toolchain (no dotnet, no sandbox) stops a batch: no
unit could get further.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import tempfile
import threading
import traceback
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Self

from kite import diagnostics as diag
from kite.codegen.csharp import line_path, module_type_name, test_methods
from kite.defaults import COMPILE_MEMORY_MB, COMPILE_TIMEOUT_SECONDS
from kite.diagnostics import INTERNAL_ERROR_ID, STATIC_LAYERS, Diagnostic, Layer
from kite.dotnet.compile_worker import CompileOutOfMemory, CompileTimeout
from kite.errors import NoTests, ToolchainError, UnusableInput
from kite.pipeline import (
    NOT_COMPILED,
    Analysis,
    CheckResult,
    Compiled,
    ItemCache,
    front_end,
    generate_for_debugger,
    generate_unit,
    has_entry_point,
    merge,
    module_mismatches,
    test_file_layer,
)
from kite.rules import kt010_compile_budget
from kite.testing.limits import Limits
from kite.testing.outcomes import DOES_NOT_COMPILE, TestCase, TestOutcome, TestReport
from kite.units import Unit, UnitSource

if TYPE_CHECKING:  # the worker (its sandbox, its pool) is imported when a test first runs: `kite check` never needs it
    from kite.pipeline import SyntaxResult
    from kite.source import SourceFile
    from kite.testing.worker import ProcessPool

HOST_SOURCE = "KiteTestHost.cs"
OWN_CODE_SECONDS = 120.0  # compiling kite's own test host: no answer's budget, but never a hang
# What an answer's assembly is called in the test host: dotted, so no module name (`module KiteTestHost`, `module
# System`) makes it an assembly the host has loaded already.
ANSWER_ASSEMBLY = "Kite.Answer"
TEST_FILES_KEPT = 256  # test files whose Kite layer a session keeps: a task set's hidden tests


def built_assembly_name(module_name: str) -> str:
    """What `kite build` calls a program's assembly and its file: the module's name, unless the .NET framework ships
    an assembly of that name (`module System`: `dotnet System.dll` would run the framework's), then `<Module>.kite`."""
    from kite.dotnet.runtime import framework_assembly_names

    return f"{module_name}.kite" if module_name.casefold() in framework_assembly_names() else module_name


@dataclass(frozen=True)
class UnitProblem:
    """Why a unit has no result: unusable input (exit 2), or a bug in kite itself (exit 3, traceback kept)."""

    kind: str  # "unusable" or "internal"
    message: str
    traceback: str = ""


@dataclass(frozen=True)
class UnitReport:
    """Everything one unit came to: what the layers found, its tests, its build, or the problem that stopped it."""

    program: str
    check: CheckResult | None = None
    tests: TestReport | None = None
    built: Path | None = None
    problem: UnitProblem | None = None
    skipped: str = ""  # why a command passed over it (a folder's program without tests for `kite test`)

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.check.diagnostics if self.check is not None else ()


@dataclass(frozen=True)
class BuildResult:
    result: CheckResult
    assembly: Path | None  # written only when the program compiles
    pdb: Path | None = None  # a debug build's portable PDB, beside the assembly


@dataclass
class Session:
    """Build one per process (or per batch) and close it; `with Session() as session:`."""

    limits: Limits = field(default_factory=Limits)
    sandboxed: bool = True
    processes_ahead: int = 1
    compile_timeout: float = COMPILE_TIMEOUT_SECONDS  # seconds each Roslyn pass over a unit may take
    compile_memory_mb: int = COMPILE_MEMORY_MB  # RAM the compile process may hold during one
    items: ItemCache | None = None  # a long-lived session's parses of items, kept between checks of the same files

    def __post_init__(self) -> None:
        self._scratch: Path | None = None
        self._pool: ProcessPool | None = None
        # Its methods may run on several threads at once (answers in flight, a server's requests): the compile
        # child and the process pool serialize what must be serialized; this guards what is built on first use.
        self._lock = threading.Lock()
        self._kept_test_files = functools.lru_cache(maxsize=TEST_FILES_KEPT)(test_file_layer)
        self._test_files_lock = threading.Lock()

    def _test_files(self, source: SourceFile) -> tuple[SyntaxResult, tuple[Diagnostic, ...]]:
        """A test file's Kite layer, read once: answers in flight on several threads meet the same hidden tests, and
        lru_cache alone lets each of them miss while the first is still reading."""
        with self._test_files_lock:
            return self._kept_test_files(source)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)
                self._scratch = None

    # ---- the expensive parts, each built on first use

    @property
    def compiler(self):
        """Roslyn and the analyzers in a child process, killed when a unit runs past compile_timeout (KT010).
        One per kite process, shared by its sessions: starting .NET and Roslyn costs seconds."""
        from kite.dotnet.compile_worker import shared_worker

        return shared_worker()

    @functools.cached_property
    def roslyn(self):
        """Roslyn in this process, for raw C# in tests and benchmarks: kite's and the answers' code compile in `compiler`."""
        from kite.dotnet.roslyn import RoslynService

        return RoslynService()

    @property
    def sandbox(self):
        from kite.testing.sandbox import NO_SANDBOX, bubblewrap

        return bubblewrap() if self.sandboxed else NO_SANDBOX

    @property
    def pool(self) -> ProcessPool:
        """The test host, compiled once; its folder is bound read-only into every sandbox."""
        with self._lock:
            if self._pool is None:
                self._pool = self._open_pool()
            return self._pool

    def _open_pool(self) -> ProcessPool:
        from kite.dotnet.own_images import own_image, ready_to_run
        from kite.dotnet.packages import restore
        from kite.dotnet.runtime import write_runtime_config
        from kite.dotnet.stdlib import STDLIB_DLL, does_not_compile, stdlib_text_of

        sandbox = self.sandbox  # refuses before any work when it cannot hold
        self._scratch = readable_folder(Path(tempfile.mkdtemp(prefix="kite-session-")))
        host_dir = readable_folder(self._scratch / "host")
        host_source = stdlib_text_of(HOST_SOURCE)

        def compile_host() -> bytes:
            # In the compile process, which is warm already: this process never has to start .NET for `kite test`.
            image, found = self.compiler.emit("KiteTestHost", [(HOST_SOURCE, host_source)], True, OWN_CODE_SECONDS)
            if image is None:
                raise does_not_compile(HOST_SOURCE, found)
            return image

        stdlib_image = self.compiler.stdlib_image()
        # Keyed by the stdlib too: the host is compiled against the very Kite.Std.dll it runs beside.
        stdlib_digest = hashlib.sha256(stdlib_image).hexdigest()
        packages = restore()
        host_image = own_image(packages, "KiteTestHost", [host_source, stdlib_digest], compile_host)
        # Precompiled: every answer starts the host afresh. The answers still compile against the IL stdlib.
        (host_dir / "KiteTestHost.dll").write_bytes(ready_to_run(packages, "KiteTestHost", host_image, {STDLIB_DLL: stdlib_image}))
        write_runtime_config(host_dir / "KiteTestHost.runtimeconfig.json")
        (host_dir / STDLIB_DLL).write_bytes(ready_to_run(packages, "Kite.Std", stdlib_image, {}))
        for written in host_dir.iterdir():
            written.chmod(0o644)
        from kite.testing.worker import ProcessPool

        return ProcessPool(sandbox, host_dir, self.limits, self.processes_ahead)

    # ---- the stages

    def analyze(self, unit: Unit, through: Layer = Layer.ANALYZERS) -> Analysis:
        """The check through a static layer (Kite's alone, or all three; through the compiler: Kite's layer and the C#
        generated for emit, which says whether it compiles, without the analyzers' pass), each file's module, and
        the C# compiled."""
        through = Layer(through)
        if through not in STATIC_LAYERS:
            raise ValueError(f"{through} is not a static layer: Session.test runs the tests")
        found, syntax, modules = front_end(unit, self._test_files, self.items)
        parsed = tuple(syntax[source.path].module for source in unit.sources)
        if through is Layer.KITE:
            return Analysis(CheckResult(tuple(diag.ordered(found)), (Layer.KITE,)), parsed, None)
        if modules is None:
            stopped_by = next((rule_id for rule_id in ("KT010", "KT000", "KT009") if any(d.id == rule_id for d in found)), "KT000")
            skipped = (f"compiler and analyzers did not run: {NOT_COMPILED[stopped_by]}",)
            return Analysis(CheckResult(tuple(diag.ordered(found)), (Layer.KITE,), skipped), parsed, None)
        generated = generate_unit(unit, modules)
        if through is Layer.COMPILER:  # whether it compiles is all that is asked: emit says so without the analyzers' pass
            return Analysis(CheckResult(tuple(diag.ordered(found)), (Layer.KITE,)), parsed, generated)
        try:
            csharp = self.compiler.check(list(generated.sources), self.compile_timeout, memory_mb=self.compile_memory_mb)
        except CompileTimeout as stopped:
            spent = f"past {stopped.megabytes} MB" if isinstance(stopped, CompileOutOfMemory) else f"after {self.compile_timeout:g} s"
            skipped = (f"compiler and analyzers stopped {spent} (KT010)",)
            return Analysis(CheckResult(tuple(diag.ordered([*found, self._over_budget(unit, modules[0], stopped)])), (Layer.KITE,), skipped),
                            parsed, None)
        # Back from the names #line markers can carry to the files' own names.
        paths = {line_path(source.path): source.path for source in unit.sources}
        csharp = [replace(d, file=paths.get(d.file, d.file) or unit.program.path) for d in csharp]
        return Analysis(CheckResult(tuple(merge(found, csharp, syntax)), STATIC_LAYERS), parsed, generated)

    def check(self, unit: Unit, through: Layer = Layer.ANALYZERS) -> CheckResult:
        return self.analyze(unit, through).result

    def emit(self, unit: Unit, analysis: Analysis, *, entry_point: bool = False) -> Compiled:
        """The assembly of an analyzed unit, for build and test alike; none when any layer found an error."""
        if analysis.result.verdict is diag.Verdict.FAILED or analysis.generated is None:
            return Compiled(analysis.result, None, None)
        parsed = [module for module in analysis.modules if module is not None]  # all of them: the C# layers ran
        # The C# that runs checks its arithmetic; the C# the check compiled does not (codegen.csharp.generate).
        generated = generate_unit(unit, parsed, entry_point=entry_point, running=True)
        assembly = built_assembly_name(generated.module_name) if entry_point else ANSWER_ASSEMBLY
        try:
            image, found = self.compiler.emit(assembly, list(generated.sources), entry_point, self.compile_timeout,
                                              memory_mb=self.compile_memory_mb)
        except CompileTimeout as stopped:
            image, found = None, [self._over_budget(unit, analysis.modules[0], stopped)]
        if image is None:
            failed = CheckResult(tuple(diag.ordered([*analysis.result.diagnostics, *found])), analysis.result.layers_run)
            return Compiled(failed, None, assembly)
        return Compiled(analysis.result, image, assembly)

    def _over_budget(self, unit: Unit, program, stopped: CompileTimeout) -> Diagnostic:
        if isinstance(stopped, CompileOutOfMemory):
            return kt010_compile_budget.took_too_much_memory(unit.program.path, program.line, program.column, stopped.megabytes)
        return kt010_compile_budget.took_too_long(unit.program.path, program.line, program.column, self.compile_timeout)

    def test(self, unit: Unit, hidden: Collection[str] | None = None, timeout_seconds: float | None = None,
             through: Layer = Layer.ANALYZERS, stop_at_failure: bool = False) -> TestReport:
        """Compile the unit, then run its tests in a fresh sandboxed process; with `hidden` (test file paths), only
        their tests decide and the rest are reported apart. `timeout_seconds` (a task's time limit) replaces the
        session's limit for each test of this unit; through=Layer.COMPILER skips the analyzers; `stop_at_failure` leaves
        the tests after a time-out or crash that follows a failure unrun (a mutant: one failure decides it)."""
        analysis = self.analyze(unit, through)
        deciding, own = self.test_cases(unit, analysis, hidden)
        compiled = self.emit(unit, analysis)
        if compiled.image is None:
            outcomes = [TestOutcome(case, "fail", DOES_NOT_COMPILE, 0.0) for case in deciding + own]
        else:
            outcomes = self.run_image(compiled.image, deciding + own, timeout_seconds, stop_at_failure)
        limits = self.limits if timeout_seconds is None else replace(self.limits, timeout_seconds=timeout_seconds)
        return TestReport(unit.program.path, compiled.result, tuple(outcomes[: len(deciding)]), limits,
                          self.sandbox.mode, tuple(outcomes[len(deciding):]), analysis.modules)

    def test_cases(self, unit: Unit, analysis: Analysis, hidden: Collection[str] | None = None) -> tuple[list[TestCase], list[TestCase]]:
        """An analyzed unit's tests: those that decide (all, or the `hidden` files') and the rest."""
        for _, _, message in module_mismatches(unit, list(analysis.modules)):
            raise UnusableInput(message)
        cases = [
            TestCase(test.description, source.path, test.line, module_type_name(module), method)
            for index, (source, module) in enumerate(zip(unit.sources, analysis.modules)) if module is not None
            for test, method in test_methods(module, index)
        ]
        deciding = [case for case in cases if hidden is None or case.file in hidden]
        if not deciding:
            where = "the hidden test files" if hidden is not None else "the program or its test files"
            raise NoTests(f"{unit.program.path}: no tests to run (no test blocks in {where})")
        return deciding, [case for case in cases if case not in deciding]

    def run_image(self, image: bytes, cases: list[TestCase], timeout_seconds: float | None = None,
                  stop_at_failure: bool = False) -> list[TestOutcome]:
        """Run compiled tests (a Kite answer's, or a raw assembly's) in one fresh process."""
        from kite.testing.worker import TestRequest, run_answer

        requests = [TestRequest(case.type_name, case.method) for case in cases]
        results = run_answer(self.pool, image, requests, timeout_seconds, stop_at_failure)
        return [
            TestOutcome(case, raw.status, raw.message, raw.seconds, raw.output, raw.truncated, raw.tampered)
            for case, raw in zip(cases, results)
        ]

    def build(self, unit: Unit, out_dir: Path, *, debug: bool = False, needs_main: bool = True) -> BuildResult:
        """All three static layers, then an assembly that `dotnet OUT/<Module>.dll` runs, entering at fn main.
        `debug`: a debugger's build instead (pipeline.generate_for_debugger, Debug optimization, a portable PDB
        beside it), apart from what grading compiles; `needs_main=False` builds a unit without fn main (its tests)."""
        from kite.dotnet.runtime import write_runtime_config
        from kite.dotnet.stdlib import STDLIB_DLL

        analysis = self.analyze(unit)
        program = analysis.modules[0]  # parsed, unless the check failed
        checked = analysis.result.verdict is not diag.Verdict.FAILED and program is not None
        entry_point = checked and program is not None and has_entry_point(program)
        if checked and needs_main and not entry_point:
            raise UnusableInput(f"{unit.program.path}: no fn main(): kite build needs it as the program's entry point")
        pdb = None
        if not debug:
            compiled = self.emit(unit, analysis, entry_point=True)
        else:
            compiled, pdb = self._emit_for_debugger(unit, analysis, entry_point)
        if compiled.image is None:
            return BuildResult(compiled.result, None)
        name = compiled.assembly_name
        stdlib = self.compiler.stdlib_image()
        staging = None
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            # Written into a fresh folder, then moved: a failure half-way never leaves a mixed build behind.
            staging = Path(tempfile.mkdtemp(prefix=".kite-build-", dir=out_dir))
            (staging / f"{name}.dll").write_bytes(compiled.image)
            if pdb is not None:
                (staging / f"{name}.pdb").write_bytes(pdb)
            (staging / STDLIB_DLL).write_bytes(stdlib)
            write_runtime_config(staging / f"{name}.runtimeconfig.json")
            for produced in staging.iterdir():
                produced.replace(out_dir / produced.name)
        except OSError as error:  # a read-only or full folder: the user's to fix, and nothing of this build is left
            raise UnusableInput(f"{out_dir}: cannot write the build ({error.strerror})") from None
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
        return BuildResult(compiled.result, out_dir / f"{name}.dll", out_dir / f"{name}.pdb" if pdb is not None else None)

    def _emit_for_debugger(self, unit: Unit, analysis: Analysis, entry_point: bool) -> tuple[Compiled, bytes | None]:
        if analysis.result.verdict is diag.Verdict.FAILED or analysis.generated is None:
            return Compiled(analysis.result, None, None), None
        parsed = [module for module in analysis.modules if module is not None]  # all of them: the C# layers ran
        generated = generate_for_debugger(unit, parsed, entry_point=entry_point)
        name = built_assembly_name(generated.module_name)
        try:
            image, found, pdb = self.compiler.emit_with(name, list(generated.sources), entry_point,
                                                        self.compile_timeout, debug=True, memory_mb=self.compile_memory_mb)
        except CompileTimeout as stopped:
            image, found, pdb = None, [self._over_budget(unit, parsed[0], stopped)], None
        if image is None:
            failed = CheckResult(tuple(diag.ordered([*analysis.result.diagnostics, *found])), analysis.result.layers_run)
            return Compiled(failed, None, name), None
        return Compiled(analysis.result, image, name), pdb

    # ---- batches

    def grade(self, source: UnitSource, action: Callable[[Unit], UnitReport]) -> UnitReport:
        """One unit through `action`; what goes wrong with it becomes its report, never the batch's end."""
        try:
            return action(source.read())
        except UnusableInput as error:
            return UnitReport(source.program, problem=UnitProblem("unusable", str(error)))
        except (ToolchainError, KeyboardInterrupt):
            raise
        except Exception as error:  # a bug in kite: this unit's internal error, with its traceback kept
            return UnitReport(source.program, problem=UnitProblem("internal", f"{type(error).__name__}: {error}", traceback.format_exc()))


def readable_folder(path: Path) -> Path:
    """A folder kite writes and the sandbox (running as a user of its own) may only read."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o755)
    return path


def internal_errors(report: UnitReport) -> list[Diagnostic]:
    """KT900 diagnostics: a code-generator bug that reached a unit's output."""
    return [d for d in report.diagnostics if d.id == INTERNAL_ERROR_ID]
