"""`kite`: arguments, then the session, then an emitter, then the exit code; nothing else.

Exit codes: 0 fine, 1 the code failed, 2 unusable input or toolchain, 3 a bug in kite."""

from __future__ import annotations

import contextlib
import platform
import sys

import click

from kite import __version__, diagnostics as diag
from kite.cli import emitters
from kite.cli.common import (
    budget_option,
    compile_memory_option,
    compile_timeout_option,
    debugging,
    examples,
    exit_code,
    guarded,
    never_collect,
    output_option,
    reveal_option,
    timeout_option,
)
from kite.cli.debug import dap, debug
from kite.cli.fmt import fmt
from kite.cli.report import report
from kite.cli.tasks import tasks
from kite.display import visible
from kite.errors import NoTests, UnusableInput
from kite.progress import say

# Accepted by the commands the warm server runs; `entry` reads it before click does (so does KITE_NO_SERVER=1).
no_server_option = click.option("--no-server", is_flag=True, expose_value=False,
                                help="Run in this process, not through the warm background server (also KITE_NO_SERVER=1).")


def version_lines() -> list[str]:
    import lark

    from kite.dotnet.runtime import boot
    from kite.syntax.lalr import c_loop_in_use

    loop = "C (kite.syntax._lalr)" if c_loop_in_use() else "Python (no C compiler at install)"
    lines = [f"kite {__version__}", f"Python {platform.python_version()} ({sys.executable})",
             f"Parser: Lark {lark.__version__}, its LALR loop in {loop}"]
    runtime = boot()
    versions = runtime.packages.versions
    lines += [
        f".NET runtime {runtime.runtime_version} ({runtime.runtime_dir})",
        f"Roslyn (Microsoft.CodeAnalysis.CSharp) {versions['Microsoft.CodeAnalysis.CSharp']} ({runtime.packages.compiler_dlls[-1]})",
        f"Analyzers (Microsoft.CodeAnalysis.NetAnalyzers) {versions['Microsoft.CodeAnalysis.NetAnalyzers']} ({runtime.packages.analyzer_dlls[0]})",
        f"Reference assemblies (Microsoft.NETCore.App.Ref) {versions['Microsoft.NETCore.App.Ref']}",
        f"ReadyToRun images of Roslyn and the analyzers: {runtime.packages.ready_to_run}",
    ]
    return lines


def print_version(ctx, _param, value):
    if not value or ctx.resilient_parsing:
        return
    guarded(lambda: click.echo("\n".join(version_lines())))()
    ctx.exit(0)


@click.group(name="kite", context_settings={"help_option_names": ["-h", "--help"]}, epilog=examples('kite check samples/', 'kite test samples/word_count.kite', 'kite new hello && kite run hello/hello.kite'))
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=print_version,
              help="Show the versions of kite, Python, .NET, Roslyn and the analyzers, and exit.")
@click.option("--debug", is_flag=True, help="Print the traceback of an internal error (JSON output always carries it).")
def main(debug):
    """Kite: check, test and build Kite programs through four layers (Kite, C# compiler, .NET analyzers, tests)."""


# What each format is, for --help; a command lists only those it accepts.
FORMAT_HELP = {
    "text": "for people", "full": "each diagnostic with its source line and carets under it",
    "json": "one document for scripts (docs/cli.md)", "sarif": "SARIF 2.1.0 for code scanning", "junit": "JUnit XML",
    "github": "GitHub Actions annotations",
}


def format_option(command: str):
    accepted = emitters.formats_for(command)
    return click.option("--format", "output_format", type=click.Choice(accepted), default="text", show_default=True,
                        help=" ".join(f"{name}: {FORMAT_HELP.get(name, 'see docs/cli.md')}." for name in accepted))


def graded(session, sources, action) -> list:
    """Every unit through `action`, with progress on a terminal; a unit's problem is printed as its one line."""
    reports = []
    for number, source in enumerate(sources, start=1):
        if len(sources) > 1:
            say(f"[{number}/{len(sources)}] {visible(source.program)}")
        report = session.grade(source, action)
        if report.problem is not None:
            label = "error" if report.problem.kind == "unusable" else "internal error"
            click.echo(f"kite: {label}: {visible(report.problem.message)}", err=True)
            if report.problem.traceback and debugging():
                click.echo(report.problem.traceback, err=True)
        reports.append(report)
    return reports


