"""`kite new NAME`: a program a newcomer can run at once, with its tests and a README line; with `task=True` a task
folder in docs/tasks.md's format instead (prompt, reference solution, hidden tests, task.toml)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from kite.atomic import write_atomically
from kite.errors import UnusableInput

NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def module_name(name: str) -> str:
    """`word_count` and `word-count` are module `WordCount`."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[_-]+", name) if part)


def program_files(name: str) -> dict[str, str]:
    module = module_name(name)
    return {
        f"{name}.kite": (f"# `kite run {name}.kite` runs it; `kite test {name}.kite` runs its tests.\n"
                         f"module {module}\n\nfn greeting(who: str) -> str\n    return \"hello, \" + who\n\n"
                         "fn main()\n    print(greeting(\"kite\"))\n"),
        f"{name}.test.kite": (f"module {module}\n\ntest \"greeting says hello\"\n"
                              "    expect greeting(\"kite\") == \"hello, kite\"\n"),
        "README.md": (f"# {name}\n\n`kite run {name}.kite` runs it, `kite test {name}.kite` runs its tests, "
                      "`kite check` checks every file here.\n"),
    }


def task_files(name: str) -> dict[str, str]:
    module = module_name(name)
    return {
        "prompt.md": f"Write `greeting(who: str) -> str` in module `{module}`: \"hello, \" followed by `who`.\n",
        "solution.kite": f"module {module}\n\nfn greeting(who: str) -> str\n    return \"hello, \" + who\n",
        "solution.test.kite": (f"module {module}\n\ntest \"greeting says hello\"\n"
                               "    expect greeting(\"kite\") == \"hello, kite\"\n"
                               "    expect greeting(\"\") == \"hello, \"\n"),
        "task.toml": f"module = \"{module}\"\ntime_limit = 1\ntags = [\"strings\"]\n",
    }


def scaffold(name: str, parent: Path, task: bool = False) -> list[Path]:
    """Write the new folder `parent/name` and return its files; never over anything that exists."""
    if not NAME.fullmatch(name):
        raise UnusableInput(f"{name!r}: not a name for a program (a letter, then letters, digits, _ or -)")
    folder = parent / name
    try:
        if os.path.lexists(folder):  # a link too: nothing is written through it
            raise UnusableInput(f"{folder}: already exists; kite new writes only a new folder")
        folder.mkdir(parents=True)
        written = []
        for file, text in (task_files(name) if task else program_files(name)).items():
            write_atomically(folder / file, text.encode())
            written.append(folder / file)
    except OSError as error:
        raise UnusableInput(f"{folder}: cannot write ({error.strerror})") from None
    return written
