"""kite score numbers: answers per second with the static layers alone and with hidden tests, --jobs 1 and 2, against
a loop of `kite test` processes over the same answers; and the peak RSS of a long run.

Every answer is a different program (no verdict is reused); N answers over T tasks, 4 hidden tests each. The loop of
processes is timed over a sample of the answers (one process costs seconds) and its rate quoted per answer.

    .venv/bin/python benchmarks/score.py [--answers 1000] [--tasks 50] [--loop 20] [--rss-answers 5000]
    .venv/bin/python benchmarks/score.py --breakdown 40     # only where one answer's time goes

CPU time per answer (user + sys of kite and every process it starts, in a cgroup where one can be made) is printed
beside each rate: on a shared machine it says what two idle cores would give.

Targets (issue 12): static >= 25 answers/s; with tests >= 10 answers/s; >= 30x the loop; peak RSS < 1 GB per process.
Issue 26: with hidden tests >= 20 answers/s on two cores; `--breakdown` says where an answer's time goes (reading
the answer in Python, the compile process, the sandboxed test process that starts .NET for each answer) and so how
close a run is to the floor of one .NET start per answer.
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


class CpuAccount:
    """CPU time (user + sys) of a command and everything it starts, in a cgroup of its own: rusage misses the
    sandboxed test hosts, whose parent inside the sandbox is killed, never waited for. None where no cgroup can be
    made (not root): then rusage's count, a lower bound."""

    ROOTS = (Path("/sys/fs/cgroup/cpuacct"), Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup"))

    def __init__(self):
        self.group = None
        for root in self.ROOTS:
            group = root / f"kite-bench-{os.getpid()}-{time.monotonic_ns()}"
            try:
                group.mkdir()
            except OSError:
                continue
            if (group / "cpuacct.usage").exists() or (group / "cpu.stat").exists():
                self.group = group
                break
            group.rmdir()
        self.rusage_before = self._rusage()

    @staticmethod
    def _rusage() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def enter(self) -> None:  # in the child, before exec
        if self.group is not None:
            (self.group / "cgroup.procs").write_text(str(os.getpid()))  # every thread (cgroup v1's `tasks`: one)

    def leave(self) -> None:  # this process, back where it was
        if self.group is not None:
            (self.group.parent / "cgroup.procs").write_text(str(os.getpid()))

    def seconds(self) -> tuple[float, str]:
        if self.group is None:
            return self._rusage() - self.rusage_before, "rusage: misses the sandboxed test hosts"
        if (self.group / "cpuacct.usage").exists():
            used = int((self.group / "cpuacct.usage").read_text()) / 1e9
        else:
            used = int((self.group / "cpu.stat").read_text().split()[1]) / 1e6  # usage_usec
        for _ in range(50):  # the last killed processes leave it a moment later
            try:
                self.group.rmdir()
                break
            except OSError:
                time.sleep(0.1)
        return used, "cgroup: kite and every process it started"


def kite_score(folder: Path, run: Path, *extra: str) -> float:
    """Answers per second of one `kite score` process, start-up included; prints its CPU time per answer."""
    with open(run) as lines:
        answers = sum(1 for _ in lines)
    account = CpuAccount()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kite.cli.main", "score", str(run), "--field", "text", "--out", str(folder / "out.jsonl"), *extra],
                   check=True, capture_output=True, preexec_fn=account.enter)
    wall = time.perf_counter() - start
    cpu, how = account.seconds()
    print(f"  kite score {' '.join(extra) or '(static)'}: {wall:.1f} s wall, {cpu:.1f} s CPU = {1000 * cpu / answers:.0f} ms CPU per answer "
          f"({how}); two idle cores would give {2 * answers / cpu:.1f} answers/s", file=sys.stderr)
    return answers / wall


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