def echo_nonempty(text: str) -> None:
    if text:
        click.echo(text)


def units_exit_code(reports, failed) -> int:
    """The worst that happened to any unit; `failed(report)` says whether a checked unit's code failed."""
    from kite.session import internal_errors

    return exit_code(
        internal=any(report.problem and report.problem.kind == "internal" for report in reports) or any(map(internal_errors, reports)),
        unusable=any(report.problem for report in reports),
        failed=any(failed(report) for report in reports if report.problem is None and not report.skipped),
    )


@main.command(epilog=examples('kite check samples/', 'kite check --format sarif src/ > kite.sarif', 'kite check --layer kite --new-only --state agent.json edited.kite'))
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option("--layer", type=click.Choice(["kite", "all"]), default="all", show_default=True,
              help="kite: Kite's own parser and rules only (fast, no .NET). all: also the C# compiler and the .NET analyzers.")
@format_option("check")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on warnings too.")
@click.option("--new-only", is_flag=True, help="Print only the diagnostics that --state has not reported (keyed by file, "
              "severity, code and message, not position); the exit code still counts them all.")
@click.option("--state", "state_path", type=click.Path(dir_okay=False, readable=False), help="With --new-only: the file that remembers "
              "what the latest check of each file reported (created when missing).")
@click.option("--fix", "apply_fixes", is_flag=True, help="First apply every safe fix the diagnostics carry (C# habits, let mut "
              "never changed, other languages' words), say each (file, line, rule, before -> after), then check the fixed files.")
@compile_timeout_option
@no_server_option
@guarded
def check(paths, layer, output_format, strict, new_only, state_path, apply_fixes, compile_timeout):
    """Check Kite files or folders (*.kite, recursively).

    Exit 0 if no errors, 1 if any, 2 for unusable input (the other files are still checked), 3 for a bug in kite."""
    from kite.session import Session, UnitReport
    from kite.units import find_units

    if new_only != (state_path is not None):
        raise UnusableInput("--new-only and --state go together")
    if new_only and not hasattr(emitters.emitter(output_format), "check_new"):
        raise UnusableInput(f"--new-only prints text or json, not {output_format}")
    sources = find_units(list(paths) or ["."])
    if apply_fixes:
        from kite.cli.fixes import fix_units

        fix_units(sources, err=output_format in ("json", "sarif"))
    with Session(compile_timeout=compile_timeout) as session:
        through = diag.Layer.KITE if layer == "kite" else diag.Layer.ANALYZERS
        reports = graded(session, sources, lambda unit: UnitReport(unit.program.path, check=session.check(unit, through)))
    if new_only:
        from kite.new_only import new_diagnostics

        echo_nonempty(emitters.emitter(output_format).check_new(reports, new_diagnostics(sources, reports, state_path)))
    else:
        echo_nonempty(emitters.emitter(output_format).check(reports))
    unclean = diag.Verdict.FAILED if not strict else diag.Verdict.COMPILED
    sys.exit(units_exit_code(reports, lambda report: report.check.verdict is unclean or report.check.verdict is diag.Verdict.FAILED))


@main.command(epilog=examples('kite prose answer.md', 'kite prose --format json answer.md'))
@click.argument("path", type=click.Path(readable=False))
@click.option("--format", "output_format", type=click.Choice(emitters.formats_for("prose")), default="text", show_default=True,
              help="text: a line per phrase found. json: one document for scripts (docs/scoring.md).")
@guarded
def prose(path, output_format):
    """Find known slop phrases in the prose of a Markdown file (code blocks and inline code are ignored).

    A clean result means no known phrase was found, not that the text has no slop. Exit 0 when none was found, 1 when
    some were, 2 for unusable input."""
    from kite.scoring.answer import extract
    from kite.scoring.slop import ProseReport, slop
    from kite.source import read

    text = read(path).text
    report = ProseReport(path, text, tuple(slop(extract(text).prose)))
    click.echo(emitters.emitter(output_format).prose(report))
    sys.exit(exit_code(failed=bool(report.hits)))


@main.command(epilog=examples('kite build hello.kite -o out/   # then: dotnet out/Hello.dll', 'kite build hello.kite --output out/ --compile-timeout 60'))
@click.argument("program", type=click.Path(readable=False))
@output_option("output", type=click.Path(file_okay=False, readable=False), required=True,
               help="Folder for <Module>.dll, Kite.Std.dll and <Module>.runtimeconfig.json.")
