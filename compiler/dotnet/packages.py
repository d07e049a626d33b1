"""Restoring the pinned .NET packages once into a cache folder, and finding their DLLs."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from kite.atomic import write_atomically
from kite.errors import ToolchainError
from kite.own_files import cache_root
from kite.progress import say

PROJECT_FILES = ("KiteToolchain.csproj", "packages.lock.json", "KiteReadyToRun.csproj")
RESTORE_TIMEOUT_SECONDS = 600
READY_TO_RUN_SWITCH = "KITE_READY_TO_RUN"  # "0": load the restored IL DLLs, not their ReadyToRun copies
READY_TO_RUN_PENDING = "none yet: crossgen2 is making them in the background"
ANALYZER_PACKAGE = "Microsoft.CodeAnalysis.NetAnalyzers"


@dataclass(frozen=True)
class DotnetPackages:
    """Where the restored parts live; plain paths and versions, no .NET objects."""

    cache_dir: Path
    compiler_dlls: tuple[str, ...]  # Microsoft.CodeAnalysis(.CSharp) as restored, load order
    analyzer_dlls: tuple[str, ...]  # C# NetAnalyzers as restored
    reference_dlls: tuple[str, ...]  # the reference pack programs compile against
    versions: dict  # package name -> exact version
    compiler_images: tuple[str, ...]  # what is loaded: the ReadyToRun copies of compiler_dlls, or compiler_dlls
    analyzer_images: tuple[str, ...]  # likewise for analyzer_dlls
    ready_to_run: str  # how the images were made, or why they are the IL DLLs themselves


def _project_bytes() -> dict[str, bytes]:
    folder = resources.files("kite.dotnet")
    return {name: (folder / name).read_bytes() for name in PROJECT_FILES}


def dotnet_executable() -> str:
    found = shutil.which("dotnet")
    if found is None:
        raise ToolchainError("the .NET SDK is not installed: `dotnet` is not on PATH (install the .NET 10 SDK)")
    return found


def restore() -> DotnetPackages:
    """The packages, restored on first use; later calls only read a small layout file."""
    project = _project_bytes()
    digest = hashlib.sha256(b"".join(project[name] for name in PROJECT_FILES)).hexdigest()[:16]
    folder = cache_root() / f"dotnet-{digest}"
    layout_file = folder / "layout.json"
    if not layout_file.exists():
        folder.mkdir(parents=True, exist_ok=True)
        # Parallel test workers may arrive together: one restores, the others wait and reuse it.
        with open(folder / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not layout_file.exists():
                say("kite: first run: restoring the pinned .NET packages (once)")
                started = time.monotonic()
                _restore_into(folder, project, layout_file)
                say(f"kite: first run: .NET packages restored (Roslyn is precompiled in the background): took {time.monotonic() - started:.0f} s")
    return _read_layout(folder, layout_file)


def _restore_into(folder: Path, project: dict[str, bytes], layout_file: Path) -> None:
    for name, data in project.items():
        (folder / name).write_bytes(data)
    done = _run_dotnet(["restore", str(folder / PROJECT_FILES[0]), "--locked-mode"], "`dotnet restore` of Kite's .NET packages")
    if done.returncode != 0:
        raise ToolchainError(f"`dotnet restore` of Kite's .NET packages failed ({_first_error(done)}); is NuGet reachable?")
    layout = _layout_from_assets(json.loads((folder / "obj" / "project.assets.json").read_text()))
    # No "images" yet: the IL DLLs are loaded until make_ready_to_run adds them (in the background, see _read_layout).
    write_atomically(layout_file, json.dumps(layout, indent=1, sort_keys=True).encode())  # a half-written layout never counts as restored


def make_ready_to_run(folder: Path, wait: bool = False) -> None:
    """Add ReadyToRun images to a restored layout, once per folder: a process that finds another making them returns
    at once (or, with `wait`, waits for it). The layout names them only when all are written, in one atomic rewrite,
    so a crossgen2 killed halfway leaves the IL DLLs in use and the next process starts over."""
    with open(folder / ".ready-to-run.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return
        layout_file = folder / "layout.json"
        layout = json.loads(layout_file.read_text())
        if "images" in layout:
            return
        layout["images"], layout["ready_to_run"] = _ready_to_run(folder, layout)
        write_atomically(layout_file, json.dumps(layout, indent=1, sort_keys=True).encode())


def _start_making_ready_to_run(folder: Path) -> None:
    """make_ready_to_run in a process of its own, detached: no command waits for crossgen2, and Ctrl-C or the end
    of the command that started it does not stop it. Not started while another is making them (the same lock)."""
    with open(folder / ".ready-to-run.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return
    subprocess.Popen([sys.executable, "-m", "kite.dotnet.packages", str(folder)], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _ready_to_run(folder: Path, layout: dict) -> tuple[dict | None, str]:
    """ReadyToRun copies of the compiler and analyzer DLLs, and how they were made. Only speed depends on them, so
    a machine where crossgen2 cannot run (no pack for its runtime, NuGet unreachable) loads the IL DLLs instead."""
    # Imported here: it pulls in urllib, http and email (a fifth of the compile process's imports, at module level).
    from xml.sax.saxutils import quoteattr

    work = folder / "ready-to-run"
    shutil.rmtree(work, ignore_errors=True)  # what a killed run left: never used, since no layout names it
    work.mkdir()
    (work / PROJECT_FILES[2]).write_bytes((folder / PROJECT_FILES[2]).read_bytes())
    inputs = "".join(f"<Reference Include={quoteattr(path)} />" for path in layout["compiler"] + layout["analyzers"])
    (work / "inputs.props").write_text(f"<Project><ItemGroup>{inputs}</ItemGroup></Project>\n")
    done = _run_dotnet(["publish", str(work / PROJECT_FILES[2]), "-c", "Release", "-o", str(work / "images")],
                       "`dotnet publish` of Kite's ReadyToRun images")
    if done.returncode != 0:
        return None, f"none: `dotnet publish` with crossgen2 failed ({_first_error(done)})"
    images = {key: [str(work / "images" / Path(path).name) for path in layout[key]] for key in ("compiler", "analyzers")}
    crossgen = _crossgen_download(json.loads((work / "obj" / "project.assets.json").read_text()))
    made_by = " ".join(crossgen) if crossgen else "crossgen2"
    return images, f"made by {made_by} in {work / 'images'}"


def _crossgen_download(assets: dict) -> tuple[str, str] | None:
    """(package name, version) of the crossgen2 the ReadyToRun project's restore downloaded, from its assets file."""
    downloads = assets["project"]["frameworks"]["net10.0"].get("downloadDependencies", [])
    for download in downloads:
        if download["name"].startswith("Microsoft.NETCore.App.Crossgen2."):
            return download["name"], download["version"].strip("[]").split(",")[0].strip()
    return None


