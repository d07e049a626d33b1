"""kite dap and kite debug, end to end: a bare DAP client drives the adapter (in this process over pipes, sharing the
compile process, and once as `kite dap` over stdio), and the engine runs a real debuggee in the sandbox.

Nothing here measures time: each wait is for an event, with a generous bound that fails instead of hanging."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, run_kite
from kite import framing
from kite.debug.adapter import Adapter

DEBUG = FIXTURES / "debug"
ORDERS = str(DEBUG / "Orders.kite")
TESTS = str(DEBUG / "Orders.test.kite")
WAIT = float(os.environ.get("KITE_TEST_WAIT", "180"))  # a bound on a loaded machine, never an assertion about speed


class Client:
    """A bare DAP client: requests by name, responses by seq, events in order."""

    def __init__(self, ttl_seconds: float = 600.0, reading=None, writing=None):
        self.seq = 0
        self.messages: queue.Queue = queue.Queue()
        self.events: list[dict] = []
        self.adapter = None
        if reading is None:
            to_adapter_r, to_adapter_w = os.pipe()
            from_adapter_r, from_adapter_w = os.pipe()
            self.adapter = Adapter(os.fdopen(from_adapter_w, "wb"), ttl_seconds)
            self.server = threading.Thread(target=self.adapter.serve, args=(os.fdopen(to_adapter_r, "rb"),), daemon=True)
            self.server.start()
            reading, writing = os.fdopen(from_adapter_r, "rb"), os.fdopen(to_adapter_w, "wb")
        self.writing = writing
        threading.Thread(target=self._read, args=(reading,), daemon=True).start()
        self.pending: list[dict] = []

    def _read(self, reading) -> None:
        for message in framing.messages(reading):
            self.messages.put(message)
        self.messages.put(None)

    def _next(self) -> dict:
        try:
            message = self.messages.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f"no message within {WAIT:g} s; the last events: {self.events[-5:]}") from None
        assert message is not None, "the adapter closed its output"
        return message

    def send(self, command: str, **arguments) -> int:
        self.seq += 1
        self.writing.write(framing.encode({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}))
        self.writing.flush()
        return self.seq

    def request(self, command: str, **arguments) -> dict:
        seq = self.send(command, **arguments)
        return self._until(lambda m: m["type"] == "response" and m["request_seq"] == seq)

    def ok(self, command: str, **arguments) -> dict:
        response = self.request(command, **arguments)
        assert response["success"], response
        return response["body"]

    def event(self, name: str) -> dict:
        return self._until(lambda m: m["type"] == "event" and m["event"] == name)["body"]

    def _until(self, wanted) -> dict:
        for index, message in enumerate(self.pending):
            if wanted(message):
                return self.pending.pop(index)
        while True:
            message = self._next()
            if message["type"] == "event":
                self.events.append(message)
            if wanted(message):
                return message
            self.pending.append(message)

    def launch(self, **arguments) -> dict:
        self.ok("initialize", adapterID="test")
        body = self.ok("launch", **arguments)
        self.event("initialized")
        return body

    def stop(self) -> dict:
        return self.event("stopped")

    def frames(self, thread: int) -> dict:
        return self.ok("stackTrace", threadId=thread)

    def locals(self, frame_id: int) -> dict[str, dict]:
        [scope] = self.ok("scopes", frameId=frame_id)["scopes"]
        return {v["name"]: v for v in self.ok("variables", variablesReference=scope["variablesReference"])["variables"]}

    def close(self) -> None:
        if self.adapter is not None and not self.adapter.finished.is_set():
            self.request("disconnect")
        if self.adapter is not None:
            self.server.join(WAIT)
            assert not self.server.is_alive(), "the adapter's loop did not end after disconnect"


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            return any(line.startswith("State:") and line.split()[1] in ("Z", "X") for line in status)
    except OSError:
        return True


@pytest.fixture
def client():
    made = Client()
    yield made
    made.close()


def held(client: Client) -> int:
    return client.adapter.session.engine.request("held")["references"]


def test_a_breakpoint_stops_on_the_kite_line_with_kite_frames_names_and_values(client):
    pid = client.launch(program=ORDERS)["pid"]
    body = client.ok("setBreakpoints", source={"path": ORDERS}, breakpoints=[{"line": 13}, {"line": 16}])
    first, blank = body["breakpoints"]
    assert first["verified"] and first["line"] == 13
    assert not blank["verified"] and blank["nearestLine"] == 15
    assert blank["message"] == "no code on line 16; the nearest line with code is 15"
    client.ok("configurationDone")
    stop = client.stop()
    assert stop["reason"] == "breakpoint"
    thread = stop["threadId"]
    assert [t["id"] for t in client.ok("threads")["threads"]] == [thread]

    trace = client.frames(thread)
    assert [(f["name"], f["line"]) for f in trace["stackFrames"]] == [("line_total", 13), ("order_total", 20), ("main", 31)]
    assert trace["stackFrames"][0]["source"]["path"] == ORDERS
    assert trace["hiddenFrames"] >= 1  # the runner's frames and the generated entry wrapper
    top = trace["stackFrames"][0]["id"]

    before = held(client)
    shown = client.locals(top)
    assert list(shown) == ["line"]  # `let base` has not run yet
    line = shown["line"]
    assert (line["value"], line["type"]) == ('Line(name: "pen", price: 1.5, count: 2)', "Line")
    fields = client.ok("variables", variablesReference=line["variablesReference"])["variables"]
    assert [(f["name"], f["value"], f["type"]) for f in fields] == [("name", '"pen"', "str"), ("price", "1.5", "dec"), ("count", "2", "int")]
    assert held(client) > before  # what the reads took is held until the debuggee resumes

    evaluate = lambda expression: client.request("evaluate", expression=expression, frameId=top)  # noqa: E731
    assert evaluate("line.price * line.count")["body"]["result"] == "3.0"
    assert evaluate('line.name + "!"')["body"]["result"] == '"pen!"'
    assert evaluate("line.count / 4 == 0 and not false")["body"]["result"] == "true"
    refused = evaluate("base")
    assert not refused["success"] and refused["message"] == "'base' is not a parameter or a local this frame has bound yet"
    assert evaluate("line_total(line) * 2")["body"]["result"] == "6.0"  # run in the debuggee, past its breakpoint
    assert evaluate("line.count")["body"]["result"] == "2"  # the stop goes on after a call
    assert evaluate("line_total(line) + line_total(line)")["body"]["result"] == "6.0"  # `line` read again after a call
    stale = evaluate("line_total(line) + 0 == line_total(line)")
    assert stale["body"]["result"] == "true"
    assert evaluate("line.name")["body"]["result"] == '"pen"'
    assert evaluate("nope(line)")["message"] == "'nope' is not a function of the program or the standard library"
    assert evaluate("line_total(line, 2)")["message"] == "line_total takes 1 argument(s), not 2"

    second = client.request("launch", program=ORDERS)
    assert not second["success"]
    assert f"pid {pid}," in second["message"] and second["message"].startswith("refused: a debug session is running already")
    assert client.frames(thread)["stackFrames"][0]["line"] == 13  # the first session goes on, still stopped

    client.ok("next", threadId=thread)
    assert client.stop()["reason"] == "step"
    assert held(client) <= before  # the last stop's references were released on resuming
    trace = client.frames(thread)
    assert (trace["stackFrames"][0]["name"], trace["stackFrames"][0]["line"]) == ("line_total", 14)
    assert client.locals(trace["stackFrames"][0]["id"])["base"]["value"] == "3.0"
    caller = client.locals(trace["stackFrames"][1]["id"])
    assert caller["total"]["value"] == "0.0" and caller["line"]["type"] == "Line"

    client.ok("stepOut", threadId=thread)
    client.stop()
    assert client.frames(thread)["stackFrames"][0]["name"] == "order_total"

    client.ok("setBreakpoints", source={"path": ORDERS}, breakpoints=[{"line": 32}])
    client.ok("continue", threadId=thread)
    client.stop()
    [main] = client.frames(thread)["stackFrames"]
    values = {name: (v["value"], v["type"]) for name, v in client.locals(main["id"]).items()}
    assert values == {
        "lines": ('[Line(name: "pen", price: 1.5, count: 2), Line(name: "ink", price: 4.0, count: 1)]', "list"),
        "stock": ('{"pen": 3}', "map"), "seen": ("{7}", "set"), "size": ("Size.Large", "Size"),
        "missing": ("none", "none"), "total": ("7.0", "dec"),
    }
    assert evaluate_in(client, main["id"], 'lines[1].name') == '"ink"'
    assert evaluate_in(client, main["id"], 'stock["pen"] + 1') == "4"
    assert evaluate_in(client, main["id"], '"pen" in stock') == "true"

    client.ok("continue", threadId=thread)
    assert client.event("exited")["exitCode"] == 0
    client.event("terminated")
    output = "".join(e["body"]["output"] for e in client.events if e["event"] == "output" and e["body"]["category"] == "stdout")
    assert output == "total: 7.0\n"
    client.ok("disconnect")
    assert gone(pid)


def evaluate_in(client: Client, frame: int, expression: str) -> str:
    return client.ok("evaluate", expression=expression, frameId=frame)["result"]


def test_a_launch_of_an_unchanged_program_reuses_its_debug_build_and_a_changed_one_is_built(tmp_path):
    program = tmp_path / "Orders.kite"
    program.write_text(Path(ORDERS).read_text())

    def first_stop() -> tuple[bool, list]:
        client = Client()
        try:
            client.launch(program=str(program))
            client.ok("setBreakpoints", source={"path": str(program)}, breakpoints=[{"line": 13}])
            client.ok("configurationDone")
            frames = client.frames(client.stop()["threadId"])["stackFrames"]
            return client.adapter.session.reused_build, [(f["name"], f["line"], f["source"]["path"]) for f in frames]
        finally:
            client.close()

    built, frames = first_stop()
    assert not built and frames == [("line_total", 13, str(program)), ("order_total", 20, str(program)), ("main", 31, str(program))]
    assert first_stop() == (True, frames)
    program.write_text(Path(ORDERS).read_text() + "\n")  # new bytes: a new checksum, a new build
    assert first_stop() == (False, frames)


def test_a_failed_expect_stops_in_the_test_with_its_kite_message(client):
    client.launch(program=ORDERS, test="the order total is wrong on purpose")
    client.ok("configurationDone")
    stop = client.stop()
    assert stop["reason"] == "exception"
    assert stop["description"] == "test failed: expect order_total(lines) == 4.0 (left: 3.0, right: 4.0)"
    frames = client.frames(stop["threadId"])["stackFrames"]
    assert (frames[0]["name"], frames[0]["line"], frames[0]["source"]["path"]) == ('test "the order total is wrong on purpose"', 9, TESTS)
    client.ok("continue", threadId=stop["threadId"])
    assert client.event("exited")["exitCode"] == 1
    stderr = "".join(e["body"]["output"] for e in client.events if e["event"] == "output" and e["body"]["category"] == "stderr")
    assert "test failed: expect order_total(lines) == 4.0" in stderr


def test_a_crash_stops_where_it_happens(client):
    client.launch(program=str(DEBUG / "Crash.kite"))
    client.ok("configurationDone")
    stop = client.stop()
    assert stop["description"] == "crash: DivideByZeroException: Attempted to divide by zero."
    frames = client.frames(stop["threadId"])["stackFrames"]
    assert [(f["name"], f["line"]) for f in frames] == [("ratio", 4), ("main", 7)]


def test_stop_on_entry_stops_on_the_first_kite_line(client):
    client.launch(program=ORDERS, stopOnEntry=True)
    client.ok("configurationDone")
    stop = client.stop()
    assert stop["reason"] == "entry"
    assert [(f["name"], f["line"]) for f in client.frames(stop["threadId"])["stackFrames"]] == [("main", 24)]
    client.ok("stepIn", threadId=stop["threadId"])
    client.stop()
    assert client.frames(stop["threadId"])["stackFrames"][0]["line"] == 25


def test_pause_stops_a_loop_on_its_kite_line(client):
    client.launch(program=str(DEBUG / "Loops.kite"))
    client.ok("configurationDone")
    # A pause before the loop runs (before the runner has entered fn main: no Kite frame; or on main's `let`, line 4)
    # is a right stop but not this test's: go on and pause again.
    for _ in range(50):
        client.ok("pause", threadId=1)
        stop = client.stop()
        assert stop["reason"] == "pause"
        frames = client.frames(stop["threadId"])["stackFrames"]
        if frames and frames[0]["line"] != 4:
            break
        client.ok("continue", threadId=stop["threadId"])
    [frame] = frames
    assert frame["name"] == "main" and frame["line"] in (5, 6)
    assert client.locals(frame["id"])["n"]["type"] == "int"


def test_a_program_that_does_not_compile_fails_to_launch_with_its_diagnostics(client):
    client.ok("initialize", adapterID="test")
    response = client.request("launch", program=str(DEBUG / "Broken.kite"))
    assert not response["success"]
    assert response["message"].startswith("the program does not compile: ")
    assert "Broken.kite(4): error CS0029" in response["message"]
    assert client.request("launch", program=str(DEBUG / "Missing.kite"))["message"].endswith("Missing.kite: no such file")


def test_an_unknown_test_is_refused_with_the_tests_there_are(client):
    client.ok("initialize", adapterID="test")
    response = client.request("launch", program=ORDERS, test="nope")
    assert response["message"] == (f'no test "nope" in {ORDERS} or its test files '
                                   '(its tests: "a line\'s total", "the order total is wrong on purpose")')


def test_the_ttl_kills_the_debuggee_says_so_and_terminates():
    client = Client(ttl_seconds=1)
    pid = client.launch(program=str(DEBUG / "Loops.kite"))["pid"]
    client.ok("configurationDone")
    client.event("terminated")
    said = [e["body"]["output"] for e in client.events if e["event"] == "output"]
    assert "kite dap: the session's TTL of 1 s ran out: the debuggee was killed\n" in said
    assert gone(pid)
    assert client.request("threads")["success"]
    assert client.request("continue", threadId=1)["message"] == "no program is being debugged: launch one first"


def test_requests_out_of_turn_and_unknown_ones_are_refused(client):
    client.ok("initialize", adapterID="test")
    assert client.request("stackTrace", threadId=1)["message"] == "no program is being debugged: launch one first"
    assert client.request("restartFrame")["message"] == "kite dap does not support 'restartFrame'"
    refusal = client.request("attach", processId=1)["message"]
    assert refusal.startswith("kite dap attaches only to the programs it launches") and "sandbox" in refusal
    assert client.request("launch")["message"] == 'launch needs "program": the path of a .kite file'


def test_kite_dap_over_stdio_kills_the_debuggee_when_the_client_goes_away():
    process = subprocess.Popen([sys.executable, "-m", "kite.cli", "dap"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, cwd=REPO)
    client = Client(reading=process.stdout, writing=process.stdin)
    pid = client.launch(program=ORDERS)["pid"]
    client.ok("setBreakpoints", source={"path": ORDERS}, breakpoints=[{"line": 13}])
    client.ok("configurationDone")
    assert client.stop()["reason"] == "breakpoint"
    process.stdin.close()  # the client vanishes
    assert process.wait(timeout=WAIT) == 0
    assert gone(pid)


def test_kite_debug_prints_the_first_stop_and_ends_the_session():
    result = run_kite(["debug", ORDERS, "--break", "13", "--break", "16", "--eval", "line.count * 2", "--eval", "nope",
                       "--format", "json"], REPO)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["stop"] == "breakpoint"
    assert [(f["name"], f["line"]) for f in report["frames"]] == [("line_total", 13), ("order_total", 20), ("main", 31)]
    assert report["frames"][0]["locals"] == [{"name": "line", "value": 'Line(name: "pen", price: 1.5, count: 2)', "type": "Line"}]
    assert report["evaluations"][0] == {"expression": "line.count * 2", "value": "4"}
    assert report["evaluations"][1]["error"].startswith("'nope' is not")
    assert report["breakpoints"][1] == {"path": ORDERS, "line": 16, "verified": False,
                                        "message": "no code on line 16; the nearest line with code is 15"}


def test_kite_debug_calls_functions_and_aborts_a_call_that_runs_too_long():
    evals = ["twice(start, true)", "twice(4, false) + start", "share(start, 0)", "share(9, start)", "spin(start)", "start",
             "spin(1)", "twice(1, false)", "abs(start - 5) + 1"]
    result = run_kite(["debug", str(DEBUG / "Spins.kite"), "--break", "19", *[w for e in evals for w in ("--eval", e)], "--format", "json"], REPO)
    assert result.exit_code == 0, result.output
    refused = ("no more calls of the program's functions in this session: spin(...) was aborted, and the runtime cannot stop "
               "the debuggee's thread again to abort another; standard-library calls, names, fields and operators still evaluate")
    assert json.loads(result.output)["evaluations"] == [
        {"expression": "twice(start, true)", "value": "600"},
        {"expression": "twice(4, false) + start", "value": "11"},
        {"expression": "share(start, 0)", "error": "share(...) crashed: DivideByZeroException: Attempted to divide by zero."},
        {"expression": "share(9, start)", "value": "3"},
        {"expression": "spin(start)", "error": "spin(...) ran past the 2 s limit of a call and was aborted"},
        {"expression": "start", "value": "3"},
        # After an abort mscordbi's Stop never returns for that thread again: a second abort would end the session
        {"expression": "spin(1)", "error": refused},
        {"expression": "twice(1, false)", "error": refused},
        {"expression": "abs(start - 5) + 1", "value": "3"},  # the standard library's functions end on their own
    ]


def test_after_an_aborted_call_the_session_goes_on_without_pause(client):
    spins = str(DEBUG / "Spins.kite")
    client.launch(program=spins)
    client.ok("setBreakpoints", source={"path": spins}, breakpoints=[{"line": 18}])
    client.ok("configurationDone")
    thread = client.stop()["threadId"]
    top = client.frames(thread)["stackFrames"][0]["id"]
    assert client.request("evaluate", expression="spin(1)", frameId=top)["message"].endswith("was aborted")
    refused = client.request("pause", threadId=thread)
    assert not refused["success"] and refused["message"].startswith("pause is not served after spin(...) was aborted")
    client.ok("next", threadId=thread)
    assert client.stop()["reason"] == "step"  # a step (a breakpoint too) still stops the thread
    [frame] = client.frames(thread)["stackFrames"]
    assert frame["line"] == 19 and client.locals(frame["id"])["start"]["value"] == "3"
    assert evaluate_in(client, frame["id"], "abs(start - 5)") == "2"
    client.ok("next", threadId=thread)  # past main's last line: out through the generated entry, to the end
    assert client.event("exited")["exitCode"] == 0
    assert "start: 3\n" in [e["body"]["output"] for e in client.events if e["event"] == "output"]


def test_evaluate_calls_the_standard_library_and_takes_str_and_dec_arguments():
    """The stdlib's overload the program's own call would take (List<T> over IEnumerable<T>, a generic's type
    arguments from the values); strs and decs, of the frame or literals, made in the debuggee; results in Kite's words."""
    calls = {
        "len(words)": "3", "len(name)": "3", "len(counts)": "1", "len(seen)": "1", "upper(name)": '"PEN"', "abs(n)": "7",
        "abs(-2.5)": "2.5", "round(price, 1)": "1.3", "min(n, 3)": "-7", "min(price, 2.0)": "1.25", "max(words)": '"pen"',
        "sum(range(4))": "6", "join(words, \"+\")": '"pen+ink+nib"', "join(counts, \",\")": '"pen"',
        "sorted(words)": '["ink", "nib", "pen"]', "sorted(seen)": "[4]", "keys(counts)": '["pen"]', "values(counts)": "[3]",
        "contains(name, 'e')": "true", "split(\"a,b\", \",\")": '["a", "b"]', 'upper("a\\"b")': '"A\\"B"',
        'parse_int("12")': "12", 'parse_int("x")': "none", "to_str(words)": '"[pen, ink, nib]"',
        "to_str(n)": '"-7"', "to_str(price)": '"1.25"', "to_str(true)": '"true"', "to_str('x')": '"x"',  # boxed first
        "shout(name)": '"PEN!"', 'shout("ink") + "?"': '"INK!?"', "half(price)": "0.625", "len(split(name, \"e\"))": "2",
    }
    refused = {
        "print(name)": "print is not pure: evaluate calls functions only for their results",
        "len(n)": "len does not take these arguments: len(x) -> int",
        "len(words, 2)": "len takes 1 argument(s), not 2",
    }
    evals = [*calls, *refused, "name"]
    result = run_kite(["debug", str(DEBUG / "Texts.kite"), "--break", "18", *[w for e in evals for w in ("--eval", e)], "--format", "json"], REPO)
    assert result.exit_code == 0, result.output
    answers = {e["expression"]: e.get("value", e.get("error")) for e in json.loads(result.output)["evaluations"]}
    assert answers == {**calls, **refused, "name": '"pen"'}