@click.option("--debug", is_flag=True,
              help="A debugger's build: Debug optimization, <Module>.pdb beside the assembly, absolute #line paths and a "
                   "checksum per Kite file (never what grading runs).")
@compile_timeout_option
@no_server_option
@guarded
def build(program, output, debug, compile_timeout):
    """Compile PROGRAM into an assembly that `dotnet OUTPUT/<Module>.dll` runs, entering at fn main."""
    reports = built(program, output, compile_timeout, debug=debug)
    [report] = reports
    if report.check is not None:
        click.echo(emitters.emitter("text").check(reports))
    if report.built is not None:
        click.echo(f"built {visible(str(report.built))}")
    sys.exit(units_exit_code(reports, lambda report: report.built is None))


def built(program: str, output: str, compile_timeout: float, debug: bool = False) -> list:
    """PROGRAM built into OUTPUT: its one report (what the layers found, the assembly or the problem)."""
    from pathlib import Path

    from kite.session import Session, UnitReport
    from kite.units import UnitSource

    def build_unit(unit):
        done = session.build(unit, Path(output), debug=debug)
        return UnitReport(unit.program.path, check=done.result, built=done.assembly)

    with Session(compile_timeout=compile_timeout) as session:
        return graded(session, [UnitSource(program)], build_unit)


@main.command(name="run", context_settings={"ignore_unknown_options": True},
              epilog=examples("kite run hello.kite", "kite run hello.kite -- first second"))
