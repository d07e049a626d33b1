"""Roslyn and the .NET analyzers are loaded from ReadyToRun copies (precompiled, so a cold start does not JIT the
compiler), and those copies give exactly the verdicts of the restored IL DLLs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES, REPO, run_kite
from kite.dotnet.packages import READY_TO_RUN_SWITCH


def is_ready_to_run(path: str) -> bool:
    """Whether the PE file carries precompiled code (a ManagedNativeHeader in its CLI header)."""
    from System.IO import File
    from System.Reflection.PortableExecutable import PEReader

    with PEReader(File.OpenRead(path)) as reader:
        return reader.PEHeaders.CorHeader.ManagedNativeHeaderDirectory.Size > 0


def test_roslyn_and_the_analyzers_are_loaded_from_ready_to_run_images():
    from kite.dotnet.roslyn import RoslynService

    packages = RoslynService().runtime.packages
    from System import AppDomain

    loaded = {assembly.GetName().Name: assembly.Location for assembly in AppDomain.CurrentDomain.GetAssemblies()}
    for image in (*packages.compiler_images, *packages.analyzer_images):
        assert loaded[Path(image).stem] == image
        assert is_ready_to_run(image), image
    assert not any(is_ready_to_run(dll) for dll in (*packages.compiler_dlls, *packages.analyzer_dlls))  # the check can fail
    assert packages.ready_to_run.startswith("made by Microsoft.NETCore.App.Crossgen2.")


CASES = [["check", "--format", "json", "samples"], ["test", "samples/word_count.kite"]] + [
    ["check", "--format", "json", *(folder / "check.args").read_text().split(), str(folder.relative_to(REPO))]
    if (folder / "check.args").exists() else ["check", "--format", "json", str(folder.relative_to(REPO))]
    for folder in sorted(FIXTURES.iterdir()) if folder.is_dir()
]
RUN_ALL = """
import json, sys
sys.path.insert(0, "tests")
from conftest import REPO, run_kite
results = [run_kite(args, REPO) for args in json.loads(sys.argv[1])]
print(json.dumps([(r.stdout, r.exit_code) for r in results]))
"""


def test_the_il_dlls_give_the_same_output_on_every_sample_and_fixture():
    env = {**os.environ, READY_TO_RUN_SWITCH: "0"}
    done = subprocess.run([sys.executable, "-c", RUN_ALL, json.dumps(CASES)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr
    from_il = json.loads(done.stdout.splitlines()[-1])
    here = [run_kite(args, REPO) for args in CASES]
    assert [[result.stdout, result.exit_code] for result in here] == from_il
    assert any(code != 0 for _, code in from_il)  # the fixtures hold diagnostics: equal lists of nothing prove nothing


def test_where_crossgen2_cannot_run_the_il_dlls_are_loaded_and_kite_says_why(tmp_path, monkeypatch):
    from kite.dotnet import packages

    monkeypatch.setenv("KITE_CACHE_DIR", str(tmp_path))
    project = {**packages._project_bytes(), "KiteReadyToRun.csproj": b"<Project>not a project"}
    monkeypatch.setattr(packages, "_project_bytes", lambda: project)
    restored = packages.restore()
    assert restored.compiler_images == restored.compiler_dlls and restored.analyzer_images == restored.analyzer_dlls
    assert restored.ready_to_run.startswith("none: `dotnet publish` with crossgen2 failed (")
