"""kite score numbers: answers per second with the static layers alone and with hidden tests, --jobs 1 and 2, against
a loop of `kite test` processes over the same answers; and the peak RSS of a long run.

Every answer is a different program (no verdict is reused); N answers over T tasks, 4 hidden tests each. The loop of
processes is timed over a sample of the answers (one process costs seconds) and its rate quoted per answer.

    .venv/bin/python benchmarks/score.py [--answers 1000] [--tasks 50] [--loop 20] [--rss-answers 5000]
    .venv/bin/python benchmarks/score.py --breakdown 40     # only where one answer's time goes

CPU time per answer (user + sys of kite and every process it starts, in a cgroup where one can be made) is printed
beside each rate: on a shared machine it says what two idle cores would give.

Targets (issue 12): static >= 25 answers/s; with tests >= 10 answers/s; >= 30x the loop; peak RSS < 1 GB per process.
Issue 26: with hidden tests >= 20 answers/s on two cores; `--breakdown` says where an answer's CPU goes, part by
part and process by process (kite's, the compile process's, the sandboxed test host's), and measures the floor: the
same sandbox starting `dotnet` on an empty Main and on hello world. docs/scoring.md has the numbers.
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

    def leave(self, pid: int | None = None) -> None:  # this process (or pid), back where it was
        if self.group is not None:
            (self.group.parent / "cgroup.procs").write_text(str(pid or os.getpid()))

    def add(self, pid: int) -> None:  # another process (every thread of it) counted here from now on
        if self.group is not None:
            (self.group / "cgroup.procs").write_text(str(pid))

    def usage(self) -> float:
        """Seconds used in the group so far (cgroup only)."""
        assert self.group is not None
        if (self.group / "cpuacct.usage").exists():
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        return int((self.group / "cpu.stat").read_text().split()[1]) / 1e6  # usage_usec

    def seconds(self) -> tuple[float, str]:
        if self.group is None:
            return self._rusage() - self.rusage_before, "rusage: misses the sandboxed test hosts"
        used = self.usage()
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


# The floor: programs started the way a test host is (same sandbox, binds, environment and seccomp filter).
FLOOR_PROGRAMS = {"an empty Main": "", "hello world (Console.WriteLine)": 'System.Console.WriteLine("hello");'}


def sandboxed_start_ms(session, body: str, count: int) -> float:
    """CPU (ms) of one fresh sandboxed `dotnet` process whose Main is `body`: what one process per answer costs at
    the least. Only the cgroup sees it (bwrap's children are never waited for by this process)."""
    from kite.dotnet.packages import dotnet_executable
    from kite.dotnet.runtime import write_runtime_config
    from kite.testing import seccomp
    from kite.testing.sandbox import HOST_DIR
    from kite.testing.worker import host_environment

    source = "public static class Floor { public static void Main() { " + body + " } }"
    image, found = session.compiler.emit("Floor", [("Floor.cs", source)], True, 60.0)
    assert image is not None, found
    dotnet = str(Path(dotnet_executable()).resolve())
    environment = host_environment(session.limits, "/work", "/tmp")
    with tempfile.TemporaryDirectory(prefix="kite-floor-") as name:
        folder = Path(name)
        folder.chmod(0o755)  # read by the sandbox's own user
        (folder / "Floor.dll").write_bytes(image)
        write_runtime_config(folder / "Floor.runtimeconfig.json")
        (folder / "Floor.dll").chmod(0o644)
        account = CpuAccount()
        account.enter()
        own = time.process_time()
        for _ in range(count):
            filter_fd = seccomp.descriptor() if session.sandbox.mode != "none" else None
            program = [dotnet, f"{HOST_DIR}/Floor.dll"] if filter_fd is not None else [dotnet, str(folder / "Floor.dll")]
            try:
                if filter_fd is not None:
                    program = session.sandbox.wrap(program, [(str(folder), HOST_DIR)], environment, session.limits.tmpfs_mb << 20, filter_fd)
                subprocess.run(program, capture_output=True, check=True, pass_fds=() if filter_fd is None else (filter_fd,))
            finally:
                if filter_fd is not None:
                    os.close(filter_fd)
        own = time.process_time() - own
        account.leave()
        return 1000 * (account.seconds()[0] - own) / count


def breakdown(count: int, tasks: int) -> None:
    """One answer's CPU, part by part and process by process, one answer at a time (no overlap), against the floor
    of one sandboxed .NET start: two idle cores give at most 2 / (the sum) answers per second."""
    from kite.scoring.grading import assemble, prepare
    from kite.scoring.tasks import TaskFolder
    from kite.session import Session
    from kite.source import SourceFile
    from kite.units import Unit

    parts = {"read the answer, write its result (this process)": 0.0,
             "Kite layer, C# for the check, IPC (this process)": 0.0,
             "Roslyn: compile + analyzers (compile process)": 0.0,
             "C# to run, IPC (this process)": 0.0,
             "Roslyn: emit (compile process)": 0.0,
             "supervise the test host: spawn, channel (this process)": 0.0,
             "test host: bwrap, .NET start, stdlib, answer, tests": 0.0}
    names = list(parts)
    with tempfile.TemporaryDirectory(prefix="kite-score-parts-") as name:
        folder = Path(name)
        run = make_run(folder, count + 1, tasks)
        task_folder = TaskFolder(str(folder / "tasks"))
        rows = [json.loads(line) for line in run.read_text().splitlines()]
        with Session() as session:
            first = rows[0]  # warms the compile process and the standard library: not counted
            session.test(Unit(SourceFile("answer.kite", first["text"].split("```kite\n")[1].split("```")[0]),
                              task_folder.task(first["task_id"]).tests))
            compile_account = CpuAccount()
            if compile_account.group is None:
                print("no cgroup can be made here (not root?): the parts in other processes cannot be counted", file=sys.stderr)
                return
            compiler_pid = session.compiler.process.pid
            compile_account.add(compiler_pid)
            pool = session.pool
            pool.close()  # no process started before the count
            started = pool.started
            hosts = CpuAccount()
            hosts.enter()
            own_start, wall_start = time.process_time(), time.perf_counter()

            def timed(index: int, step, *arguments):
                own, compiled = time.process_time(), compile_account.usage()
                result = step(*arguments)
                parts[names[index]] += time.process_time() - own
                parts[names[index + 1]] += compile_account.usage() - compiled
                return result

            for row in rows[1:]:
                task = task_folder.task(row["task_id"])
                own = time.process_time()
                prepared = prepare(1, row["id"], row["text"], task, "kite", "dotnet", None)
                assemble(prepared, {"reason": "", "tests": [], "own_tests": [], "tampered": False, "limits": None, "diagnostics": [],
                                    "layers_run": [], "skipped": [], "applies": {}})
                parts[names[0]] += time.process_time() - own
                unit = Unit(SourceFile("answer.kite", prepared.request.text), task.tests)
                analysis = timed(1, session.analyze, unit)
                deciding, own_tests = session.test_cases(unit, analysis, {test.path for test in task.tests})
                compiled = timed(3, session.emit, unit, analysis)
                assert compiled.image is not None
                own = time.process_time()
                outcomes = session.run_image(compiled.image, deciding + own_tests)
                parts[names[5]] += time.process_time() - own
                assert all(outcome.status == "pass" for outcome in outcomes), outcomes
            wall = time.perf_counter() - wall_start
            for waiting in pool.idle:  # started for the next answer: counted once it has booted
                waiting.channel.ready(time.monotonic() + 60)
            pool.close()
            own_all = time.process_time() - own_start
            hosts.leave()
            compile_account.leave(compiler_pid)
            compile_account.seconds()
            host_processes = pool.started - started
            parts[names[6]] = (hosts.seconds()[0] - own_all) * count / host_processes
            floors = {program: sandboxed_start_ms(session, body, count) for program, body in FLOOR_PROGRAMS.items()}
    per_answer = {part: 1000 * seconds / count for part, seconds in parts.items()}
    total = sum(per_answer.values())
    print(f"where one answer's CPU goes ({count} answers one at a time, warm session, user + sys; "
          f"{sandbox_name(session)}):")
    for part, ms in per_answer.items():
        print(f"  {part:58} {ms:6.1f} ms")
    print(f"  {'all of an answer':58} {total:6.1f} ms  -> two idle cores: {2000 / total:5.1f} answers/s at most")
    print(f"  (wall time of the loop, one answer at a time: {1000 * wall / count:.0f} ms per answer)")
    print("the floor, one fresh sandboxed .NET process per answer (same bwrap, environment and filter as the test host):")
    for program, ms in floors.items():
        print(f"  {program:58} {ms:6.1f} ms  -> two idle cores: {2000 / ms:5.1f} answers/s")
    floor = floors["an empty Main"]
    host = per_answer[names[6]]
    print(f"  the test host is {host / floor:.1f}x the empty Main ({host - floor:+.1f} ms); all of an answer {total / floor:.1f}x")


def sandbox_name(session) -> str:
    return "test hosts in bubblewrap" if session.sandbox.mode != "none" else "no sandbox"


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
        if args.loop:  # --loop 0 skips the loops, and so their ratios
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