@click.argument("program", type=click.Path(readable=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@compile_timeout_option
@guarded
def run_program(program, args, compile_timeout):
    """Build PROGRAM and run it (entering at fn main) with ARGS after `--`, as `kite build` then `dotnet` would.

    stdin, stdout and stderr are the program's; kite's own lines (diagnostics, problems) go to stderr. Exit with the
    program's exit code, or before it runs: 1 when it does not compile, 2 for unusable input, 3 for a bug in kite."""
    import functools
    import os
    import signal
    import tempfile

    from kite.dotnet.packages import dotnet_executable
    from kite.spawn import die_with_parent, spawn

    # Neither the program nor its folder outlives kite: stopped (SIGTERM from `timeout` or a supervisor, SIGHUP), kite
    # leaves through its cleanup, and the kernel kills the program however kite ended (kill -9 too).
    for stopping in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stopping, lambda signum, _frame: sys.exit(128 + signum))
    with tempfile.TemporaryDirectory(prefix="kite-run-") as folder:
        reports = built(program, folder, compile_timeout)
        [report] = reports
        if report.check is not None and (report.built is None or report.check.diagnostics):
            click.echo(emitters.emitter("text").check(reports), err=True)
        if report.built is None:
            sys.exit(units_exit_code(reports, lambda report: True))
        code = spawn([dotnet_executable(), str(report.built), *args], preexec_fn=functools.partial(die_with_parent, os.getpid())).wait()
    sys.exit(code if code >= 0 else 128 - code)  # killed by a signal: as a shell reports it


@main.command(epilog=examples("kite new hello && kite run hello/hello.kite", "kite new gcd --task && kite tasks check ."))
@click.argument("name")
@click.option("--task", is_flag=True, help="A task folder (prompt.md, solution.kite, solution.test.kite, task.toml; "
              "docs/tasks.md) instead of a program.")
@guarded
def new(name, task):
    """Make the folder NAME with a program you can run at once (NAME.kite with fn main), its tests (NAME.test.kite)
    and a README line; with --task, a task folder instead. Never writes over anything: exit 2 when NAME exists."""
    from pathlib import Path

    from kite.scaffold import scaffold

    for path in scaffold(name, Path(), task=task):
        click.echo(f"created {visible(str(path))}")
    click.echo(f"next: cd {visible(name)} && " + ("kite tasks check .." if task else f"kite run {visible(name)}.kite && kite test"))


@main.command(name="test", epilog=examples('kite test samples/word_count.kite', 'kite test solution.kite --tests hidden/ --format junit > results.xml'))
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option("--tests", "test_paths", multiple=True, type=click.Path(readable=False),
              help="Hidden tests: a test file or a folder of them (same module); repeatable; with one program. When "
                   "given, only these tests decide; the program's own tests are run and reported apart.")
@timeout_option
@budget_option
@click.option("--no-sandbox", is_flag=True,
              help="Run the tests without bubblewrap (no namespaces, no read-only file system): only for code you trust.")
@reveal_option
@format_option("test")
@compile_timeout_option
@compile_memory_option
@no_server_option
@guarded
def test_command(paths, test_paths, timeout, budget, no_sandbox, reveal, output_format, compile_timeout, compile_memory):
    """Compile each program (files or folders) with its tests through the static layers, then run its tests in a
    fresh sandboxed process.

    Exit 0 when every program compiles and every deciding test passes, 1 otherwise, 2 for unusable input or when
    bubblewrap is missing (unless --no-sandbox), 3 for a bug in kite."""
    import dataclasses

    from kite.session import Session, UnitReport
    from kite.testing.limits import Limits
    from kite.testing.outcomes import conceal
    from kite.units import find_units, kite_files

    sources = find_units(list(paths) or ["."])
    hidden = [str(path) for path in kite_files(test_paths)]
    if hidden:
        if len(sources) != 1:
            raise UnusableInput(f"--tests goes with one program, and {len(sources)} were given")
        sources = [dataclasses.replace(sources[0], tests=tuple(dict.fromkeys([*sources[0].tests, *hidden])))]

    def test_unit(unit):
        try:
            tests = session.test(unit, set(hidden) if hidden else None)
        except NoTests:
            if not source_of[unit.program.path].found_in_folder:
                raise
            return UnitReport(unit.program.path, skipped="no tests")  # a folder may hold programs without tests
        tests = conceal(tests, set(hidden), reveal)
        return UnitReport(unit.program.path, check=tests.check, tests=tests)

    source_of = {source.program: source for source in sources}
    limits = Limits(timeout_seconds=timeout, budget_seconds=budget)
    with Session(limits=limits, sandboxed=not no_sandbox, compile_timeout=compile_timeout, compile_memory_mb=compile_memory) as session:
        reports = graded(session, sources, test_unit)
    echo_nonempty(emitters.emitter(output_format).test(reports))
    sys.exit(units_exit_code(reports, lambda report: not report.tests.passes))


@main.command(epilog=examples('kite score run.jsonl --field response.text --tasks tasks/ -o results.jsonl', 'kite score run.jsonl --field text --jobs 2 --resume'))
@click.argument("run", type=click.Path(readable=False))
@click.option("--field", required=True, help="Dotted path to the answer's text in each JSON line (a.b.0.c).")
@click.option("--tasks", "tasks_dir", type=click.Path(readable=False), help="Folder of tasks: TASKS/<task_id>/*.test.kite are the hidden "
              "tests, TASKS/<task_id>/task.toml may name the module. Without it only the static layers run.")
@click.option("--task-field", default="task_id", show_default=True, help="Dotted path to the task id (with --tasks).")
@click.option("--id-field", help="Dotted path to the answer's id, copied into its result.")
@output_option("out", "--out", default="results.jsonl", show_default=True, type=click.Path(dir_okay=False, readable=False),
               help="Results, one JSON line per answer, flushed as written; the summary goes beside it (results.jsonl: results.summary.json).")
@click.option("--resume", is_flag=True, help="Keep the results already in --output and grade only the answers missing there.")
@click.option("--format-field", help="Dotted path to each answer's format: kite (default), csharp, json, python or regex.")
@click.option("--model-score-field", help="Dotted path to a model's 0-10 score: the final score is its average with ours.")
@click.option("--regex-flavor", type=click.Choice(["dotnet", "python"]), default="dotnet", show_default=True,
              help="The engine that must compile a regex answer.")
@click.option("--jobs", type=click.IntRange(min=1, max=64), default=1, show_default=True,
              help="Worker processes, each holding one warm session.")
@click.option("--dask", "dask_address", help="Grade on a Dask cluster (scheduler address, e.g. tcp://host:8786); docs/scoring.md.")
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, readable=False),
              help="Folder of verdicts kept across runs, keyed by the toolchain, the program and the tests.")
@click.option("--max-line-bytes", type=click.IntRange(min=1), default=32 << 20, show_default=True,
              help="A run line longer than this is not read: its result is a problem (line too long).")
