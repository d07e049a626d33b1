"""kite score numbers: answers per second with the static layers alone and with hidden tests, --jobs 1 and 2, against
a loop of `kite test` processes over the same answers; and the peak RSS of a long run.

Every answer is a different program (no verdict is reused); N answers over T tasks, 4 hidden tests each. The loop of
processes is timed over a sample of the answers (one process costs seconds) and its rate quoted per answer.

    .venv/bin/python benchmarks/score.py [--answers 1000] [--tasks 50] [--loop 20] [--rss-answers 5000]

Targets (issue 12): static >= 25 answers/s; with tests >= 10 answers/s; >= 30x the loop; peak RSS < 1 GB per process.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = ["expect add(1, 2) == 3", "expect add(-1, -2) == -3", "expect add(0, 0) == 0", "expect add(2, 2) == 4"]


def make_run(folder: Path, answers: int, tasks: int) -> Path:
    for task in range(tasks):
        task_dir = folder / "tasks" / f"t{task:03d}"
        task_dir.mkdir(parents=True)
        hidden = "\n\n".join(f'test "hidden {i}"\n    {expectation}' for i, expectation in enumerate(TESTS))
        (task_dir / "hidden.test.kite").write_text(f"module Task{task}\n\n{hidden}\n")
    run = folder / "run.jsonl"
    with open(run, "w") as lines:
        for n in range(answers):
            code = f"module Task{n % tasks}\n\nfn add(a: int, b: int) -> int\n    return a + b + {n} - {n}\n"
            text = f"Here is my answer {n}:\n\n```kite\n{code}```\n\nIt compiles and passes the tests."
            lines.write(json.dumps({"id": n, "task_id": f"t{n % tasks:03d}", "text": text}) + "\n")
    return run


def kite_score(folder: Path, run: Path, *extra: str) -> float:
    """Answers per second of one `kite score` process, start-up included."""
    with open(run) as lines:
        answers = sum(1 for _ in lines)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kite.cli.main", "score", str(run), "--field", "text", "--out", str(folder / "out.jsonl"), *extra],
                   check=True, capture_output=True)
    return answers / (time.perf_counter() - start)


def loop_of_processes(folder: Path, run: Path, sample: int, warm_server: bool) -> float:
    """Answers per second of one `kite test` process per answer (the harness a user would write): each one cold, or
    each one a client of the warm server (kite server)."""
    environment = {**os.environ, "KITE_NO_SERVER": "0" if warm_server else "1"}
    start = time.perf_counter()
    with open(run) as lines:
        for _, line in zip(range(sample), lines):
            answer = json.loads(line)
            program = folder / "answer.kite"
            program.write_text(answer["text"].split("```kite\n")[1].split("```")[0])
            subprocess.run([sys.executable, "-m", "kite.cli.main", "test", str(program), "--tests", str(folder / "tasks" / answer["task_id"])],
                           capture_output=True, env=environment, check=False)
    return sample / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answers", type=int, default=1000)
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--loop", type=int, default=20, help="answers timed through the loop of kite test processes")
    parser.add_argument("--rss-answers", type=int, default=5000, help="answers of the run whose peak RSS is measured")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kite-score-bench-") as name:
        folder = Path(name)
        run = make_run(folder, args.answers, args.tasks)
        tasks = str(folder / "tasks")
        static = kite_score(folder, run)
        tested_1 = kite_score(folder, run, "--tasks", tasks, "--jobs", "1")
        tested_2 = kite_score(folder, run, "--tasks", tasks, "--jobs", "2")
        loop = loop_of_processes(folder, run, args.loop, warm_server=False)
        served_loop = loop_of_processes(folder, run, args.loop, warm_server=True)
        print(f"answers {args.answers} over {args.tasks} tasks, {len(TESTS)} hidden tests each")
        print(f"static layers, --jobs 1          {static:8.1f} answers/s   (target >= 25)")
        print(f"with hidden tests, --jobs 1      {tested_1:8.1f} answers/s   (target >= 10)")
        print(f"with hidden tests, --jobs 2      {tested_2:8.1f} answers/s")
        print(f"loop of cold kite test processes {loop:8.2f} answers/s   (over {args.loop} answers, --no-server)")
        print(f"loop through the warm server     {served_loop:8.2f} answers/s   (over {args.loop} answers)")
        print(f"kite score --jobs 1 / cold loop  {tested_1 / loop:8.1f} x         (target >= 30)")
        print(f"kite score --jobs 1 / warm loop  {tested_1 / served_loop:8.1f} x")
    with tempfile.TemporaryDirectory(prefix="kite-score-rss-") as name:
        folder = Path(name)
        run = make_run(folder, args.rss_answers, args.tasks)
        kite_score(folder, run, "--tasks", str(folder / "tasks"), "--jobs", "2")
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"peak RSS of any process, {args.rss_answers} answers with tests, --jobs 2: {peak_mb:.0f} MB   (target < 1024)")


if __name__ == "__main__":
    main()
