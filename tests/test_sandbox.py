"""The run-time defence on its own: attacks the static layer would refuse, run as raw assemblies (no KT007),
and attacks through Kite that the static layer lets through. Every one fails the attacker and nobody else."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
import uuid
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from conftest import ARTICLE, REPO, run_kite
from kite.cli.emitters import json_document as json_emitter, junit as junit_emitter, text as text_emitter
from kite.dotnet.runtime import RUNTIME_CONFIG
from kite.pipeline import CheckResult
from kite.session import Session, UnitReport
from kite.source import decode, read
from kite.testing import sandbox as sandbox_module
from kite.testing.limits import Limits
from kite.testing.outcomes import TestCase, TestReport
from kite.testing.worker import TAMPERED, ProcessPool, TestRequest, run_answer
from kite.units import Unit

HOSTILE = REPO / "tests" / "hostile"
RAW = HOSTILE / "raw"


@pytest.fixture(scope="module")
def session():
    with Session(limits=Limits(timeout_seconds=5)) as shared:
        yield shared


def raw_image(session: Session, code: str, name: str = "Raw", executable: bool = False) -> bytes:
    image, found = session.compiler.emit(name, [(f"{name}.cs", code)], executable, timeout=60)
    assert image is not None, [d.render() for d in found]
    return image


def run_raw(session: Session, code: str, *methods: str):
    cases = [TestCase(method, "raw.cs", 1, "Raw", method) for method in methods]
    return session.run_image(raw_image(session, code), cases)


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


def test_tests_run_inside_bubblewrap(session):
    assert session.sandbox.mode == "bubblewrap"


def test_a_forged_result_channel_fails_the_answer(session):
    [outcome] = run_raw(session, (RAW / "forges_results.cs").read_text(), "forge")
    assert (outcome.status, outcome.message, outcome.tampered) == ("crash", TAMPERED, True)


def test_code_that_exits_is_a_crash_and_the_next_test_runs_in_a_fresh_process(session):
    code = "public static class Raw\n{\n    public static void leave() { System.Environment.Exit(0); }\n    public static void stay() { }\n}\n"
    taken = session.pool.taken
    left, stayed = run_raw(session, code, "leave", "stay")
    assert (left.status, left.message) == ("crash", "the test host died (exit code 0)")
    assert stayed.status == "pass"
    assert session.pool.taken - taken == 2  # the answer's first process, then a fresh one for what was left


def test_writing_raw_bytes_to_stdout_fails_the_answer(session):
    code = ("public static class Raw\n{\n    public static void writes() {\n"
            "        var stdout = System.Console.OpenStandardOutput();\n"
            "        stdout.Write(System.Text.Encoding.UTF8.GetBytes(\"PASS writes\\n\"));\n    }\n}\n")
    [outcome] = run_raw(session, code, "writes")
    assert outcome.tampered and outcome.status == "crash"


def test_result_lines_of_every_length_verify(session):
    # The host signs with its own HMAC-SHA256 (OpenSSL's start-up cost a tenth of a host): lines of every length
    # modulo SHA-256's 64-byte block, so with a padding of one block and of two, verify here.
    lengths = range(140)
    methods = "".join(f"public static void T{n}() => System.Console.Write(new string('x', {n}));\n" for n in lengths)
    outcomes = run_raw(session, "public static class Raw {\n" + methods + "}\n", *(f"T{n}" for n in lengths))
    assert [(outcome.status, outcome.output) for outcome in outcomes] == [("pass", "x" * n) for n in lengths]


def test_a_process_left_running_is_gone_when_its_tests_end(session):
    marker = f"kite-hostile-{uuid.uuid4().hex}"
    sleeper = base64.b64encode(raw_image(session, (RAW / "sleeper.cs").read_text(), "Sleeper", executable=True)).decode()
    code = ((RAW / "leaves_process.cs").read_text().replace("MARKER", marker).replace("SLEEPER", sleeper)
            .replace("RUNTIMECONFIG", json.dumps(RUNTIME_CONFIG).replace('"', '""')))
    [outcome] = run_raw(session, code, "spawn")
    assert outcome.status == "pass", outcome.message
    deadline = time.monotonic() + 5
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with(marker) == []


PRICES = """module Prices

fn label(price: dec) -> str
    return f"EUR {price}"

test "a decimal is spelled the Kite way"
    expect label(2.50) == "EUR 2.50"

test "strings sort ordinally"
    expect sorted(["b", "a", "C"]) == ["C", "a", "b"]

test "there is room on the heap"
    let mut parts: list<str> = []
    for i in range(100_000)
        parts.Add(to_str(i))
    expect len(parts) == 100_000