@timeout_option
@budget_option
@click.option("--no-sandbox", is_flag=True, help="Run the tests without bubblewrap: only for answers you trust.")
@reveal_option
@format_option("score")
@compile_timeout_option
@compile_memory_option
@guarded
def score(run, field, tasks_dir, task_field, id_field, out, resume, format_field, model_score_field, regex_flavor, jobs,
          dask_address, cache_dir, max_line_bytes, timeout, budget, no_sandbox, reveal, output_format, compile_timeout, compile_memory):
    """Grade every answer of RUN (JSON lines) through the four layers, write a result line per answer to --output and
    a summary beside it, and print the rates.

    Exit 0 when every answer got a result (failing answers are results too), 2 for unusable input (a missing task
    folder, an unreadable RUN), 3 when the grader failed on some answer (listed in the summary)."""
    from kite.scoring.executors import SessionSettings
    from kite.scoring.run import ScoreOptions, score as score_run

    options = ScoreOptions(
        run=run, answer_field=field, out=out, tasks=tasks_dir, task_field=task_field, id_field=id_field, format_field=format_field,
        model_score_field=model_score_field, regex_flavor=regex_flavor, resume=resume, jobs=jobs, dask=dask_address,
        cache=cache_dir, max_line_bytes=max_line_bytes, reveal=reveal, session=SessionSettings(sandboxed=not no_sandbox, timeout_seconds=timeout, budget_seconds=budget,
                                                 compile_timeout_seconds=compile_timeout, compile_memory_mb=compile_memory),
    )
    with progress_bar() as progress:
        summary = score_run(options, progress)
    click.echo(emitters.emitter(output_format).score(summary))
    faults = [u for u in summary["ungradable"]["answers"] if u["kind"] == "grader fault"]
    sys.exit(exit_code(internal=bool(faults)))


# The rungs of kite.search.pattern.CONTEXTS, spelled here so `kite --help` does not load the parser.
context_option = click.option(
    "--context", type=click.Choice(["expression", "statement", "item", "module"]),
    help="Read PATTERN as this kind of code; by default the first of expression, statement, item, module that parses it.")


@main.command(epilog=examples("kite graph src/", "kite graph --callers total --format json ."))
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False))
@click.option("--format", "output_format", type=click.Choice(emitters.formats_for("graph")), default="text", show_default=True,
              help="text: a line per symbol and per edge. json: {symbols, edges}, a list for a query (docs/graph.md).")
@click.option("--callers", metavar="NAME", help="The functions and tests that call or construct NAME (a name or an id).")
@click.option("--callees", metavar="NAME", help="What NAME calls or constructs (standard-library functions as std.NAME).")
@click.option("--impact", metavar="NAME", help="Everything that depends on NAME, transitively: callers of callers, tests, types.")
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, readable=False),
              help="Folder of each file's index kept across runs (kite find's may be the same), keyed by its path, text and the toolchain.")
@click.option("--jobs", type=click.IntRange(min=1, max=64), help="Worker processes indexing files at once  [default: the CPU count].")
@guarded
def graph(paths, output_format, callers, callees, impact, cache_dir, jobs):
    """The code graph of Kite files or folders (*.kite, recursively), from the syntax alone: symbols (functions,
    types, fields, enums, members, constants, tests) and edges (calls, uses, constructs, tests).

    A query prints one line per symbol: file(line,col): kind id. NAME is a plain name (total) or an id (Shop.total);
    an unknown or ambiguous NAME is exit 2 (the candidates listed). A file that does not parse still gives the
    symbols that do, and says on stderr which lines were left out. Exit 2 for a file that cannot be read."""
    from kite.cli.graph import run_graph

    never_collect()
    sys.exit(run_graph(list(paths), output_format, {"callers": callers, "callees": callees, "impact": impact}, cache_dir, jobs))


@main.command(epilog=examples("kite find 'print($X)' src/", "kite find --format json 'xs.Where($F).ToList()' ."))
@click.argument("pattern")
@click.argument("paths", nargs=-1, required=True, type=click.Path(readable=False))
@context_option
@click.option("--format", "output_format", type=click.Choice(emitters.formats_for("find")), default="text", show_default=True,
              help="text: file(line,col)-(line,col): matched text, then a count. json: matches with their bindings (docs/find.md).")
@click.option("--jobs", type=click.IntRange(min=1, max=64), help="Worker processes searching files at once  [default: the CPU count].")
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, readable=False),
              help="Folder of parsed files kept across searches, keyed by each file's text and the toolchain.")
