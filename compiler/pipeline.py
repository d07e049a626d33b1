"""check / build / test as stages over plain data, for the CLI and for batch grading alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kite import diagnostics as diag
from kite.analyze import analyze
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


def collect_units(paths: list[str]) -> list[Unit]:
    """Files and folders (*.kite, recursively) to units; a *.test.kite joins the program beside it."""
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
    programs = [p for p in files if not p.name.endswith(TEST_SUFFIX)]
    tests = [p for p in files if p.name.endswith(TEST_SUFFIX)]
    units = []
    for program in dict.fromkeys(programs):
        companion = program.with_name(program.name.removesuffix(".kite") + TEST_SUFFIX)
        own_tests = [t for t in tests if t == companion]
        units.append(Unit(read(str(program)), tuple(read(str(t)) for t in own_tests)))
    claimed = {unit_test.path for unit in units for unit_test in unit.tests}
    for test in tests:
        if str(test) not in claimed:
            units.append(Unit(read(str(test))))
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


class Checker:
    """One per process: the expensive parts (Roslyn, the stdlib) are built on first use and reused."""

    def __init__(self, layer: str = "all"):
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}")
        self.layer = layer

    def check(self, unit: Unit) -> CheckResult:
        found: list[Diagnostic] = []
        for source in unit.sources:
            _, diagnostics = kite_layer(source)
            found.extend(diagnostics)
        return CheckResult(tuple(diag.ordered(found)), ("kite",))
