"""Roslyn and the .NET analyzers are loaded from ReadyToRun copies (precompiled, so a cold start does not JIT the
compiler), and those copies give exactly the verdicts of the restored IL DLLs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, run_kite
from kite.dotnet import packages as dotnet_packages
from kite.dotnet.packages import READY_TO_RUN_PENDING, READY_TO_RUN_SWITCH
from kite.dotnet.runtime import python_runtime_dll


def is_ready_to_run(path: str) -> bool:
    """Whether the PE file carries precompiled code (a ManagedNativeHeader in its CLI header)."""
    from System.IO import File
    from System.Reflection.PortableExecutable import PEReader

    with PEReader(File.OpenRead(path)) as reader:
        return reader.PEHeaders.CorHeader.ManagedNativeHeaderDirectory.Size > 0


LOADED = """
import json
from kite.dotnet.roslyn import RoslynService
packages = RoslynService().runtime.packages
from System import AppDomain
loaded = {assembly.GetName().Name: assembly.Location for assembly in AppDomain.CurrentDomain.GetAssemblies()}
print(json.dumps([loaded, packages.compiler_images + packages.analyzer_images, packages.ready_to_run]))
"""


def test_roslyn_and_the_analyzers_are_loaded_from_ready_to_run_images():
    restored = dotnet_packages.restore()
    dotnet_packages.make_ready_to_run(restored.cache_dir, wait=True)  # they are made in the background: wait for them
    # A process started now loads them (this one may have booted .NET on the IL DLLs while they were being made).
    done = subprocess.run([sys.executable, "-c", LOADED], cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    loaded, images, ready_to_run = json.loads(done.stdout.splitlines()[-1])
    from kite.dotnet.runtime import boot

    boot()  # for is_ready_to_run's PEReader
    for image in images:
        assert loaded[Path(image).stem] == image
        assert is_ready_to_run(image), image
    assert not any(is_ready_to_run(dll) for dll in (*restored.compiler_dlls, *restored.analyzer_dlls))  # the check can fail
    assert ready_to_run.startswith("made by Microsoft.NETCore.App.Crossgen2.")
    # pythonnet's own assembly too, made with the same crossgen2 and kept with kite's own images
    assert Path(loaded["Python.Runtime"]).parent.parent == restored.cache_dir / "own-images", loaded["Python.Runtime"]
    assert is_ready_to_run(loaded["Python.Runtime"]) and not is_ready_to_run(str(python_runtime_dll()))


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
    assert restored.ready_to_run == READY_TO_RUN_PENDING  # the first check never waits for crossgen2
    assert restored.compiler_images == restored.compiler_dlls and restored.analyzer_images == restored.analyzer_dlls
    packages.make_ready_to_run(restored.cache_dir, wait=True)  # the background process's work, or its end
    restored = packages.restore()
    assert restored.compiler_images == restored.compiler_dlls and restored.analyzer_images == restored.analyzer_dlls
    assert restored.ready_to_run.startswith("none: `dotnet publish` with crossgen2 failed (")


def restored_without_images(folder: Path) -> Path:
    """A layout in `folder` naming the real restored DLLs, with no ReadyToRun images made yet."""
    layout = json.loads((dotnet_packages.restore().cache_dir / "layout.json").read_text())
    layout.pop("images", None), layout.pop("ready_to_run", None)
    (folder / "layout.json").write_text(json.dumps(layout))
    (folder / "KiteReadyToRun.csproj").write_bytes(dotnet_packages._project_bytes()["KiteReadyToRun.csproj"])
    return folder / "layout.json"


def test_a_crossgen2_killed_halfway_leaves_the_il_dlls_in_use_and_the_next_run_starts_over(tmp_path, monkeypatch):
    layout_file = restored_without_images(tmp_path)
    published, started = [], []

    def publish(arguments, what, *, whole):
        published.append(whole)
        images = Path(arguments[arguments.index("-o") + 1])
        images.mkdir(parents=True)
        layout = json.loads(layout_file.read_text())
        for dll in layout["compiler"] + layout["analyzers"]:
            data = Path(dll).read_bytes()
            (images / Path(dll).name).write_bytes(data if whole else data[: len(data) // 2])
            if not whole:
                raise KeyboardInterrupt  # killed in the middle of the first image
        (tmp_path / "ready-to-run" / "obj").mkdir()
        (tmp_path / "ready-to-run" / "obj" / "project.assets.json").write_text('{"project": {"frameworks": {"net10.0": {}}}}')
        return subprocess.CompletedProcess(arguments, 0, "", "")

    monkeypatch.setattr(dotnet_packages, "_start_making_ready_to_run", started.append)
    monkeypatch.setattr(dotnet_packages, "_run_dotnet", lambda arguments, what: publish(arguments, what, whole=False))
    with pytest.raises(KeyboardInterrupt):
        dotnet_packages.make_ready_to_run(tmp_path)
    half = dotnet_packages._read_layout(tmp_path, layout_file)
    assert (half.compiler_images, half.analyzer_images) == (half.compiler_dlls, half.analyzer_dlls)
    assert half.ready_to_run == READY_TO_RUN_PENDING and started == [tmp_path]  # and a later process tries again
    monkeypatch.setattr(dotnet_packages, "_run_dotnet", lambda arguments, what: publish(arguments, what, whole=True))
    dotnet_packages.make_ready_to_run(tmp_path)
    dotnet_packages.make_ready_to_run(tmp_path)  # made: nothing more to do
    whole = dotnet_packages._read_layout(tmp_path, layout_file)
    assert published == [False, True] and started == [tmp_path]
    assert whole.compiler_images != whole.compiler_dlls and whole.ready_to_run.startswith("made by crossgen2 in ")
    for image, dll in zip(whole.compiler_images + whole.analyzer_images, whole.compiler_dlls + whole.analyzer_dlls):
        assert Path(image).read_bytes() == Path(dll).read_bytes()  # the half image is gone, never named


def test_a_second_process_never_makes_the_images_while_one_is_making_them(tmp_path, monkeypatch):
    import fcntl

    restored_without_images(tmp_path)
    published, spawned = [], []
    monkeypatch.setattr(dotnet_packages, "_run_dotnet", lambda *arguments: published.append(arguments))
    monkeypatch.setattr(subprocess, "Popen", lambda command, **_: spawned.append(command))
    with open(tmp_path / ".ready-to-run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process is making them
        dotnet_packages.make_ready_to_run(tmp_path)
        dotnet_packages._start_making_ready_to_run(tmp_path)
    assert (published, spawned) == ([], [])
    dotnet_packages._start_making_ready_to_run(tmp_path)
    assert spawned == [[sys.executable, "-m", "kite.dotnet.packages", str(tmp_path)]]


def test_the_test_host_and_its_stdlib_are_ready_to_run_and_a_failing_crossgen2_leaves_the_il(tmp_path):
    from kite.dotnet import own_images
    from kite.dotnet.runtime import boot
    from kite.session import Session

    restored = dotnet_packages.restore()
    dotnet_packages.make_ready_to_run(restored.cache_dir, wait=True)  # kite's own images use the same crossgen2
    boot()  # for is_ready_to_run's PEReader
    with Session() as session:
        host_dir = session.pool.host_dir
        assert is_ready_to_run(str(host_dir / "KiteTestHost.dll")) and is_ready_to_run(str(host_dir / "Kite.Std.dll"))
        (tmp_path / "il.dll").write_bytes(session.compiler.stdlib_image())  # what answers compile against: IL
        assert not is_ready_to_run(str(tmp_path / "il.dll"))  # the check can fail
    assert run_kite(["test", "samples/word_count.kite"], REPO).exit_code == 0
    assert own_images.ready_to_run(restored, "Broken", b"not an assembly", {}) == b"not an assembly"  # only speed differs