@guarded
def find(pattern, paths, context, output_format, jobs, cache_dir):
    """Find code shaped like PATTERN in Kite files or folders (*.kite, recursively).

    PATTERN is Kite with metavariables: $X matches one node (the same code wherever $X is repeated), $$$ARGS a run of
    nodes, $_ any node. Strings and comments never match. Exit 0 when something matched, 1 when nothing did, 2 for an
    unusable pattern or file (the other files are still searched)."""
    from kite.cli.find import run_find

    never_collect()
    sys.exit(run_find(pattern, list(paths), context, output_format, jobs, cache_dir))


@main.command(epilog=examples("kite rewrite 'len($X) == 0' --to 'is_empty($X)' src/", 'kite rewrite --apply kite-rewrite.plan.json --check'))
@click.argument("pattern", required=False)
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option("--to", "template", help="What each match becomes; the pattern's metavariables stand for what they matched.")
@output_option("plan_path", "--plan", default="kite-rewrite.plan.json", show_default=True, type=click.Path(dir_okay=False, readable=False),
               help="Where the plan is written.")
@click.option("--apply", "apply_plan", type=click.Path(dir_okay=False, readable=False),
              help="Write the files of this plan: all of them, or none when any changed since it was made.")
@click.option("--check", "check_result", is_flag=True, help="With --apply: refuse the plan when a rewritten file would not parse.")
@context_option
@guarded
def rewrite(pattern, paths, template, plan_path, apply_plan, check_result, context):
    """Prepare a structural rewrite: `kite rewrite PATTERN --to TEMPLATE PATH...` prints the diff and writes only the
    plan. Then `kite rewrite --apply PLAN [--check]` writes every file of it, or none.

    Exit 0 when a plan was made or applied, 1 when nothing matched or the plan was refused (nothing written), 2 for
    unusable input."""
    from kite.cli.find import run_apply, run_prepare

    if apply_plan:
        if pattern or paths or template:
            raise UnusableInput("--apply PLAN takes no pattern, paths or --to: the plan holds them")
        sys.exit(run_apply(apply_plan, check_result))
    sys.exit(run_prepare(pattern, template, list(paths), context, plan_path))


@main.command(epilog=examples('kite lsp', 'kite lsp --stdio   # as an editor starts it (docs/editors.md)'))
@click.option("--stdio", is_flag=True, help="Talk LSP over stdin and stdout (the default, and the only transport).")
def lsp(stdio):
    """Run the Kite language server over stdio, for editors and agents' edit tools (docs/editors.md).

    Kite's own layer follows every change; the C# compiler and analyzers follow after a quiet period or on save, and
    start only when first needed."""
    from kite.lsp.server import serve

    serve()


@main.group(epilog=examples('kite server status', 'kite server stop'))
def server():
    """The warm background server that `kite check`, `kite test` and `kite build` go through (docs/cli.md)."""


def ask_server(op: str) -> dict | None:
    """The server's reply, or None when none runs (or it hung, and was ended)."""
    from kite.cli.warm_server import request

    try:
        return request({"op": op})
    except (OSError, ValueError):
        return None


@server.command(epilog=examples('kite server status'))
@guarded
def status():
    """Show whether this user's server for this kite runs: its pid, socket and idle time-out. Exit 1 when none runs."""
    from kite.cli.warm_server import socket_path

    found = ask_server("status")
    if found is None:
        click.echo(f"no kite server running ({visible(str(socket_path()))})")
        sys.exit(exit_code(failed=True))
    click.echo(f"kite server running: pid {found['pid']}, socket {visible(found['socket'])}, exits after {found['idle_exit']:g} s idle")


@server.command(epilog=examples('kite server stop'))
@guarded
def stop():
    """End this user's server for this kite, if it runs."""
    found = ask_server("stop")
    if found is None:
        click.echo("no kite server running")
        return
    click.echo(f"kite server stopped (pid {found['pid']})")


@contextlib.contextmanager
def progress_bar():
    """Rate and time left on stderr when it is a terminal; nothing otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("scoring", total=None, rate="")

        def advance(done: int, total: int) -> None:
            speed = bar.tasks[0].speed
            bar.update(task, completed=done, total=total, rate=f"{speed:.1f} answers/s" if speed else "")

        yield advance


main.add_command(report)
main.add_command(tasks)
main.add_command(fmt)
main.add_command(dap)
main.add_command(debug)

if __name__ == "__main__":
    from kite.cli.entry import entry

    entry()
