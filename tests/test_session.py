"""One session behind every command: layers chosen per call, one report per unit, a batch that never stops."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ARTICLE, REPO, run_kite
from kite import session as session_module
from kite.cli.common import exit_code
from kite.cli.main import units_exit_code
from kite.diagnostics import Diagnostic, Layer, Severity
from kite.pipeline import CheckResult
from kite.session import Session, UnitReport
from kite.units import UnitSource, find_units


@pytest.fixture(scope="module")
def session():
    with Session() as shared:
        yield shared


def test_layers_are_chosen_per_call_on_one_roslyn(session):
    unit = UnitSource(str(ARTICLE / "mistakes.kite")).read()
    fast = session.check(unit, "kite")
    full = session.check(unit)
    roslyn = session.roslyn
    again = session.check(unit, "kite")
    assert fast.layers_run == again.layers_run == ("kite",)
    assert full.layers_run == ("kite", "compiler", "analyzers")
    assert [d.id for d in full.diagnostics] == ["KT001", "KT002", "KT006", "CS8602"]
    assert session.roslyn is roslyn
    assert full.layers_run == (Layer.KITE, Layer.COMPILER, Layer.ANALYZERS) and all(type(name) is Layer for name in full.layers_run)


@pytest.mark.parametrize("through", ["all", "compile", Layer.TESTS])
def test_a_check_goes_through_one_of_the_static_layers_by_its_one_name(session, through):
    with pytest.raises(ValueError):
        session.check(UnitSource(str(ARTICLE / "mistakes.kite")).read(), through)


def test_the_kite_layer_alone_never_builds_roslyn():
    with Session() as fresh:
        fresh.check(UnitSource(str(ARTICLE / "leak.kite")).read(), "kite")
        assert "roslyn" not in vars(fresh)


def test_a_folder_with_an_empty_a_binary_and_a_good_file(tmp_path):
    (tmp_path / "good.kite").write_text((ARTICLE / "mistakes.kite").read_text())
    (tmp_path / "empty.kite").write_bytes(b"")
    (tmp_path / "binary.kite").write_bytes(b"module Binary\x00\n")
    result = run_kite(["check", str(tmp_path)], cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stdout.splitlines()[0] == f"{tmp_path / 'good.kite'}(5): error KT001: 'total' cannot be changed: declare it with let mut"
    assert result.stdout.splitlines()[-1] == "failed: 1 errors, 3 warnings"
    assert result.stderr.splitlines() == [
        f"kite: error: {tmp_path / 'binary.kite'}: binary file (NUL byte at offset 13), not Kite source",
        f"kite: error: {tmp_path / 'empty.kite'}: empty file",
    ]


def test_kite_test_on_a_folder_tests_every_program_in_it():
    result = run_kite(["test", "samples"], cwd=REPO)
    assert result.exit_code == 0, result.output
    headings = [line for line in result.stdout.splitlines() if line.startswith("== ")]
    assert len(headings) == len(find_units([str(REPO / "samples")]))
    passes = sum(line.startswith("PASS ") for line in result.stdout.splitlines())
    assert result.stdout.splitlines()[-1] == f"{passes} passed, 0 failed" and passes >= 20
    assert any(line.endswith(": no tests") for line in headings)


def test_a_test_file_without_its_program_goes_with_the_one_program_of_its_folder(tmp_path):
    for folder, names in (("task", ("solution.kite", "solution.test.kite", "augmented.test.kite")),
                          ("two", ("a.kite", "b.kite", "lone.test.kite"))):
        (tmp_path / folder).mkdir()
        for name in names:
            (tmp_path / folder / name).write_text("module M\n")
    units = {Path(unit.program).relative_to(tmp_path).as_posix(): [Path(t).name for t in unit.tests] for unit in find_units([str(tmp_path)])}
    assert units["task/solution.kite"] == ["solution.test.kite", "augmented.test.kite"]
    assert units["two/lone.test.kite"] == [] and units["two/a.kite"] == [] and len(units) == 4


def test_a_layer_that_raises_is_that_units_internal_error_and_the_batch_goes_on(tmp_path, monkeypatch):
    for name in ("first", "broken", "last"):
        (tmp_path / f"{name}.kite").write_text(f"module {name.title()}\n\nfn answer() -> int\n    return 42\n")
    real_front_end = session_module.front_end

    def front_end(unit, *rest):
        if unit.program.path.endswith("broken.kite"):
            raise RuntimeError("a layer fell over")
        return real_front_end(unit, *rest)

    monkeypatch.setattr(session_module, "front_end", front_end)
    result = run_kite(["--debug", "check", "--format", "json", str(tmp_path)], cwd=tmp_path)
    assert result.exit_code == 3
    document = json.loads(result.stdout)
    [problem] = document["problems"]
    assert (problem["program"], problem["kind"], problem["message"]) == (str(tmp_path / "broken.kite"), "internal", "RuntimeError: a layer fell over")
    assert "Traceback" in problem["traceback"] and "a layer fell over" in result.stderr
    assert document["layers"] == ["analyzers", "compiler", "kite"] and document["verdict"] == "clean"


def test_the_exit_code_is_the_worst_that_happened():
    clean = UnitReport("a.kite", check=CheckResult((), ("kite",)))
    internal = Diagnostic("b.kite", 0, 0, Severity.ERROR, "KT900", "internal error: CS0103 on generated code", Layer.COMPILER)
    def failed(report):
        return report.check.verdict.value == "failed"
    assert exit_code() == 0 and exit_code(failed=True) == 1
    assert exit_code(unusable=True, failed=True) == 2 and exit_code(internal=True, unusable=True, failed=True) == 3
    assert units_exit_code([clean], failed) == 0
    assert units_exit_code([clean, UnitReport("b.kite", check=CheckResult((internal,), ("kite",)))], failed) == 3
