"""A task folder: TASKS_DIR/<task_id>/ holds the prompt (prompt.md), the reference solution (solution.kite), the hidden
tests (*.test.kite) and, optionally, task.toml (module, time_limit, tags). docs/tasks.md documents the format.

`kite score --tasks` needs only the hidden tests; `kite tasks check` requires the rest. Unknown keys in task.toml are
left to other tools."""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from kite.errors import UnusableInput
from kite.scoring import signatures
from kite.scoring.fragments import MODULE_LINE
from kite.source import MAX_SOURCE_BYTES, SourceFile, decode, read, read_regular, reading_errors
from kite.syntax.frontend import read_syntax
from kite.units import TEST_SUFFIX

# A task id names one folder inside TASKS_DIR: no separators, no "..", nothing hidden.
TASK_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
DEFAULT_MODULE = "Answer"  # the module given to code without a module line when no task names one
PROMPT = "prompt.md"
SOLUTION = "solution.kite"
SETTINGS = "task.toml"
AUGMENTED = "augmented.test.kite"  # hidden tests `kite tasks augment --write` made; read like any other test file
MAX_TIME_LIMIT = 600.0  # seconds, as `kite test --timeout` allows


@dataclass(frozen=True)
class Task:
    id: str
    module: str
    tests: tuple[SourceFile, ...]  # the hidden tests; paths as "<task_id>/<name>" so results never show local paths
    prompt: str | None = None  # prompt.md's text, when there is one
    solution: SourceFile | None = None  # the reference solution, when there is one
    time_limit: float | None = None  # seconds each hidden test may run; None: the command's default
    tags: tuple[str, ...] = ()
    # (name, shape) of each declaration of the solution the hidden tests reach: an answer must keep them (signatures)
    signatures: tuple[tuple[str, str], ...] = ()


def is_augmented(path: str) -> bool:
    """A hidden test file `kite tasks augment` wrote (its tests are counted apart by kite score)."""
    return Path(path).name == AUGMENTED


def valid_task_id(task_id: str) -> bool:
    return bool(TASK_ID.match(task_id)) and ".." not in task_id


class TaskFolder:
    """TASKS_DIR, read one task at a time and kept: a run names each task many times."""

    def __init__(self, root: str):
        self.root = Path(root)
        if not os.path.isdir(root):  # False, where pathlib raises, for a name too long or behind a folder not searchable
            raise UnusableInput(f"{root}: no such tasks folder")
        with reading_errors(root, "a tasks folder"):  # one line now, not an error in every answer's grading
            self.listed = os.listdir(root)
        self._read: dict[str, Task] = {}

    def exists(self, task_id: str) -> bool:
        return valid_task_id(task_id) and os.path.isdir(self.root / task_id)

    def task_ids(self) -> list[str]:
        """Every task folder, sorted: the order every report and every seeded choice follows."""
        found = sorted(name for name in self.listed if valid_task_id(name) and os.path.isdir(self.root / name))
        if not found:
            raise UnusableInput(f"{self.root}: no task folders in this tasks folder")
        return found

    def task(self, task_id: str) -> Task:
        if task_id not in self._read:
            self._read[task_id] = self._load(task_id)
        return self._read[task_id]

    def _load(self, task_id: str) -> Task:
        folder = self.root / task_id
        tests = tuple(
            SourceFile(f"{task_id}/{path.name}", read(str(path)).text) for path in sorted(folder.glob(f"*{TEST_SUFFIX}"))
        )
        if not tests:
            raise UnusableInput(f"{folder}: no hidden tests (*{TEST_SUFFIX}) in this task folder")
        settings = _settings(folder / SETTINGS)
        prompt = read(str(folder / PROMPT)).text if (folder / PROMPT).exists() else None
        solution = SourceFile(f"{task_id}/{SOLUTION}", read(str(folder / SOLUTION)).text) if (folder / SOLUTION).exists() else None
        return Task(task_id, _module(folder, settings, tests), tests, prompt, solution, _time_limit(folder, settings),
                    _tags(folder, settings), _signatures(solution, tests))


def _signatures(solution: SourceFile | None, tests: tuple[SourceFile, ...]) -> tuple[tuple[str, str], ...]:
    if solution is None:
        return ()
    return signatures.expected(read_syntax(solution).module, [read_syntax(test).module for test in tests])


def _settings(path: Path) -> dict:
    if not path.exists():
        return {}
    data = read_regular(str(path), "a TOML file", MAX_SOURCE_BYTES)  # a FIFO would block a plain read for good
    try:
        return tomllib.loads(decode(str(path), data).text)  # an empty task.toml is allowed: nothing to say
    except tomllib.TOMLDecodeError as error:
        raise UnusableInput(f"{path}: not valid TOML ({error})") from None


def _module(folder: Path, settings: dict, tests: tuple[SourceFile, ...]) -> str:
    declared = settings.get("module")
    if declared is not None:
        if not isinstance(declared, str) or not MODULE_LINE.match(f"module {declared}"):
            raise UnusableInput(f"{folder / SETTINGS}: module must be a module name, like module = \"Shop\"")
        return declared
    found = MODULE_LINE.search(tests[0].text)
    if found is None:
        raise UnusableInput(f"{folder / Path(tests[0].path).name}: no module line, and {SETTINGS} names no module")
    return found.group(1)


def _time_limit(folder: Path, settings: dict) -> float | None:
    limit = settings.get("time_limit")
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not math.isfinite(limit) or not 0.1 <= limit <= MAX_TIME_LIMIT:
        raise UnusableInput(f"{folder / SETTINGS}: time_limit must be seconds each test may run, from 0.1 to {MAX_TIME_LIMIT:g}")
    return float(limit)


def _tags(folder: Path, settings: dict) -> tuple[str, ...]:
    tags = settings.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise UnusableInput(f"{folder / SETTINGS}: tags must be a list of strings, like tags = [\"loops\"]")
    return tuple(tags)
