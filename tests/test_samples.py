"""Samples are what newcomers learn from: each is clean, and each that carries tests passes them."""

from __future__ import annotations

import subprocess

import pytest

from conftest import REPO, run_kite
from kite.session import Session
from kite.units import find_units

UNITS = [source.read() for source in find_units([str(REPO / "samples")])]
WITH_TESTS = [unit for unit in UNITS if any("\ntest " in source.text for source in unit.sources)]


def test_there_are_at_least_twenty_samples_and_most_carry_tests():
    assert len(UNITS) >= 20
    assert len(WITH_TESTS) >= 15


@pytest.fixture(scope="module")
def session():
    with Session() as shared:
        yield shared


@pytest.mark.parametrize("unit", WITH_TESTS, ids=lambda unit: unit.program.name)
def test_each_sample_passes_its_own_tests(session, unit):
    report = session.test(unit)
    failures = [f"{o.case.name}: {o.status} {o.message}" for o in report.outcomes if o.status != "pass"]
    assert failures == [] and report.passes


def test_kite_check_strict_passes_on_all_samples():
    result = run_kite(["check", "--strict", "samples"], cwd=REPO)
    assert (result.exit_code, result.output) == (0, "clean: 0 errors, 0 warnings\n")


def test_the_countdown_sample_builds_and_runs(tmp_path):
    result = run_kite(["build", "samples/countdown.kite", "-o", str(tmp_path)], cwd=REPO)
    assert result.exit_code == 0, result.output
    done = subprocess.run(["dotnet", str(tmp_path / "Countdown.dll")], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, "3\n2\n1\nlift off\n")