def crossgen2(packages: DotnetPackages) -> Path | None:
    """The crossgen2 that made the ReadyToRun images (kite's own images are made with it too), or None while there
    is none: not made yet, turned off, or failed."""
    if packages.compiler_images == packages.compiler_dlls:
        return None
    try:
        assets = json.loads((packages.cache_dir / "ready-to-run" / "obj" / "project.assets.json").read_text())
    except (OSError, ValueError):
        return None
    crossgen = _crossgen_download(assets)
    if crossgen is None:
        return None
    name, version = crossgen
    for package_root in assets["packageFolders"]:
        found = Path(package_root) / name.lower() / version / "tools" / "crossgen2"
        if found.is_file():
            return found
    return None


def _run_dotnet(arguments: list[str], what: str) -> subprocess.CompletedProcess:
    command = [dotnet_executable(), *arguments, "--nologo", "-v", "q"]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=RESTORE_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise ToolchainError(f"{what} took over {RESTORE_TIMEOUT_SECONDS} s") from None


def _first_error(done: subprocess.CompletedProcess) -> str:
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if "error" in line.lower()]
    return lines[0] if lines else f"exit code {done.returncode}"


def _layout_from_assets(assets: dict) -> dict:
    (package_root,) = assets["packageFolders"]
    versions, compiler, analyzers = {}, [], []
    for key, library in sorted(assets["libraries"].items()):
        name, version = key.split("/")
        versions[name] = version
        base = Path(package_root) / library["path"]
        for file in library.get("files", []):
            if file.startswith("lib/net10.0/") and file.endswith(".dll") and file.count("/") == 2:
                compiler.append(str(base / file))
            elif name == ANALYZER_PACKAGE and file.startswith("analyzers/dotnet/cs/") and file.endswith(".dll") and file.count("/") == 3:
                analyzers.append(str(base / file))
    downloads = assets["project"]["frameworks"]["net10.0"].get("downloadDependencies", [])
    for download in downloads:
        version = download["version"].strip("[]").split(",")[0].strip()
        versions[download["name"]] = version
    ref_version = versions["Microsoft.NETCore.App.Ref"]
    ref_dir = Path(package_root) / "microsoft.netcore.app.ref" / ref_version / "ref" / "net10.0"
    references = sorted(str(p) for p in ref_dir.glob("*.dll"))
    # Microsoft.CodeAnalysis must load before Microsoft.CodeAnalysis.CSharp.
    compiler.sort(key=lambda path: (len(Path(path).name), path))
    return {"compiler": compiler, "analyzers": sorted(analyzers), "references": references, "versions": versions}


def _read_layout(folder: Path, layout_file: Path) -> DotnetPackages:
    layout = json.loads(layout_file.read_text())
    images, ready_to_run = layout.get("images"), layout.get("ready_to_run", READY_TO_RUN_PENDING)
    if os.environ.get(READY_TO_RUN_SWITCH) == "0":
        images, ready_to_run = None, f"none: {READY_TO_RUN_SWITCH}=0"
    elif "images" not in layout:
        _start_making_ready_to_run(folder)
    images = images or {"compiler": layout["compiler"], "analyzers": layout["analyzers"]}
    needed = [*layout["compiler"], *layout["analyzers"], *layout["references"], *images["compiler"], *images["analyzers"]]
    missing = [path for path in needed if not Path(path).exists()]
    if missing or not layout["references"]:
        layout_file.unlink(missing_ok=True)
        raise ToolchainError(f"Kite's restored .NET packages are incomplete ({missing[0] if missing else 'no reference assemblies'}); run the command again to restore them")
    return DotnetPackages(
        cache_dir=folder,
        compiler_dlls=tuple(layout["compiler"]),
        analyzer_dlls=tuple(layout["analyzers"]),
        reference_dlls=tuple(layout["references"]),
        versions=layout["versions"],
        compiler_images=tuple(images["compiler"]),
        analyzer_images=tuple(images["analyzers"]),
        ready_to_run=ready_to_run,
    )


if __name__ == "__main__":  # _start_making_ready_to_run's process
    make_ready_to_run(Path(sys.argv[1]))
