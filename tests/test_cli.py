"""The command line: help everywhere, .NET only when needed, machine-readable formats that hold their shape."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ARTICLE, REPO, run_kite


@pytest.mark.parametrize("command", [[], ["check"], ["test"], ["build"], ["lsp"], ["server"], ["server", "status"], ["server", "stop"]])
def test_every_command_has_help(command):
    result = run_kite([*command, "--help"], cwd=REPO)
    assert result.exit_code == 0 and result.output.startswith("Usage: ")


def test_help_and_the_kite_layer_never_start_dotnet():
    probe = (
        "import sys; from click.testing import CliRunner; from kite.cli.main import main; "
        "CliRunner().invoke(main, ['--help']); CliRunner().invoke(main, ['check', '--layer', 'kite', 'tests/article/leak.kite']); "
        "print('pythonnet' in sys.modules or 'clr' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "False"


# What `kite` imports for a command is what its cold start costs: a module no step of the command uses stays out.
LOADED = """
import sys
sys.argv = ["kite", *sys.argv[1:]]
from kite.cli.entry import entry
try:
    entry()
except SystemExit:
    pass
print(" ".join(sorted(sys.modules)))
"""
NOT_FOR_CHECKING = {
    "kite.testing.worker", "kite.testing.sandbox", "kite.testing.seccomp", "kite.dotnet.packages", "kite.dotnet.runtime",
    "kite.debug.adapter", "kite.debug.session", "kite.scoring.summary", "kite.scoring.slop", "kite.scoring.tasks",
    "kite.tasks.check", "kite.search.pattern", "kite.format.printer", "rich",
}
NOT_FOR_HELP = NOT_FOR_CHECKING | {"kite.session", "kite.pipeline", "kite.syntax.parser", "kite.codegen.csharp", "lark"}


def modules_loaded_by(args: list[str]) -> set[str]:
    done = subprocess.run([sys.executable, "-c", LOADED, *args], cwd=REPO, capture_output=True, text=True, check=False,
                          env={**os.environ, "KITE_NO_SERVER": "1"})
    return set(done.stdout.split())


@pytest.mark.no_dotnet
def test_help_loads_no_command_s_work():
    loaded = modules_loaded_by(["--help"])
    assert "kite.cli.main" in loaded and not loaded & NOT_FOR_HELP, sorted(loaded & NOT_FOR_HELP)


@pytest.mark.no_dotnet
def test_checking_kite_s_layer_loads_neither_the_test_worker_nor_other_commands():
    loaded = modules_loaded_by(["check", "--layer", "kite", "samples/hello.kite"])
    assert "kite.pipeline" in loaded and not loaded & NOT_FOR_CHECKING, sorted(loaded & NOT_FOR_CHECKING)


def test_json_output_has_the_documented_shape():
    result = run_kite(["check", "--format", "json", "mistakes.kite"], cwd=ARTICLE)
    document = json.loads(result.output)
    assert (document["verdict"], document["errors"], document["warnings"]) == ("failed", 1, 3)
    assert document["layers"] == ["analyzers", "compiler", "kite"] and document["skipped"] == []
    assert document["diagnostics"][0] == {
        "file": "mistakes.kite", "line": 5, "column": 5, "end_line": 5, "end_column": 10, "severity": "error", "id": "KT001",
        "message": "'total' cannot be changed: declare it with let mut", "layer": "kite",
    }
    assert [d["layer"] for d in document["diagnostics"]] == ["kite", "kite", "kite", "compiler"]


def test_sarif_output_is_sarif_2_1_0_as_code_scanning_reads_it():
    result = run_kite(["check", "--format", "sarif", "mistakes.kite"], cwd=ARTICLE)
    document = json.loads(result.output)
    assert document["version"] == "2.1.0" and document["$schema"].endswith("sarif-2.1.0.json")
    [run] = document["runs"]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rules == ["CS8602", "KT001", "KT002", "KT006"]
    for result_entry in run["results"]:
        assert rules[result_entry["ruleIndex"]] == result_entry["ruleId"]
        assert result_entry["level"] in ("error", "warning")
        location = result_entry["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "mistakes.kite" and location["region"]["startLine"] >= 1
    assert [r["ruleId"] for r in run["results"]] == ["KT001", "KT002", "KT006", "CS8602"]


def test_junit_output_is_xml_with_one_case_per_test():
    import xml.etree.ElementTree as ElementTree

    result = run_kite(["test", "words.kite", "--format", "junit"], cwd=ARTICLE)
    suites = ElementTree.fromstring(result.output.split("?>", 1)[1])
    assert [case.get("name") for case in suites.iter("testcase")] == ["word_count counts words"]
    assert suites.get("failures") == "0"


def test_a_test_file_checked_alone_brings_its_program():
    result = run_kite(["check", "words.test.kite"], cwd=ARTICLE)
    assert (result.exit_code, result.output) == (0, "clean: 0 errors, 0 warnings\n")


def test_json_says_which_layers_could_not_run():
    result = run_kite(["check", "--format", "json", "header_colon.kite"], cwd=REPO / "tests" / "fixtures" / "KT000")
    document = json.loads(result.output)
    assert document["layers"] == ["kite"]
    assert document["skipped"] == ["header_colon.kite: compiler and analyzers did not run: the unit has syntax errors (KT000)"]
