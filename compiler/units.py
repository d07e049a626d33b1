"""Where a batch's Kite files are, before anything is read: files and folders to files (`kite_files`), and to units
(`find_units`: a program and the test files of its module). Below the pipeline, so a command that only reads files
(graph, find, fmt) does not import code generation and the rules to find them."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from kite.errors import UnusableInput
from kite.source import SourceFile, read

TEST_SUFFIX = ".test.kite"


@dataclass(frozen=True)
class Unit:
    """What compiles together: a program and the test files of its module."""

    program: SourceFile
    tests: tuple[SourceFile, ...] = ()

    @property
    def sources(self) -> tuple[SourceFile, ...]:
        return (self.program, *self.tests)


@dataclass(frozen=True)
class UnitSource:
    """Where a unit's files are, before anything is read: reading is each unit's own business in a batch."""

    program: str
    tests: tuple[str, ...] = ()
    found_in_folder: bool = False  # named through a folder, not by the user
    problem: str = ""  # why the path cannot be a unit (a folder with no .kite file, or one that cannot be read)

    def read(self) -> Unit:
        if self.problem:
            raise UnusableInput(self.problem)
        return Unit(read(self.program), tuple(read(test) for test in self.tests))


def kite_files(paths, problems: list[UnitSource] | None = None) -> list[Path]:
    """Files as named, and folders as the *.kite files below them (sorted). A folder that holds none, or one that
    cannot be read (a subfolder too), is unusable input: raised, or with `problems` each kept there as a unit of its
    own (read() says what is wrong) while the other paths are still found."""
    files: list[Path] = []

    def unusable(message: str, path: str) -> None:
        if problems is None:
            raise UnusableInput(message)
        problems.append(UnitSource(path, problem=message))

    for raw in paths:
        path = Path(raw)
        # os.path's tests say False where pathlib's raise (a name too long, a folder that cannot be searched), so one
        # such path is its unit's one line (read() says why) and the batch goes on.
        if not os.path.isdir(path):
            files.append(path)
            continue
        found: list[Path] = []
        unreadable: list[OSError] = []
        for folder, _subfolders, names in os.walk(path, onerror=unreadable.append):
            found.extend(Path(folder, name) for name in names if name.endswith(".kite"))
        for error in unreadable:
            unusable(f"{error.filename}: cannot read this folder ({error.strerror})", str(error.filename))
        if not found and not unreadable:
            unusable(f"{raw}: no .kite files in this folder", str(raw))
        files.extend(sorted(found))
    return files


def find_units(paths: list[str]) -> list[UnitSource]:
    """Files and folders to units; NAME.test.kite and NAME.kite beside it always go together, and a test file with no
    NAME.kite goes with the one program of its folder when there is one. Nothing is read."""
    named = {str(Path(raw)) for raw in paths if not os.path.isdir(raw)}
    problems: list[UnitSource] = []
    files = kite_files(paths, problems)
    programs = [p for p in files if not p.name.endswith(TEST_SUFFIX)]
    tests = [p for p in files if p.name.endswith(TEST_SUFFIX)]
    units = []
    for program in dict.fromkeys(programs):
        companion = program.with_name(program.name.removesuffix(".kite") + TEST_SUFFIX)
        own_tests = (str(companion),) if os.path.exists(companion) else ()
        units.append(UnitSource(str(program), own_tests, str(program) not in named))
    claimed = {test for unit in units for test in unit.tests}
    for test in dict.fromkeys(tests):
        if str(test) not in claimed:
            program = test.with_name(test.name.removesuffix(TEST_SUFFIX) + ".kite")
            beside = [index for index, unit in enumerate(units) if Path(unit.program).parent == test.parent]
            if not os.path.exists(program) and len(beside) == 1:  # the folder's one program (a task's augmented.test.kite)
                units[beside[0]] = dataclasses.replace(units[beside[0]], tests=(*units[beside[0]].tests, str(test)))
                continue
            unit = UnitSource(str(program), (str(test),)) if os.path.exists(program) else UnitSource(str(test))
            units.append(dataclasses.replace(unit, found_in_folder=str(test) not in named))
    return units + problems
