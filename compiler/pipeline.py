"""check / build / test as stages over plain data, for the CLI and for batch grading alike."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from pathlib import Path

from kite import diagnostics as diag
from kite.analyze import analyze
from kite.codegen.csharp import UnitSymbols, csharp_path, generate, line_path
from kite.rules import ALL_RULES, kt000_syntax
from kite.syntax.nodes import Module
from kite.diagnostics import Diagnostic
from kite.errors import UnusableInput
from kite.source import SourceFile, read
from kite.syntax.frontend import SyntaxResult, read_syntax

LAYERS = ("kite", "all")
TEST_SUFFIX = ".test.kite"
# What recovery of a leaked line could cause on that line (recovered `var` is `let mut`, maybe never changed).
CASCADES_FROM_LEAKS = frozenset({"KT000", "KT002"})


@dataclass(frozen=True)
class Unit:
    """What compiles together: a program and the test files of its module."""

    program: SourceFile
    tests: tuple[SourceFile, ...] = ()

    @property
    def sources(self) -> tuple[SourceFile, ...]:
        return (self.program, *self.tests)


@dataclass(frozen=True)
class CheckResult:
    diagnostics: tuple[Diagnostic, ...]
    layers_run: tuple[str, ...]  # honest: which layers actually ran
    skipped: tuple[str, ...] = field(default=())  # layers that could not run, and why

    @property
    def verdict(self) -> diag.Verdict:
        return diag.verdict(self.diagnostics)


def collect_files(paths) -> list[Path]:
    """Files as named, and folders as the *.kite files below them (sorted)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(path.rglob("*.kite"))
            if not found:
                raise UnusableInput(f"{raw}: no .kite files in this folder")
            files.extend(found)
        else:
            files.append(path)
    return files


def collect_units(paths: list[str]) -> list[Unit]:
    """Files and folders to units; NAME.test.kite and NAME.kite beside it always go together."""
    files = collect_files(paths)
    programs = [p for p in files if not p.name.endswith(TEST_SUFFIX)]
    tests = [p for p in files if p.name.endswith(TEST_SUFFIX)]
    units = []
    for program in dict.fromkeys(programs):
        companion = program.with_name(program.name.removesuffix(".kite") + TEST_SUFFIX)
        own_tests = [companion] if companion.exists() else []
        units.append(Unit(read(str(program)), tuple(read(str(t)) for t in own_tests)))
    claimed = {unit_test.path for unit in units for unit_test in unit.tests}
    for test in tests:
        if str(test) not in claimed:
            program = test.with_name(test.name.removesuffix(TEST_SUFFIX) + ".kite")
            units.append(Unit(read(str(program)), (read(str(test)),)) if program.exists() else Unit(read(str(test))))
    return units


def kite_layer(source: SourceFile) -> tuple[SyntaxResult, list[Diagnostic]]:
    syntax = read_syntax(source)
    found = list(syntax.diagnostics)
    if syntax.module is not None:
        for d in analyze(syntax.module, source.path):
            if d.line in syntax.replaced_lines:
                continue  # recovery wrote that line, not the user
            if d.line in syntax.leaked_lines and d.id in CASCADES_FROM_LEAKS:
                continue
            found.append(d)
    return syntax, found


SAME_PROBLEM = {rule.RULE.id: rule.RULE.same_as for rule in ALL_RULES}


def merge(kite: list[Diagnostic], csharp: list[Diagnostic], syntax: dict[str, SyntaxResult]) -> list[Diagnostic]:
    """One diagnostic per problem: Kite's line wins over the compiler's word for the same thing."""
    kept = list(kite)
    for d in csharp:
        result = syntax.get(d.file)
        if result is not None and (d.line in result.leaked_lines or d.line in result.replaced_lines):
            continue  # recovery's guess at a leaked line is not the user's code
        if any(k.file == d.file and k.line == d.line and d.id in SAME_PROBLEM.get(k.id, ()) for k in kite):
            continue
        kept.append(d)
    return diag.ordered(kept)


@dataclass(frozen=True)
class Generated:
    """A unit's C#: (C# path, text) per file, and the modules it came from."""

    sources: tuple[tuple[str, str], ...]
    module_name: str


def generate_unit(unit: Unit, modules: list[Module], *, entry_point: bool = False) -> Generated:
    symbols = UnitSymbols.of(modules, [source.path for source in unit.sources])
    sources = tuple(
        (csharp_path(source.path), generate(module, source.path, symbols, file_index=index, entry_point=entry_point and index == 0))
        for index, (source, module) in enumerate(zip(unit.sources, modules))
    )
    return Generated(sources, modules[0].name)


def module_mismatches(unit: Unit, modules: list[Module | None]):
    """Test files that declare another module than the program they are meant to test."""
    program = modules[0]
    for source, module in zip(unit.tests, modules[1:]):
        if program is not None and module is not None and module.name != program.name:
            yield source, module, f"this test file is for module '{module.name}', but {unit.program.path} is module '{program.name}'"


@dataclass(frozen=True)
class Analysis:
    result: CheckResult
    modules: tuple[Module | None, ...]  # per file, None where it did not parse
    generated: Generated | None  # the C# the check compiled; None when the C# layers did not run


