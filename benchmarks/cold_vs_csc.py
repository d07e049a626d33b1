"""A first, cold `kite check --no-server` against the SDK's own `csc` on the same generated C#, with the same
reference assemblies, .NET analyzers, nullable context, warning level and CA rule severities, in CPU seconds
(children's rusage). Target (issue 27): <= 1.0x. kite runs as the `kite` executable does (`python -m kite.cli`:
kite.cli.entry, then kite.cli.main once; `-m kite.cli.main` would import the CLI twice, as __main__ and by name). KT007/KT012 are not given to csc: they are compiled in kite's
process from its own source, so csc runs without them (kite does a little more work). kite runs twice: as shipped, loading the ReadyToRun images of Roslyn and the analyzers
that its first use made, and with KITE_READY_TO_RUN=0, loading the restored IL DLLs (JIT-compiled as they run). kite's
Python modules are run from their bytecode caches, as an installed kite's are; a line says what it costs without them
(an editable install in a shell with PYTHONDONTWRITEBYTECODE=1 compiles them at every start). Then
where kite's cold time goes, phase by phase, both ways (benchmarks/cold_check.py's phases, kite's own assemblies read
from the disk cache as on every cold start after the first).

    .venv/bin/python benchmarks/cold_vs_csc.py
"""

from __future__ import annotations

import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from check import PROGRAM
from cold_check import phases

ROUNDS = 5


def child_cpu_seconds(command: list[str], **options) -> tuple[float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, **options, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done


def csc_dll() -> Path:
    """The newest SDK's Roslyn, from `dotnet --list-sdks` ("10.0.401 [/usr/share/dotnet/sdk]")."""
    version, folder = re.fullmatch(r"(\S+) \[(.*)\]", subprocess.run(["dotnet", "--list-sdks"], capture_output=True, text=True,
                                                                      check=True).stdout.strip().splitlines()[-1]).groups()
    return Path(folder) / version / "Roslyn" / "bincore" / "csc.dll"


def global_config() -> str:
    """analyzer_rules.toml as the SDK states rule severities."""
    from kite.dotnet.roslyn import AnalyzerRules

    rules = AnalyzerRules.load()
    lines = ["is_global = true"]
    lines += [f"dotnet_diagnostic.{rule}.severity = warning" for rule in rules.on]
    lines += [f"dotnet_diagnostic.{rule}.severity = none" for rule in rules.off]
    return "\n".join(lines) + "\n"


def csc_command(folder: Path, sources: list[str]) -> list[str]:
    from kite.dotnet.packages import restore
    from kite.dotnet.roslyn import LANGUAGE_VERSION, WARNING_LEVEL, WITHOUT_REFERENCES
    from kite.standard_library import CSHARP_ALIAS

    packages = restore()
    return ["dotnet", str(csc_dll()), "/noconfig", "/nostdlib", "/nologo", "/target:library", "/nullable:enable",
            f"/warn:{WARNING_LEVEL}", f"/langversion:{LANGUAGE_VERSION.removeprefix('CSharp')}", f"/out:{folder / 'Out.dll'}",
            f"/analyzerconfig:{folder / '.globalconfig'}", f"/reference:{CSHARP_ALIAS}={folder / 'Kite.Std.dll'}",
            *(f"/reference:{dll}" for dll in packages.reference_dlls if Path(dll).name not in WITHOUT_REFERENCES),
            *(f"/analyzer:{dll}" for dll in packages.analyzer_dlls), *sources]


def main() -> None:
    from kite.dotnet.packages import READY_TO_RUN_SWITCH
    from kite.session import Session
    from kite.source import decode
    from kite.units import Unit

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        # kite as installed, its modules' bytecode cached (pip writes it at install), whatever this shell says: one
        # run writes it into a folder of its own, so the clone is left as it is.
        env = {**{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
               "KITE_NO_SERVER": "1", "PYTHONPYCACHEPREFIX": str(folder / "bytecode")}
        il_env = {**env, READY_TO_RUN_SWITCH: "0"}
        # and as a shell that says PYTHONDONTWRITEBYTECODE=1 runs an editable install: kite's modules compiled at every start
        uncached_env = {**{key: value for key, value in env.items() if key != "PYTHONPYCACHEPREFIX"}, "PYTHONDONTWRITEBYTECODE": "1"}
        program = folder / "orders.kite"
        program.write_text(PROGRAM.format(n=0))
        with Session() as session:
            generated = session.analyze(Unit(decode(str(program), program.read_bytes()))).generated.sources
            (folder / "Kite.Std.dll").write_bytes(session.compiler.stdlib_image())
        sources = []
        for file_name, text in generated:
            (folder / Path(file_name).name).write_text(text)
            sources.append(str(folder / Path(file_name).name))
        (folder / ".globalconfig").write_text(global_config())
        kite_cpu, il_cpu, uncached_cpu, csc_cpu = [], [], [], []
        child_cpu_seconds([sys.executable, "-m", "kite.cli", "check", "--no-server", str(program)], env=env)  # the bytecode
        for _ in range(ROUNDS):
            for cpu, environment in ((kite_cpu, env), (il_cpu, il_env), (uncached_cpu, uncached_env)):
                seconds, done = child_cpu_seconds([sys.executable, "-m", "kite.cli", "check", "--no-server", str(program)],
                                                  env=environment)
                cpu.append(seconds)
            seconds, done = child_cpu_seconds(csc_command(folder, sources), cwd=folder)
            if done.returncode != 0:
                sys.exit(f"csc failed:\n{done.stdout}{done.stderr}")
            csc_cpu.append(seconds)
        ready, jitted = phases(env), phases(il_env)
    kite, il, csc = statistics.median(kite_cpu), statistics.median(il_cpu), statistics.median(csc_cpu)
    uncached = statistics.median(uncached_cpu)
    print(f"{PROGRAM.count(chr(10))}-line program, cold, CPU seconds (median of {ROUNDS}); load {os.getloadavg()}")
    print(f"  kite check --no-server (ReadyToRun Roslyn):  {kite:6.2f}")
    print(f"  the same, KITE_READY_TO_RUN=0 (IL Roslyn):   {il:6.2f}")
    print(f"  the same, no bytecode caches for kite's modules: {uncached:6.2f}")
    print(f"  csc (same C#, refs, CA analyzers):           {csc:6.2f}   warnings: {done.stdout.count('warning')}")
    print(f"  kite / csc:                                  {kite / csc:6.2f}x   (target <= 1.0x; {il / csc:.2f}x with IL Roslyn, "
          f"{uncached / csc:.2f}x without bytecode caches)")
    print("where a cold kite check's CPU goes (one fresh process, samples/inventory.kite), CPU seconds:")
    print(f"  {'phase':52} {'ReadyToRun':>10} {'IL':>6}")
    for (phase, cpu, _wall), (_, il_phase_cpu, _) in zip(ready, jitted):
        print(f"  {phase:52} {cpu:10.2f} {il_phase_cpu:6.2f}")
    print(f"  {'sum':52} {sum(row[1] for row in ready):10.2f} {sum(row[1] for row in jitted):6.2f}")

if __name__ == "__main__":
    main()
