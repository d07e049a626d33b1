"""The foundation: pinned packages, the in-process runtime, and the Roslyn service. Each test can fail."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kite.diagnostics import Layer, Severity
from kite.dotnet import packages
from kite.dotnet.roslyn import AnalyzerRules, RoslynService
from kite.errors import ToolchainError

WASTEFUL = """using System.Collections.Generic;
using System.Linq;
public static class Shop
{
    public static bool HasAny(List<int> item_counts)
    {
        return item_counts.Count() > 0;
    }
}
"""


@pytest.fixture(scope="module")
def roslyn():
    return RoslynService()


def ids_and_lines(found):
    return sorted((d.id, d.line) for d in found)


def test_a_type_error_gives_cs0029_on_its_line(roslyn):
    code = "public static class C\n{\n    public static int F() { int a = \"s\"; return a; }\n}\n"
    found = roslyn.check([("c.kite.cs", code)])
    assert [(d.file, d.line, d.id, d.severity, d.layer) for d in found] == [("c.kite.cs", 3, "CS0029", Severity.ERROR, Layer.COMPILER)]


def test_a_line_marker_moves_the_diagnostic_to_the_kite_file(roslyn):
    code = "public static class C\n{\n#line 7 \"x.kite\"\n    public static int F() { int a = \"s\"; return a; }\n}\n"
    [found] = roslyn.check([("x.kite.cs", code)])
    assert found.render() == "x.kite(7): error CS0029: Cannot implicitly convert type 'string' to 'int'"


def test_trap_1_the_analyzers_run_on_kite_cs_and_skip_generated_g_cs(roslyn):
    assert ids_and_lines(roslyn.check([("x.kite.cs", WASTEFUL)])) == [("CA1829", 7)]
    # The same code under a .g.cs name is "generated": the analyzers skip it on purpose.
    assert [d.id for d in roslyn.check([("x.kite.g.cs", WASTEFUL)]) if d.id.startswith("CA")] == []


def test_ca1707_is_off_for_snake_case_names_and_cs8602_is_on(roslyn):
    code = "public static class Names\n{\n    public static int name_length(string? first_name) => first_name.Length;\n}\n"
    assert ids_and_lines(roslyn.check([("n.kite.cs", code)])) == [("CS8602", 3)]


def test_code_on_a_hidden_line_is_an_internal_error_not_a_wrong_line(roslyn):
    code = "#line hidden\npublic static class C\n{\n    public static int F() { int a = \"s\"; return a; }\n}\n"
    [found] = roslyn.check([("h.kite.cs", code)])
    assert (found.id, found.file, found.severity) == ("KT900", "h.kite", Severity.ERROR)
    assert "CS0029" in found.message


def test_compiles_share_a_base_compilation_and_see_nothing_of_each_other(roslyn):
    """Every check (and every emit of one kind) adds its trees to one kept empty compilation, so the references are
    bound once; what one compile declared is never in the next, and the image is the one a fresh compilation emits."""
    from kite.dotnet.roslyn import _compilation, _emit

    declares = "public static class Declared { public static int F() => 1; }\n"
    uses = "public static class User { public static int G() => Declared.F(); }\n"
    assert roslyn.check([("a.kite.cs", declares)]) == []
    assert [d.id for d in roslyn.check([("b.kite.cs", uses)])] == ["CS0103"]
    first = roslyn.emit("Kite.Answer", [("a.kite.cs", declares)])
    second = roslyn.emit("Kite.Answer", [("a.kite.cs", declares)])
    fresh, _, _ = _emit(_compilation("Kite.Answer", [("a.kite.cs", declares)], roslyn._references, [], roslyn._options, roslyn._parse_options))
    assert first.image == second.image == fresh
    assert {key[0] for key in roslyn._bases} == {"KiteCheck", "Kite.Answer"} and len(roslyn._bases) == 2


NULLABLE_WARNING = "#nullable enable\npublic static class N\n{\n    public static int L(string? s) => s.Length;\n"


def test_an_emit_skips_nullable_analysis_and_a_failed_one_reports_as_before(roslyn):
    """Grading's emit runs no nullable analysis (the check did): the image is a full compilation's, its warnings are
    left out; a build that fails is compiled again with it, so it reports every warning a full one does."""
    from kite.dotnet.roslyn import _compilation, _emit

    compiles = [("n.kite.cs", NULLABLE_WARNING + "}\n")]
    emitted = roslyn.emit("Kite.Answer", compiles)
    image, found, _ = _emit(_compilation("Kite.Answer", compiles, roslyn._references, [], roslyn._options, roslyn._parse_options))
    assert "CS8602" in {d.Id for d in found} and emitted.image == image
    assert emitted.diagnostics == []
    fails = [("n.kite.cs", NULLABLE_WARNING + "    public static int E() => \"x\";\n}\n")]
    failed = roslyn.emit("Kite.Answer", fails)
    assert failed.image is None and {"CS8602", "CS0029"} <= {d.id for d in failed.diagnostics}
    assert roslyn.emit("Kite.Answer", compiles, debug=True).diagnostics != []  # a debugger's build: the full analysis


@pytest.mark.parametrize("folder", ["samples", "tests/hostile"])
def test_every_sample_and_hostile_program_emits_the_same_image_without_nullable_analysis(roslyn, folder):
    """What the switch is taken on: the programs kite ships and the hostile ones, as libraries and as programs."""
    from pathlib import Path

    from kite import diagnostics as diag
    from kite.dotnet.roslyn import _compilation, _emit
    from kite.dotnet.stdlib import compile_stdlib
    from kite.pipeline import generate_unit
    from kite.session import Session
    from kite.source import SourceFile
    from kite.units import Unit

    stdlib = compile_stdlib(roslyn)
    compared = 0
    with Session() as session:
        for path in sorted(Path(folder).glob("*.kite")):
            if path.name.endswith(".test.kite"):
                continue
            unit = Unit(SourceFile(str(path), path.read_text()))
            analysis = session.analyze(unit)
            if analysis.generated is None or analysis.result.verdict is diag.Verdict.FAILED:
                continue
            for entry_point in (False, True):
                sources = list(generate_unit(unit, list(analysis.modules), entry_point=entry_point, running=True).sources)
                options = roslyn._emit_options(entry_point, False, False)
                full, _, _ = _emit(_compilation("Kite.Answer", sources, roslyn._references, [stdlib.reference], options, roslyn._parse_options))
                assert roslyn.emit("Kite.Answer", sources, [stdlib.reference], executable=entry_point).image == full, path
                compared += 1
    assert compared >= 20


def test_every_rule_in_the_table_exists_and_the_required_ones_are_set(roslyn):
    rules = AnalyzerRules.load()
    assert {"CA1508", "CA1806", "CA1829", "CA1860"} <= set(rules.on)
    assert "CA1707" in rules.off
    assert set(rules.on) | set(rules.off) <= roslyn.analyzer_ids
    assert all(reason.strip() for reason in [*rules.on.values(), *rules.off.values()])


def test_only_analyzers_that_can_report_are_loaded_and_they_report_what_all_of_them_would(roslyn):
    from pathlib import Path

    from Microsoft.CodeAnalysis.Diagnostics import DiagnosticAnalyzer
    from System.Collections.Generic import List
    from System.Collections.Immutable import ImmutableArray

    from kite.dotnet.roslyn import (
        AnalyzerType,
        _always_loaded,
        _analyzer_types,
        _every_analyzer,
        _kite_analyzers,
        _rules_of,
    )

    every = _every_analyzer(roslyn.runtime)
    # The table in the packages' folder is what loading them all finds.
    assert _analyzer_types(roslyn.runtime) == tuple(
        AnalyzerType(Path(path).name, analyzer.GetType().FullName, _rules_of(analyzer), _always_loaded(analyzer)) for path, analyzer in every)
    assert len(every) > 100 and roslyn.analyzers.Length < len(every) / 3
    all_of_them = RoslynService(runtime=roslyn.runtime)
    analyzers = List[DiagnosticAnalyzer]()
    for analyzer in [analyzer for _, analyzer in every] + _kite_analyzers(roslyn.runtime):
        analyzers.Add(analyzer)
    all_of_them.analyzers = ImmutableArray.CreateRange[DiagnosticAnalyzer](analyzers)
    flagged = WASTEFUL.replace("return item_counts.Count() > 0;", 'var none = item_counts.Any(); string s = "a" + "b"; return item_counts.Count() > 0 && none;')
    for code in (WASTEFUL, flagged):
        assert ids_and_lines(roslyn.check([("x.kite.cs", code)])) == ids_and_lines(all_of_them.check([("x.kite.cs", code)]))
    assert {"CA1829", "CA1860"} <= {d.id for d in roslyn.check([("x.kite.cs", flagged)])}


def test_a_rule_the_analyzers_do_not_have_is_a_clear_error(roslyn):
    with pytest.raises(ToolchainError, match="CA9999"):
        RoslynService(AnalyzerRules(on={"CA9999": "made up"}, off={}), runtime=roslyn.runtime)


def test_the_lock_file_pins_exact_versions():
    import json
    from importlib import resources

    lock = json.loads((resources.files("kite.dotnet") / "packages.lock.json").read_text())
    direct = {name: entry for name, entry in lock["dependencies"]["net10.0"].items() if entry["type"] == "Direct"}
    assert {name: entry["resolved"] for name, entry in direct.items()} == {
        "Microsoft.CodeAnalysis.CSharp": "5.12.0",
        "Microsoft.CodeAnalysis.NetAnalyzers": "11.0.100",
    }
    assert all(entry["requested"].startswith("[") for entry in direct.values())


def test_kite_version_names_roslyn_and_the_analyzers():
    from conftest import REPO, run_kite

    packages.make_ready_to_run(packages.restore().cache_dir, wait=True)  # made in the background on a fresh machine
    result = run_kite(["--version"], cwd=REPO)
    assert result.exit_code == 0
    assert "Roslyn (Microsoft.CodeAnalysis.CSharp) 5.12.0" in result.output
    assert "Analyzers (Microsoft.CodeAnalysis.NetAnalyzers) 11.0.100" in result.output
    assert ".NET runtime 10." in result.output
    assert "Parser: Lark 1.3.1, its LALR loop in C (kite.syntax._lalr)" in result.output  # .ci/run builds it
    assert "ReadyToRun images of Roslyn and the analyzers: made by Microsoft.NETCore.App.Crossgen2." in result.output


def test_no_dotnet_on_path_is_one_line_and_exit_2(tmp_path):
    env = dict(os.environ, PATH=os.path.dirname(sys.executable), KITE_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "kite.cli.main", "--version"], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 2
    assert done.stderr == "kite: error: the .NET SDK is not installed: `dotnet` is not on PATH (install the .NET 10 SDK)\n"


def test_a_failed_restore_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("KITE_CACHE_DIR", str(tmp_path))
    broken = {"KiteToolchain.csproj": b"<Project>not a project", "packages.lock.json": b"{}", "KiteReadyToRun.csproj": b""}
    monkeypatch.setattr(packages, "_project_bytes", lambda: broken)
    with pytest.raises(ToolchainError, match=r"`dotnet restore` of Kite's .NET packages failed"):
        packages.restore()
    assert not list(tmp_path.glob("*/layout.json")), "a failed restore must not be remembered as done"


def test_the_runtime_config_is_never_seen_half_written(tmp_path):
    # A cluster's workers start together and share the cache's copy: a reader must always see whole JSON.
    import json
    import threading

    from kite.dotnet.runtime import RUNTIME_CONFIG, write_runtime_config

    config = tmp_path / "kite.runtimeconfig.json"
    write_runtime_config(config)
    torn = []
    stop = threading.Event()

    def rewrite():
        while not stop.is_set():
            write_runtime_config(config)

    writers = [threading.Thread(target=rewrite) for _ in range(3)]
    for writer in writers:
        writer.start()
    try:
        for _ in range(2000):
            text = config.read_text()
            if not text or json.loads(text) != RUNTIME_CONFIG:
                torn.append(text)
    finally:
        stop.set()
        for writer in writers:
            writer.join()
    assert torn == []
    assert [path.name for path in tmp_path.iterdir()] == [config.name]  # no temporaries left behind
    assert config.stat().st_mode & 0o044 == 0o044  # the sandboxed host reads it under another uid


def test_own_images_are_compiled_once_per_source_and_kept_on_disk(tmp_path):
    import dataclasses

    from kite.dotnet import own_images

    elsewhere = dataclasses.replace(packages.restore(), cache_dir=tmp_path)
    compiled = []

    def compile_image(text):
        compiled.append(text)
        return f"image of {text}".encode()

    assert own_images.own_image(elsewhere, "KiteStd", ["a"], lambda: compile_image("a")) == b"image of a"
    assert own_images.own_image(elsewhere, "KiteStd", ["a"], lambda: compile_image("a")) == b"image of a"  # from the disk
    assert own_images.own_image(elsewhere, "KiteStd", ["b"], lambda: compile_image("b")) == b"image of b"  # another source
    assert compiled == ["a", "b"]
    assert sorted(path.name.split("-")[0] for path in (tmp_path / "own-images").iterdir()) == ["KiteStd", "KiteStd"]


def test_a_cold_process_loads_kites_own_assemblies_from_the_disk():
    # The standard library and the KT007/KT012 analyzers: a second process finds both and compiles neither.
    probe = (
        "from kite.dotnet import own_images, roslyn, stdlib\n"
        "compiled = []\n"
        "real = own_images.own_image\n"
        "def spy(packages, name, sources, compile_image):\n"
        "    return real(packages, name, sources, lambda: compiled.append(name) or compile_image())\n"
        "roslyn.own_image = stdlib.own_image = spy\n"
        "stdlib.compile_stdlib(roslyn.RoslynService())\n"
        "print(sorted(compiled))\n"
    )
    runs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=False) for _ in range(2)]
    assert [run.returncode for run in runs] == [0, 0], runs[0].stderr[-2000:]
    assert runs[1].stdout.strip() == "[]"


CULTURE_PROBE = """
import json, sys
from kite.dotnet import runtime
if sys.argv[1] == "with culture":
    runtime.COMPILER_PROPERTIES = {k: v for k, v in runtime.COMPILER_PROPERTIES.items() if k != "System.Globalization.Invariant"}
