"""`kite dap` (a debug adapter on stdio) and `kite debug` (one stop, printed, for an agent with no DAP client):
thin adapters over kite.debug.session."""

from __future__ import annotations

import json
import os
import sys
import threading

import click

from kite.cli.common import examples, exit_code, guarded
from kite.defaults import DEBUG_TTL_SECONDS
from kite.display import visible
from kite.errors import UnusableInput

ttl_option = click.option("--ttl", "ttl_seconds", type=click.FloatRange(min=1, max=24 * 3600), default=DEBUG_TTL_SECONDS,
                          show_default=True, help="Seconds a session may live: past it the debuggee is killed.")
sandbox_option = click.option("--no-sandbox", is_flag=True,
                              help="Run the debuggee without bubblewrap: only for code you trust.")


@click.command(name="dap", epilog=examples("kite dap   # as an editor starts it (docs/debugger.md)", "kite dap --ttl 120 --no-sandbox"))
@ttl_option
@sandbox_option
@guarded
def dap(ttl_seconds, no_sandbox):
    """A Debug Adapter Protocol server on stdin/stdout for one Kite program (docs/debugger.md): launch with
    {"program": "X.kite"} and optionally "test", "args", "stopOnEntry", "stopOnException"."""
    from kite.debug.adapter import Adapter

    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever else writes to stdout (.NET, a library) must not break the framing
    Adapter(protocol, ttl_seconds, sandboxed=not no_sandbox).serve(sys.stdin.buffer)


@click.command(name="debug", epilog=examples("kite debug hello.kite --break 5 --eval 'total'", "kite debug word_count.kite --test 'counts words' --break 9 --format json"))
@click.argument("program", type=click.Path(readable=False))
@click.option("--test", "test", help="Run this test (its title) of PROGRAM or its NAME.test.kite instead of fn main.")
@click.option("--break", "breaks", multiple=True, required=True, metavar="[FILE:]LINE",
              help="A breakpoint on a Kite line of PROGRAM (or of FILE); repeatable. The first one hit is shown.")
@click.option("--eval", "expressions", multiple=True, metavar="EXPR", help="A Kite expression to evaluate in the stopped frame; repeatable.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@ttl_option
@sandbox_option
@guarded
def debug(program, test, breaks, expressions, output_format, ttl_seconds, no_sandbox):
    """Run PROGRAM to its first stop, print the frames, their locals and the evaluations, and end the session."""
    from kite.debug.engine import EngineError
    from kite.debug.evaluate import EvaluationError
    from kite.debug.session import DebugSession, Target

    stops: list[dict] = []
    output: list[str] = []
    happened = threading.Condition()

    def on_event(name, body):
        with happened:
            if name == "stopped":
                stops.append(body)
            elif name == "output":
                output.append(body["output"])
            elif name == "terminated":
                stops.append({"reason": "terminated"})
            happened.notify_all()

    session = DebugSession(on_event, sandboxed=not no_sandbox)
    try:
        session.launch(Target(program, test))
        wanted: dict[str, list[int]] = {}
        for spelled in breaks:
            path, _, line = spelled.rpartition(":")
            if not line.isdigit():
                raise UnusableInput(f"--break {spelled}: give a line number, or FILE:LINE")
            wanted.setdefault(path or program, []).append(int(line))
        resolutions = {path: session.set_breakpoints(path, lines) for path, lines in wanted.items()}
        session.configuration_done()
        with happened:
            if not happened.wait_for(lambda: stops, timeout=ttl_seconds):
                stops.append({"reason": "ttl"})
        stop = stops[0]
        report = {"program": program, "stop": stop["reason"], "breakpoints": [
            {"path": path, "line": r.line, "verified": r.verified, **({"message": r.message} if r.message else {})}
            for path, found in resolutions.items() for r in found]}
        if stop["reason"] not in ("terminated", "ttl"):
            if "description" in stop:
                report["description"] = stop["description"]
            frames, hidden = session.stack()
            report["frames"] = [{"name": f["name"], "path": f["path"], "line": f["line"],
                                 "locals": [{"name": v["name"], "value": v["text"], "type": v.get("type") or v["kind"]}
                                            for v in session.locals(f["id"])]} for f in frames]
            report["hidden_frames"] = hidden
            evaluations = []
            for expression in expressions:
                try:
                    evaluations.append({"expression": expression, "value": session.evaluate(expression, None)["text"]})
                except (EvaluationError, EngineError) as error:
                    evaluations.append({"expression": expression, "error": str(error)})
            report["evaluations"] = evaluations
        report["output"] = "".join(output)
    finally:
        session.end()
    if output_format == "json":
        click.echo(json.dumps(report, indent=1))
    else:
        click.echo(_text(report))
    sys.exit(exit_code(failed=report["stop"] in ("terminated", "ttl")))


def _text(report: dict) -> str:
    lines = []
    for b in report["breakpoints"]:
        if not b["verified"]:
            lines.append(f"breakpoint {visible(b['path'])}:{b['line']} not set: {visible(b.get('message', ''))}")
    if report["stop"] == "terminated":
        lines.append("the program ended before any breakpoint was hit")
    elif report["stop"] == "ttl":
        lines.append("no stop within the session's TTL: the program was killed")
    else:
        lines.append(f"stopped ({report['stop']}){': ' + visible(report['description']) if 'description' in report else ''}")
        for frame in report["frames"]:
            lines.append(f"  {visible(frame['name'])}  {visible(frame['path'])}:{frame['line']}")
            for local in frame["locals"]:
                lines.append(f"      {visible(local['name'])} = {visible(local['value'])}")
        if report["hidden_frames"]:
            lines.append(f"  ({report['hidden_frames']} generated or library frames hidden)")
        for evaluation in report["evaluations"]:
            result = evaluation.get("value") or f"error: {evaluation['error']}"
            lines.append(f"  {visible(evaluation['expression'])} = {visible(result)}")
    return "\n".join(lines)