def test_kite_debug_stops_in_one_test_with_its_locals():
    text = run_kite(["debug", ORDERS, "--test", "a line's total", "--break", f"{TESTS}:5"], REPO)
    assert text.exit_code == 0, text.output
    assert text.output.splitlines()[:3] == ["stopped (breakpoint)", f"  test \"a line's total\"  {TESTS}:5",
                                            '      line = Line(name: "pen", price: 1.5, count: 2)']


def test_kite_debug_with_no_stop_says_so_and_fails():
    result = run_kite(["debug", ORDERS, "--break", "2"], REPO)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"breakpoint {ORDERS}:2 not set: no code on line 2; the nearest line with code is 13",
        "the program ended before any breakpoint was hit",
    ]
    assert run_kite(["debug", ORDERS, "--break", "x"], REPO).exit_code == 2


@pytest.mark.parametrize("command", ["dap", "debug"])
def test_help(command):
    result = run_kite([command, "--help"], REPO)
    assert result.exit_code == 0 and "--ttl" in result.output


def test_a_debug_build_has_a_pdb_with_absolute_paths_and_checksums_and_the_grading_build_has_none(tmp_path):
    import hashlib

    relative = os.path.relpath(ORDERS, tmp_path)
    built = run_kite(["build", "--debug", relative, "-o", "debug"], tmp_path)
    assert built.exit_code == 0, built.output
    plain = run_kite(["build", relative, "-o", "plain"], tmp_path)
    assert plain.exit_code == 0
    assert sorted(p.name for p in (tmp_path / "plain").iterdir()) == ["Kite.Std.dll", "Orders.dll", "Orders.runtimeconfig.json"]
    assert (tmp_path / "debug" / "Orders.pdb").exists()
    from kite.debug.engine import read_symbols

    symbols = read_symbols(_engine_files(tmp_path), tmp_path / "debug" / "Orders.dll", tmp_path / "debug" / "Orders.pdb")
    kite_documents = {d["path"]: d["checksum"] for d in symbols["documents"] if d["path"].endswith(".kite")}
    assert kite_documents == {ORDERS: hashlib.sha256(Path(ORDERS).read_bytes()).hexdigest()}
    locals_of_main = next(m["locals"] for m in symbols["methods"] if m["name"] == "main")
    assert [name for name, *_ in locals_of_main] == ["lines", "stock", "seen", "size", "missing", "total"]  # Debug keeps all


def _engine_files(tmp_path: Path):
    from kite.debug.engine import build_engine
    from kite.dotnet.compile_worker import shared_worker

    return build_engine(shared_worker(), tmp_path / "engine")
