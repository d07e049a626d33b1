"""kite tasks mutate numbers: mutants per second on samples/tasks in one process through the session core, against
`kite test` run once per mutant (the loop a user would write: write the mutant, run a process, read the exit code).

The loop is timed over a sample of the mutants (one process costs seconds) and its rate quoted per mutant. Both sides
run the same mutants; time-outs cost the same on both (the tasks' time limit), so the loop's sample skips none.

    .venv/bin/python benchmarks/tasks.py [--tasks samples/tasks] [--loop 15]

Target (issue 16): the session >= 20x the loop of processes.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kite.scoring.tasks import TaskFolder
from kite.session import Session
from kite.syntax.frontend import read_syntax
from kite.tasks import DEFAULT_MAX_MUTANTS
from kite.tasks.mutants import mutants, sample
from kite.tasks.mutation import mutate_tasks


def in_one_session(root: str) -> tuple[int, float]:
    """Mutants run and seconds, session start-up included: `kite tasks mutate` without the printing."""
    start = time.perf_counter()
    with Session() as session:
        measured = mutate_tasks(session, TaskFolder(root))
    return sum(len(task.results) for task in measured), time.perf_counter() - start


def loop_of_processes(root: str, count: int) -> float:
    """Mutants per second of one `kite test PROGRAM --tests TASK` process per mutant, over the first `count` mutants of
    the tasks in turn."""
    folder = TaskFolder(root)
    chosen = []
    for task_id in folder.task_ids():
        task = folder.task(task_id)
        found = mutants(task.solution.text, read_syntax(task.solution))
        chosen += [(task, mutant) for mutant in sample(found, DEFAULT_MAX_MUTANTS, f"0:{task_id}")]
    step = max(1, len(chosen) // count)
    picked = chosen[::step][:count]
    with tempfile.TemporaryDirectory(prefix="kite-tasks-bench-") as name:
        program = Path(name) / "solution.kite"
        start = time.perf_counter()
        for task, mutant in picked:
            program.write_text(mutant.text)
            tests = [str(Path(root) / test.path) for test in task.tests]
            subprocess.run([sys.executable, "-m", "kite.cli.main", "test", str(program), *(f"--tests={t}" for t in tests),
                            "--timeout", str(task.time_limit or 5.0)], capture_output=True, check=False)
        return len(picked) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default="samples/tasks")
    parser.add_argument("--loop", type=int, default=15, help="mutants timed through the loop of kite test processes")
    args = parser.parse_args()
    count, seconds = in_one_session(args.tasks)
    session_rate = count / seconds
    loop_rate = loop_of_processes(args.tasks, args.loop)
    print(f"{count} mutants over {len(TaskFolder(args.tasks).task_ids())} tasks ({args.tasks})")
    print(f"one session (kite tasks mutate)   {session_rate:8.2f} mutants/s   ({seconds:.1f} s in all)")
    print(f"kite test once per mutant         {loop_rate:8.2f} mutants/s   ({args.loop} mutants)")
    print(f"speed-up                          {session_rate / loop_rate:8.1f}x       (target >= 20x)")


if __name__ == "__main__":
    main()
