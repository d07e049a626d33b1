"""The supervisor alone (kite.testing.worker) against test hosts that lie in ways kite's own host never does: the
checks kite makes on its side of the channel must hold by themselves, whatever the process at the other end writes.

Each fake host is a Python script that speaks the host's protocol with the answer's key (so its lines verify):
what it gets away with, an answer that took over the real host would get away with too."""

from __future__ import annotations

import os
import sys
import textwrap
import time
import uuid
from pathlib import Path

from kite.testing.limits import Limits
from kite.testing.sandbox import Sandbox
from kite.testing.worker import TAMPERED, ProcessPool, TestRequest, run_answer

LIMITS = Limits(timeout_seconds=5, budget_seconds=30, output_chars=1000, message_chars=100)
PROTOCOL = """\
import hashlib, hmac, json, sys
out, requests = sys.stdout.buffer, sys.stdin.buffer
out.write(b"ready\\n"); out.flush()
key = bytes.fromhex(requests.readline().strip().decode())
output_chars, message_chars = map(int, requests.readline().split())
tests = [requests.readline() for _ in range(int(requests.readline()))]
requests.readline()  # the answer's image
sequence = 0

def send(sequence_number=None, signed=True, **fields):
    global sequence
    payload = json.dumps({"sequence": sequence if sequence_number is None else sequence_number, **fields}).encode()
    sequence += 1
    signature = hmac.new(key if signed else b"not the key", payload, hashlib.sha256).hexdigest().upper().encode()
    out.write(signature + b" " + payload + b"\\n"); out.flush()

send(event="loaded")
"""


class ScriptSandbox(Sandbox):
    """Starts a Python script where the test host would be."""

    def __init__(self, script: Path):
        super().__init__("none")
        object.__setattr__(self, "script", script)

    def command(self, host_dir, environment, tmpfs_bytes, seccomp_fd=None):
        return [sys.executable, str(self.script)]


def run_fake(tmp_path: Path, behaviour: str, tests: int = 1):
    script = tmp_path / f"host_{uuid.uuid4().hex}.py"
    script.write_text(PROTOCOL + textwrap.dedent(behaviour))
    pool = ProcessPool(ScriptSandbox(script), tmp_path, LIMITS, ahead=0)
    try:
        return run_answer(pool, b"image", [TestRequest("Answer", f"test_{index}") for index in range(tests)])
    finally:
        pool.close()


def test_an_honest_fake_host_passes_so_the_lies_below_are_what_fails(tmp_path):
    results = run_fake(tmp_path, 'for index in range(2):\n    send(event="result", index=index, status="pass", message="", output="hi")\n', tests=2)
    assert [(r.status, r.output) for r in results] == [("pass", "hi"), ("pass", "hi")]


def test_output_and_messages_are_capped_on_kites_side_whatever_the_host_sends(tmp_path):
    """Within the longest line the channel reads (a longer one is forged), but past both caps."""
    [result] = run_fake(tmp_path, 'send(event="result", index=0, status="fail", message="m" * 1000, output="o" * 5000)\n')
    assert result.status == "fail"
    assert len(result.output) == LIMITS.output_chars and len(result.message) <= 2 * LIMITS.message_chars


def test_a_signed_line_out_of_sequence_is_forged(tmp_path):
    """A line signed with the key but not the next in sequence: a line the answer saw earlier, written again."""
    [result] = run_fake(tmp_path, 'send(sequence_number=7, event="result", index=0, status="pass", message="", output="")\n')
    assert (result.status, result.message, result.tampered) == ("crash", TAMPERED, True)


def test_after_a_forged_line_no_test_of_the_answer_is_believed_even_in_a_fresh_process(tmp_path):
    marker = tmp_path / "forged once"
    behaviour = f"""\
        from pathlib import Path
        if not Path({str(marker)!r}).exists():
            Path({str(marker)!r}).touch()
            send(signed=False, event="result", index=0, status="pass", message="", output="")
        else:  # a fresh process would find every test passing
            for index in range(len(tests)):
                send(event="result", index=index, status="pass", message="", output="")
    """
    results = run_fake(tmp_path, behaviour, tests=3)
    assert [(r.status, r.tampered) for r in results] == [("crash", True), ("crash", False), ("crash", False)]
    assert all(TAMPERED in r.message for r in results)


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


def test_what_the_host_started_is_killed_with_it_without_a_sandbox(tmp_path):
    """--no-sandbox has no pid namespace whose end takes everything with it: the host's whole process group goes."""
    marker = f"kite-supervisor-{uuid.uuid4().hex}"
    behaviour = f"""\
        import subprocess
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", {marker!r}])
        send(event="result", index=0, status="pass", message="", output="")
    """
    [result] = run_fake(tmp_path, behaviour)
    assert result.status == "pass"
    deadline = time.monotonic() + 5
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = processes_with(marker)
    for pid in left:
        os.kill(pid, 9)
    assert left == []