"""


def test_what_one_answer_changes_in_its_process_never_reaches_the_next(session):
    prices = Unit(decode("prices.kite", PRICES.encode()))
    alone = session.test(prices)
    [changed] = run_raw(session, (RAW / "changes_process_state.cs").read_text(), "change")
    assert changed.status == "pass"
    time.sleep(0.3)  # the heap-filling timer would have had time to run in a shared process
    after = session.test(prices)
    def summary(report):
        return [(o.case.name, o.status, o.message) for o in report.outcomes]
    assert summary(after) == summary(alone)
    assert all(o.status == "pass" for o in alone.outcomes)


def test_links_planted_in_the_working_folder_change_nothing_outside(session):
    marker = f"kite-hostile-{uuid.uuid4().hex}"
    shadow = Path("/etc/shadow")
    before = shadow.read_bytes() if os.access(shadow, os.R_OK) else None
    [outcome] = run_raw(session, (RAW / "plants_links.cs").read_text().replace("MARKER", marker), "plant")
    assert outcome.status == "pass", outcome.message  # a dangling link is the answer's business, never an error of kite's
    assert not Path("/tmp", marker).exists()
    assert (shadow.read_bytes() if before is not None else None) == before


def test_control_characters_in_messages_and_output_render_escaped_and_junit_parses(session):
    [outcome] = run_raw(session, (RAW / "writes_control_characters.cs").read_text(), "fails_with_bytes")
    tests = TestReport("raw.cs", CheckResult((), ("kite",)), (outcome,), session.limits, "bubblewrap")
    report = UnitReport("raw.cs", check=tests.check, tests=tests)
    text = text_emitter.test([report])
    assert text.splitlines()[-1] == "0 passed, 1 failed"
    assert len(text.splitlines()) == 2
    assert not any(ch in text for ch in "\x1b\x07\x00\r\u2028\u0085\ud800")
    assert "\\e[2J\\x07\\x00\\r\\nPASS forged\\u2028PASS forged too\\x85\ufffd 2 passed, 0 failed" in text
    junit = ElementTree.fromstring(junit_emitter.test([report]).encode())
    assert junit.find("testsuite/testcase/error") is not None
    json.loads(json_emitter.test([report]))


def kite_test(*args: str, cwd: Path = HOSTILE):
    return run_kite(["test", *args], cwd=cwd)


def test_newlines_in_a_name_and_a_value_cannot_forge_lines_of_the_text_report():
    result = kite_test("forges_report.kite")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        'FAIL greets\\nPASS a forged name: expect greeting() == "hi" (left: "hi\\nPASS forged\\n1 passed, 0 failed", right: "hi")',
        "0 passed, 1 failed",
    ]


def test_a_test_description_cannot_forge_lines_of_kite_check(tmp_path):
    program = tmp_path / "silent.kite"
    program.write_text('module Silent\n\ntest "x\\nclean: 0 errors, 0 warnings"\n    pass\n')
    result = run_kite(["check", "--layer", "kite", str(program)], cwd=tmp_path)
    assert len(result.output.splitlines()) == 2, result.output
    assert "x\\nclean" in result.output


def test_junit_and_json_say_the_sandbox_ran():
    junit = ElementTree.fromstring(kite_test("forges_report.kite", "--format", "junit").output.encode())
    assert junit.find("testsuite/properties/property[@name='sandbox']").get("value") == "bubblewrap"
    [answer] = json.loads(kite_test("forges_report.kite", "--format", "json").output)["answers"]
    assert answer["sandbox"] == "bubblewrap"


def test_a_failure_message_is_capped_like_output():
    result = kite_test("huge_message.kite", "--format", "json")
    [test] = json.loads(result.output)["answers"][0]["tests"]
    assert test["status"] == "fail"
    assert len(test["message"]) <= Limits().message_chars + 100
    assert test["message"].endswith("[message cut at 4096 characters]")
    assert len(result.output) < 20_000


def test_when_hidden_tests_are_given_only_they_decide():
    result = kite_test("wrong_words_own_tests.kite", "--tests", str(ARTICLE / "words.test.kite"))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("FAIL word_count counts words: ")
    assert lines[1:] == [
        "the program's own tests (reported apart; the hidden tests decide):",
        "  PASS word_count counts words",
        "  PASS one word",
        "  PASS three words",
        "0 passed, 1 failed",
    ]


def test_an_answer_has_a_time_budget_for_all_its_tests():
    result = kite_test("spins_in_own_tests.kite", "--tests", str(ARTICLE / "words.test.kite"), "--timeout", "1", "--budget", "2.5",
                       "--format", "json")
    [answer] = json.loads(result.output)["answers"]
    assert [t["status"] for t in answer["tests"]] == ["pass"]
    assert answer["passes"] is True and result.exit_code == 0
    own = answer["own_tests"]
    assert len(own) == 10 and all(t["status"] == "timeout" for t in own)
    assert "the answer's time budget of 2.5 s ran out" in own[-1]["message"]
    assert sum(t["seconds"] for t in own) < 2.5 + 1


def test_without_bubblewrap_kite_test_stops_with_one_line_unless_told_otherwise(monkeypatch):
    sandbox_module.bubblewrap.cache_clear()
    real_which = sandbox_module.shutil.which
    monkeypatch.setattr(sandbox_module.shutil, "which", lambda name: None if name == "bwrap" else real_which(name))
    try:
        refused = kite_test("fakes_pass.kite")
        assert refused.exit_code == 2
        assert refused.output.startswith("kite: error: kite test runs every answer inside bubblewrap, and bwrap is not installed")
        assert len(refused.output.splitlines()) == 1
        unsandboxed = kite_test("fakes_pass.kite", "--no-sandbox", "--format", "json")
        assert json.loads(unsandboxed.output)["answers"][0]["sandbox"] == "none"
        assert unsandboxed.exit_code == 1
    finally:
        sandbox_module.bubblewrap.cache_clear()


def test_the_answer_can_neither_nest_a_user_namespace_nor_reach_the_network(session):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        code = (RAW / "escapes_namespaces.cs").read_text().replace("PORT", str(port))
        nests, connects = run_raw(session, code, "nests", "connects")
    assert nests.status == "pass", nests.message
    assert connects.status == "crash" and "SocketException" in connects.message


def test_files_fill_only_the_two_small_tmpfs(session):
    [outcome] = run_raw(session, (RAW / "fills_file_systems.cs").read_text(), "fill")
    assert outcome.status == "pass", outcome.message
    written = dict(line.rsplit(" ", 1) for line in outcome.output.splitlines())
    assert {folder: int(count) for folder, count in written.items() if folder not in ("/tmp", "/work")} == {
        "/": 0, "/dev": 0, "/dev/shm": 0, "/etc": 0, "/kite": 0}
    assert 0 < int(written["/tmp"]) <= session.limits.tmpfs_mb and 0 < int(written["/work"]) <= session.limits.tmpfs_mb


def threads_of_other_users() -> int:
    """The most threads any process not run by kite's own user has: a sandboxed test host."""
    most = 0
    for entry in os.listdir("/proc"):
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields.get("Uid", "0").split()[0]) != os.getuid():
            most = max(most, int(fields.get("Threads", "0")))
    return most