@dataclass(frozen=True)
class Compiled:
    result: CheckResult  # the check, plus what emitting found
    image: bytes | None  # the assembly; None unless every layer passed
    module_name: str | None


class Checker:
    """One per process: the expensive parts (Roslyn, the stdlib) are built on first use and reused."""

    def __init__(self, layer: str = "all"):
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}")
        self.layer = layer

    @functools.cached_property
    def roslyn(self):
        from kite.dotnet.roslyn import RoslynService

        return RoslynService()

    @functools.cached_property
    def stdlib(self):
        from kite.dotnet.stdlib import compile_stdlib

        return compile_stdlib(self.roslyn)

    def front_end(self, unit: Unit) -> tuple[list[Diagnostic], dict[str, SyntaxResult], list[Module] | None]:
        """Kite's layer over every file; the modules, if the C# layer can run on them."""
        found: list[Diagnostic] = []
        syntax: dict[str, SyntaxResult] = {}
        for source in unit.sources:
            result, diagnostics = kite_layer(source)
            syntax[source.path] = result
            found.extend(diagnostics)
        modules = [syntax[source.path].module for source in unit.sources]
        for source, module, message in module_mismatches(unit, modules):
            found.append(kt000_syntax.RULE.at(source.path, module.line, module.column, message))
        complete = all(result.complete for result in syntax.values()) and not any(d.id == "KT000" for d in found)
        return found, syntax, (modules if complete else None)

    def check(self, unit: Unit) -> CheckResult:
        return self.analyze(unit).result

    def analyze(self, unit: Unit) -> Analysis:
        """The check, each file's module as parsed, and the C# the check compiled."""
        found, syntax, modules = self.front_end(unit)
        parsed = tuple(syntax[source.path].module for source in unit.sources)
        if self.layer == "kite":
            return Analysis(CheckResult(tuple(diag.ordered(found)), ("kite",)), parsed, None)
        if modules is None:
            skipped = ("compiler and analyzers did not run: the unit has syntax errors (KT000)",)
            return Analysis(CheckResult(tuple(diag.ordered(found)), ("kite",), skipped), parsed, None)
        generated = generate_unit(unit, modules)
        csharp = self.roslyn.check(list(generated.sources), [self.stdlib.reference])
        # Back from the names #line markers can carry to the files' own names.
        paths = {line_path(source.path): source.path for source in unit.sources}
        csharp = [dataclasses.replace(d, file=paths.get(d.file, d.file) if d.file else unit.program.path) for d in csharp]
        return Analysis(CheckResult(tuple(merge(found, csharp, syntax)), ("kite", "compiler", "analyzers")), parsed, generated)

    def emit(self, unit: Unit, analysis: Analysis, *, entry_point: bool = False) -> Compiled:
        """The assembly of an analyzed unit, for build and test alike; none when any layer found an error."""
        if analysis.result.verdict is diag.Verdict.FAILED or analysis.generated is None:
            return Compiled(analysis.result, None, None)
        generated = generate_unit(unit, list(analysis.modules), entry_point=True) if entry_point else analysis.generated
        emitted = self.roslyn.emit(generated.module_name, list(generated.sources), [self.stdlib.reference], executable=entry_point)
        if emitted.image is None:
            failed = CheckResult(tuple(diag.ordered([*analysis.result.diagnostics, *emitted.diagnostics])), analysis.result.layers_run)
            return Compiled(failed, None, generated.module_name)
        return Compiled(analysis.result, emitted.image, generated.module_name)


@dataclass(frozen=True)
class BuildResult:
    result: CheckResult
    assembly: Path | None  # written only when the program compiles


def has_entry_point(module: Module) -> bool:
    from kite.syntax import nodes as n

    return any(isinstance(item, n.FnDecl) and item.name == "main" and not item.params for item in module.items)


def build(checker: Checker, unit: Unit, out_dir: Path) -> BuildResult:
    """All three static layers, then an assembly that `dotnet OUT/<Module>.dll` runs, entering at fn main."""
    import shutil
    import tempfile

    from kite.dotnet.runtime import write_runtime_config

    analysis = checker.analyze(unit)
    if analysis.result.verdict is not diag.Verdict.FAILED and not has_entry_point(analysis.modules[0]):
        raise UnusableInput(f"{unit.program.path}: no fn main(): kite build needs it as the program's entry point")
    compiled = checker.emit(unit, analysis, entry_point=True)
    if compiled.image is None:
        return BuildResult(compiled.result, None)
    out_dir.mkdir(parents=True, exist_ok=True)
    # Written into a fresh folder, then moved: a failure half-way never leaves a mixed build behind.
    staging = Path(tempfile.mkdtemp(prefix=".kite-build-", dir=out_dir))
    try:
        name = compiled.module_name
        (staging / f"{name}.dll").write_bytes(compiled.image)
        (staging / "KiteStd.dll").write_bytes(checker.stdlib.image)
        write_runtime_config(staging / f"{name}.runtimeconfig.json")
        for produced in staging.iterdir():
            produced.replace(out_dir / produced.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return BuildResult(compiled.result, out_dir / f"{name}.dll")