def breakdown(count: int, tasks: int) -> None:
    """One answer's time, part by part, in this process and one at a time (no overlap): the floor a run on two
    cores can reach is about two answers per (compile + tests) time when every other part overlaps."""
    from kite.pipeline import Unit
    from kite.scoring.grading import assemble, prepare
    from kite.scoring.tasks import TaskFolder
    from kite.session import Session
    from kite.source import SourceFile

    with tempfile.TemporaryDirectory(prefix="kite-score-parts-") as name:
        folder = Path(name)
        run = make_run(folder, count + 1, tasks)
        task_folder = TaskFolder(str(folder / "tasks"))
        rows = [json.loads(line) for line in run.read_text().splitlines()]
        parts = {"read (extract, fragments, claims, slop)": 0.0, "compile (static layers, with the tests)": 0.0,
                 "hidden tests (sandboxed process: .NET start + run)": 0.0}
        with Session() as session:
            first = rows[0]  # warms the compile process and the standard library: not counted
            session.test(Unit(SourceFile("answer.kite", first["text"].split("```kite\n")[1].split("```")[0]),
                              task_folder.task(first["task_id"]).tests))
            start_all = time.perf_counter()
            for row in rows[1:]:
                task = task_folder.task(row["task_id"])
                start = time.perf_counter()
                prepared = prepare(1, row["id"], row["text"], task, "kite", "dotnet", None)
                assemble(prepared, {"reason": "", "tests": [], "own_tests": [], "tampered": False, "limits": None, "diagnostics": [],
                                    "layers_run": [], "skipped": [], "applies": {}})
                parts["read (extract, fragments, claims, slop)"] += time.perf_counter() - start
                unit = Unit(SourceFile("answer.kite", prepared.request.text), task.tests)
                start = time.perf_counter()
                session.analyze(unit)
                compiled = time.perf_counter() - start
                start = time.perf_counter()
                session.test(unit, hidden={test.path for test in task.tests})
                tested = time.perf_counter() - start
                parts["compile (static layers, with the tests)"] += compiled
                parts["hidden tests (sandboxed process: .NET start + run)"] += max(0.0, tested - compiled)
            whole = time.perf_counter() - start_all
            # The floor: the test host alone (bubblewrap, a .NET start, the answer's tests), one per answer. The
            # compile process started before the account: only this process and the test hosts are in it.
            account = CpuAccount()
            account.enter()
            own = time.process_time()
            for _ in range(count):
                session.test(unit, hidden={test.path for test in task.tests})
            own = time.process_time() - own
            account.leave()
            session.close()  # the process kept ahead is counted too: one per answer
            host_cpu, how = account.seconds()
    per_answer = {name: 1000 * seconds / count for name, seconds in parts.items()}
    print(f"where one answer's time goes ({count} answers, one at a time, warm session):")
    for name, ms in per_answer.items():
        print(f"  {name:52} {ms:7.1f} ms")
    serial = sum(per_answer.values())
    print(f"  {'sum':52} {serial:7.1f} ms  -> {1000 / serial:5.1f} answers/s on one core, no overlap")
    print(f"  (the loop above took {whole:.1f} s, the compile is counted twice in it: once alone, once inside the test)")
    floor = per_answer["hidden tests (sandboxed process: .NET start + run)"]
    print(f"  floor with two cores if only the test process (one .NET start per answer) remained: {2000 / floor:5.1f} answers/s")
    if account.group is not None:
        host_ms = 1000 * (host_cpu - own) / count
        print(f"  CPU of one answer's test host (bubblewrap, .NET start, its tests; {how}): {host_ms:.0f} ms"
              f"  -> the floor on two idle cores: {2000 / host_ms:.1f} answers/s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--breakdown", type=int, default=0, help="only time N answers part by part")
    parser.add_argument("--answers", type=int, default=1000)
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--loop", type=int, default=20, help="answers timed through the loop of kite test processes")
    parser.add_argument("--rss-answers", type=int, default=5000, help="answers of the run whose peak RSS is measured")
    args = parser.parse_args()
    if args.breakdown:
        breakdown(args.breakdown, args.tasks)
        return
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
        print(f"with hidden tests, --jobs 2      {tested_2:8.1f} answers/s   (target >= 20, issue 26)")
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