from kite.dotnet.roslyn import RoslynService
found = RoslynService().check([("Straße.cs", sys.argv[2])])
from System import AppContext
from System.Globalization import CultureInfo
print(json.dumps([[d.to_json() for d in found], str(AppContext.GetData("System.Globalization.Invariant")), CultureInfo.CurrentCulture.Name]))
"""
CULTURE_SENSITIVE = """using System.Collections.Generic;
public static class Größe
{
    public static string Upper(string ıi) => ıi.ToUpper() + "İstanbul".ToLower() + 1.5.ToString();
    public static int Compare(List<string> wörter) { wörter.Sort(); return string.Compare("ä", "z"); }
    public static int Wrong() { int straße = "1,5"; return straße + 1000000; }
}
"""


def test_the_compilers_invariant_culture_changes_no_diagnostic():
    # COMPILER_PROPERTIES turns ICU off in kite's own runtime: what it reports must be what a Turkish-culture runtime
    # (dotted and dotless i, comma decimals) reports.
    runs = [subprocess.run([sys.executable, "-c", CULTURE_PROBE, how, CULTURE_SENSITIVE], capture_output=True, text=True,
                           timeout=300, check=False, env={**os.environ, "LANG": "tr_TR.UTF-8", "LC_ALL": "tr_TR.UTF-8"})
            for how in ("as shipped", "with culture")]
    assert [run.returncode for run in runs] == [0, 0], runs[0].stderr[-2000:] + runs[1].stderr[-2000:]
    (invariant, invariant_switch, _), (cultured, cultured_switch, culture) = (json.loads(run.stdout.splitlines()[-1]) for run in runs)
    assert invariant_switch == "true" and cultured_switch != "true" and culture == "tr-TR"  # two different runtimes
    assert invariant == cultured
    assert any(d["id"] == "CS0029" for d in invariant)  # an equal list of nothing would prove nothing


def test_a_runtime_the_host_cannot_start_is_hostfxrs_error_code_not_a_crash(tmp_path):
    from kite.dotnet.runtime import _Host

    with pytest.raises(RuntimeError, match=r"^hostfxr_initialize_for_runtime_config failed with 0x80008093$"):  # no such file
        _Host(tmp_path / "missing.runtimeconfig.json")