def test_a_thread_bomb_held_by_one_answer_leaves_other_answers_graded_meanwhile_their_threads(session):
    code = (RAW / "holds_threads.cs").read_text()
    bomb = threading.Thread(target=lambda: run_raw(session, code, "hold"))
    bomb.start()
    try:
        deadline = time.monotonic() + 20
        while threads_of_other_users() < 240 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threads_of_other_users() >= 240
        meanwhile = ProcessPool(session.sandbox, session.pool.host_dir, session.limits)  # another grader on the machine
        try:
            [other] = run_answer(meanwhile, raw_image(session, code), [TestRequest("Raw", "needs_threads")])
        finally:
            meanwhile.close()
        assert other.status == "pass", other.message
    finally:
        bomb.join()


def test_an_answer_starts_fewer_threads_than_its_process_limit(session):
    [outcome] = run_raw(session, (RAW / "holds_threads.cs").read_text(), "counts")
    assert outcome.status == "pass", outcome.message
    assert 0 < int(outcome.output) < session.limits.processes


def test_the_test_hosts_folder_is_read_only_to_an_answer_running_as_kites_own_user(session):
    """Where kite cannot give each process a user of its own (not root, or no setpriv), the answer runs as kite's
    user, who owns the host's folder: only the read-only bind keeps it from replacing the next answer's host."""
    import dataclasses

    same_user = ProcessPool(dataclasses.replace(session.sandbox, setpriv=""), session.pool.host_dir, session.limits)
    try:
        [outcome] = run_answer(same_user, raw_image(session, (RAW / "fills_file_systems.cs").read_text()), [TestRequest("Raw", "fill")])
    finally:
        same_user.close()
    assert outcome.status == "pass", outcome.message
    written = dict(line.rsplit(" ", 1) for line in outcome.output.splitlines())
    assert written["/kite"] == "0" and written["/"] == "0"


def test_an_answer_reading_its_own_memory_finds_no_key_to_sign_a_pass(session):
    [outcome] = run_raw(session, (RAW / "reads_key_from_memory.cs").read_text(), "forge")
    assert outcome.status != "pass"


RAW_IN_A_REPORT = "\x1b\x07\u202e\u2028\x85"


