"""A session is used from several threads at once (kite score's answers in flight, a language server's requests):
what is shared must not mix one thread's work into another's."""

from __future__ import annotations

import concurrent.futures

from kite.source import SourceFile
from kite.syntax.frontend import read_syntax


def test_threads_parsing_at_once_each_get_their_own_tree():
    # Lark's indenter keeps the layout state of a parse on the parser: shared, two parses corrupt each other.
    programs = [
        SourceFile(f"p{n}.kite", f"module P{n}\n\nfn f{n}(x: int) -> int\n" + "".join(
            f"    if x > {i}\n        return (x\n            + {i})\n" for i in range(40)) + "    return 0\n")
        for n in range(8)
    ]
    expected = [read_syntax(program) for program in programs]

    def parse(program):
        return read_syntax(program)

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as threads:
        for _ in range(5):
            assert list(threads.map(parse, programs)) == expected


def test_a_compile_process_started_by_a_thread_outlives_the_thread():
    # The kernel's "die with parent" means the parent thread: a judging thread that ends must not take it along.
    import threading

    from kite.dotnet.compile_worker import CompileWorker

    worker = CompileWorker()
    starter = threading.Thread(target=worker.stdlib_image)
    starter.start()
    starter.join()
    try:
        code = "public static class C\n{\n    public static int F() { int a = \"s\"; return a; }\n}\n"
        assert [d.id for d in worker.check([("c.kite.cs", code)], timeout=60)] == ["CS0029"]
    finally:
        worker.stop()


def test_a_session_judges_answers_on_two_threads_as_it_does_one_by_one():
    from kite.session import Session
    from kite.units import Unit

    hidden = SourceFile("adder.test.kite", 'module Adder\n\ntest "adds"\n    expect add(2, 3) == 5\n')
    answers = [f"module Adder\n\nfn add(a: int, b: int) -> int\n    return a {op} b\n" for op in ("+", "*", "-", "+")]
    units = [Unit(SourceFile("answer.kite", text), (hidden,)) for text in answers]

    def verdict(session, unit):
        report = session.test(unit, hidden={hidden.path})
        return [(o.case.name, o.status, o.message) for o in report.outcomes]

    with Session() as session:
        one_by_one = [verdict(session, unit) for unit in units]
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as threads:
            at_once = list(threads.map(lambda unit: verdict(session, unit), units))
    assert at_once == one_by_one
    assert [statuses[0][1] for statuses in one_by_one] == ["pass", "fail", "fail", "pass"]


def test_workers_are_forked_only_from_a_process_of_one_thread():
    # A fork copies every lock as it is: with a second thread running (a .NET runtime's count too), workers are spawned.
    import subprocess
    import sys

    probe = ("import threading, time; from kite.spawn import process_executor; {start}"
             "print(process_executor(1, forked=True)._mp_context.get_start_method(), process_executor(1)._mp_context.get_start_method())")
    alone = subprocess.run([sys.executable, "-c", probe.format(start="")], capture_output=True, text=True, check=True)
    threaded = subprocess.run([sys.executable, "-c", probe.format(start="threading.Thread(target=time.sleep, args=(5,), daemon=True).start(); ")],
                              capture_output=True, text=True, check=True)
    assert (alone.stdout.split(), threaded.stdout.split()) == (["fork", "spawn"], ["spawn", "spawn"])
