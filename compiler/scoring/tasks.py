"""A task folder: TASKS_DIR/<task_id>/ holds the hidden tests (*.test.kite) and, optionally, task.toml.

task.toml is shared with other tools (prompt, reference solution, ...): only the keys read here are looked at."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from kite.errors import UnusableInput
from kite.pipeline import TEST_SUFFIX
from kite.scoring.fragments import MODULE_LINE
from kite.source import SourceFile, read

# A task id names one folder inside TASKS_DIR: no separators, no "..", nothing hidden.
TASK_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
DEFAULT_MODULE = "Answer"  # the module given to code without a module line when no task names one


@dataclass(frozen=True)
class Task:
    id: str
    module: str
    tests: tuple[SourceFile, ...]  # the hidden tests; paths as "<task_id>/<name>" so results never show local paths


def valid_task_id(task_id: str) -> bool:
    return bool(TASK_ID.match(task_id)) and ".." not in task_id


class TaskFolder:
    """TASKS_DIR, read one task at a time and kept: a run names each task many times."""

    def __init__(self, root: str):
        self.root = Path(root)
        if not self.root.is_dir():
            raise UnusableInput(f"{root}: no such tasks folder")
        self._read: dict[str, Task] = {}

    def exists(self, task_id: str) -> bool:
        return valid_task_id(task_id) and (self.root / task_id).is_dir()

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
        return Task(task_id, self._module(folder, tests), tests)

    @staticmethod
    def _module(folder: Path, tests: tuple[SourceFile, ...]) -> str:
        settings = folder / "task.toml"
        if settings.exists():
            try:
                declared = tomllib.loads(settings.read_text(encoding="utf-8")).get("module")
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
                raise UnusableInput(f"{settings}: not valid TOML ({error})") from None
            if declared is not None:
                if not isinstance(declared, str) or not MODULE_LINE.match(f"module {declared}"):
                    raise UnusableInput(f"{settings}: module must be a module name, like module = \"Shop\"")
                return declared
        found = MODULE_LINE.search(tests[0].text)
        if found is None:
            raise UnusableInput(f"{folder / Path(tests[0].path).name}: no module line, and task.toml names no module")
        return found.group(1)