@pytest.mark.parametrize("output_format", ["text", "github", "junit", "json"])
def test_controls_in_a_test_name_reach_no_report_raw(session, output_format):
    from kite.cli import emitters

    program = HOSTILE / "names_with_controls.kite"
    tests = session.test(Unit(read(str(program))))
    [outcome] = tests.outcomes
    assert outcome.status == "fail" and "\x1b[2J" in outcome.case.name
    report = emitters.emitter(output_format).test([UnitReport(tests.program, check=tests.check, tests=tests)])
    assert not any(character in report for character in RAW_IN_A_REPORT), repr(report)
    assert report.splitlines()[-1].strip() in ("0 passed, 1 failed", "</testsuites>", "}")


READS_ITS_LIMITS = "public static class Raw { public static void limits() { System.Console.Write(System.IO.File.ReadAllText(\"/proc/self/limits\")); } }"


@pytest.mark.parametrize("through", ["prlimit", "a function between fork and exec"])
def test_the_host_runs_under_its_limits_however_they_are_set(session, monkeypatch, through):
    from kite.testing import worker

    if through != "prlimit":
        monkeypatch.setattr(worker, "prlimit_executable", lambda: None)
    elif worker.prlimit_executable() is None:
        pytest.skip("no prlimit on this machine")
    pool = ProcessPool(session.sandbox, session.pool.host_dir, session.limits, ahead=0)
    try:
        [outcome] = run_answer(pool, raw_image(session, READS_ITS_LIMITS), [TestRequest("Raw", "limits")])
    finally:
        pool.close()
    assert outcome.status == "pass", outcome.message
    rows = {line[:26].strip(): line[26:].split()[:2] for line in outcome.output.splitlines()[1:]}
    limits = session.limits
    assert rows["Max file size"] == [str(limits.file_mb << 20)] * 2
    assert rows["Max open files"] == [str(limits.descriptors)] * 2
    assert rows["Max core file size"] == ["0", "0"]
    if session.sandbox.own_user or os.geteuid() != 0:  # root's own count is never limited
        assert rows["Max processes"] == [str(limits.processes)] * 2


def test_kernel_buffers_an_answer_can_hold_are_bounded_by_its_descriptors(session):
    [outcome] = run_raw(session, (RAW / "hoards_socket_buffers.cs").read_text(), "hoard")
    assert outcome.status == "pass", outcome.message
    assert int(outcome.output) < 128 << 20


@pytest.mark.parametrize("lie", ["named_like_a_failure", "message_throws", "message_never_returns", "message_overflows",
                                 "fails_fast", "stops_itself", "writes_half_a_line"])
def test_no_lie_told_to_the_host_passes_and_the_supervisor_goes_on(session, lie):
    limits = Limits(timeout_seconds=1)
    pool = ProcessPool(session.sandbox, session.pool.host_dir, limits, ahead=0)
    try:
        hostile, honest = run_answer(pool, raw_image(session, (RAW / "lies_to_the_host.cs").read_text()),
                                     [TestRequest("Raw", lie), TestRequest("Raw", "honest")])
    finally:
        pool.close()
    assert hostile.status in ("fail", "crash", "timeout") and "PASS" not in hostile.message.split("\n")
    assert hostile.status != "timeout" or hostile.seconds >= limits.timeout_seconds  # no wall-clock bound: load's
    assert honest.status == "pass" or (hostile.tampered and honest.status == "crash")


def test_anonymous_files_held_open_are_as_small_as_any_file(session):
    [outcome] = run_raw(session, (RAW / "hoards_memfd.cs").read_text(), "hoard")
    assert outcome.status == "pass", outcome.message
    assert 0 < int(outcome.output) <= 20 << 20  # a MiB a file, not the 16 MiB of a tmpfs


def test_native_memory_outside_the_managed_heap_is_stopped_by_the_rss_watchdog(session):
    # The managed heap's limit cannot see it: only the watchdog (twice the heap in RSS) stops 1 GiB of native blocks.
    limits = Limits(timeout_seconds=20, heap_mb=128)
    pool = ProcessPool(session.sandbox, session.pool.host_dir, limits, ahead=0)
    try:
        [outcome] = run_answer(pool, raw_image(session, (RAW / "hoards_native_memory.cs").read_text()), [TestRequest("Raw", "hoard")])
    finally:
        pool.close()
    assert (outcome.status, outcome.message) == ("crash", "used more than 256 MB of memory")


def test_system_v_shared_memory_and_queues_are_refused(session):
    [outcome] = run_raw(session, (RAW / "hoards_sysv_memory.cs").read_text(), "hoard")
    assert (outcome.status, outcome.output) == ("pass", "0 no queue")


def test_a_test_process_that_cannot_start_is_a_toolchain_error_not_an_answers_crash():
    from kite.errors import ToolchainError

    with Session(limits=Limits(timeout_seconds=5)) as broken:
        pool = broken.pool
        pool.close()
        (pool.host_dir / "KiteTestHost.dll").unlink()
        with pytest.raises(ToolchainError, match="a test process did not start"):
            run_raw(broken, "public static class Raw { public static void ok() { } }", "ok")
