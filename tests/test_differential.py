"""The same values two ways: a program's `fn main` built by `kite build` and run by `dotnet` prints exactly what the
same `main()` prints when `kite test` runs it in the test host (culture, spelling of values, ordering, equality)."""

from __future__ import annotations

import re
import subprocess

import pytest

from conftest import FIXTURES, REPO, run_kite
from kite.diagnostics import Severity
from kite.session import Session
from kite.units import find_units

PLACES = [REPO / "samples", REPO / "tests" / "meaning", REPO / "tests" / "golden", FIXTURES]
MAIN = re.compile(r"^fn main\(\)\s*$", re.MULTILINE)
MODULE = re.compile(r"^module (\w+)", re.MULTILINE)
# The debugger's targets crash or loop on purpose (tests/test_debug.py): their main never passes.
DEBUG_TARGETS = FIXTURES / "debug"
PROGRAMS = sorted(
    path for place in PLACES for path in place.rglob("*.kite")
    if not path.name.endswith(".test.kite") and path.parent != DEBUG_TARGETS
    and MAIN.search(path.read_text(encoding="utf-8"))
)
TITLE = "kite differential: main"


@pytest.fixture(scope="module")
def session():
    with Session() as shared:
        yield shared


def test_the_programs_include_samples_and_values_programs():
    folders = {path.parent for path in PROGRAMS}
    assert REPO / "samples" in folders and REPO / "tests" / "meaning" in folders


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: str(p.relative_to(REPO)))
def test_built_output_equals_the_test_host_s_output(session, program, tmp_path):
    text = program.read_text(encoding="utf-8")
    module = MODULE.search(text).group(1)
    (tmp_path / program.name).write_text(text, encoding="utf-8")
    (tmp_path / program.with_suffix(".test.kite").name).write_text(
        f'module {module}\n\ntest "{TITLE}"\n    main()\n    expect true\n', encoding="utf-8"
    )
    [unit] = [found.read() for found in find_units([str(tmp_path / program.name)])]
    report = session.test(unit)
    if any(d.severity is Severity.ERROR for d in report.check.diagnostics):
        pytest.skip("does not compile: it never runs")  # error fixtures; their snapshots cover them
    [outcome] = [o for o in report.outcomes if o.case.name == TITLE]
    assert outcome.status == "pass", outcome.message

    built = run_kite(["build", program.name, "-o", str(tmp_path / "out")], cwd=tmp_path)
    assert built.exit_code == 0, built.output
    ran = subprocess.run(["dotnet", str(tmp_path / "out" / f"{module}.dll")], capture_output=True, text=True, timeout=60, check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == outcome.output
    if program.name == "printed_values.kite":  # the program written to print every value the two ways could spell apart
        assert len(ran.stdout.splitlines()) > 10
