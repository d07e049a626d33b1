"""One debug session: a Kite program's debug build, the engine running it, and every question a stopped frame
answers, in Kite's terms. The DAP adapter and `kite debug` are front ends over this; neither talks to the engine.

Events reach the front end through `on_event(name, body)` with DAP's event names and bodies (stopped, output,
exited, terminated), so the adapter only frames them.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from kite.debug import mapping as maps
from kite.debug.builds import build_key, keep, kept
from kite.debug.engine import Engine, EngineError, EngineFiles, build_engine, remove_folder, scratch_folder
from kite.debug.evaluate import EvaluationError, Evaluator
from kite.dotnet.packages import dotnet_executable
from kite.errors import UnusableInput
from kite.pipeline import front_end
from kite.source import open_regular
from kite.spawn import wait_dead
from kite.units import find_units

SCOPE_BASE = 1 << 20  # a frame's Locals scope reference: SCOPE_BASE + frame index; the engine's own refs are below
MAX_MICRO_STEPS = 10_000  # engine steps one `next` may take through generated code before it stops anyway
LOADED_SECONDS = 60.0
KILLED_SECONDS = 10.0  # a SIGKILLed debuggee's death, on a loaded machine
CALL_SECONDS = 2.0  # a call in `evaluate` runs in the debuggee this long at most, then is aborted (docs/debugger.md)
REPLY_SECONDS_FOR_CALL = CALL_SECONDS + 15.0  # the call, its abort and the engine's answer
BOXES = {"int": "System.Int32", "bool": "System.Boolean", "char": "System.Char", "dec": "System.Decimal"}  # a value, boxed


class LaunchError(UnusableInput):
    """The program cannot be debugged: it does not compile, has no such test, ... (one line, or the diagnostics)."""


@dataclass(frozen=True)
class Target:
    program: str
    test: str | None = None
    args: tuple[str, ...] = ()
    stop_on_entry: bool = False
    stop_on_exception: bool = True


class DebugSession:
    def __init__(self, on_event, sandboxed: bool = True):
        self.on_event = on_event
        self.sandboxed = sandboxed
        self.folder: Path | None = None
        self.engine: Engine | None = None
        self.mapping: maps.Mapping | None = None
        self.pid: int | None = None
        self.started = 0.0
        self.breakpoints: dict[str, list[maps.Resolution]] = {}
        self.entry: tuple[int, int] | None = None
        self.stopped_thread = 0
        self.frames: list[list] | None = None  # the engine's frames of this stop
        self._loaded = threading.Event()
        self._step: dict | None = None  # a step in progress: kind, start (token, line), micro-steps so far
        self._ended = False
        self.aborted_call: str | None = None  # a call aborted in this session: the runtime cannot stop its thread again
        self._lock = threading.RLock()
        self.timings: dict[str, float] = {}  # seconds of a launch's parts (benchmarks/debug.py)
        self._build_key: str | None = None  # what this program's debug build is kept under (kite.debug.builds)
        self.reused_build = False  # the launch took an earlier launch's build of the same program

    # ---- launch

    def launch(self, target: Target) -> int:
        from kite.dotnet.stdlib import STDLIB_DLL
        from kite.session import Session

        program = Path(target.program)
        if program.suffix != ".kite":
            raise UnusableInput(f"{target.program}: not a .kite file")
        os.close(open_regular(str(program), "a .kite file"))  # a missing file, a FIFO, a loop: the line every command gives
        units = [unit for unit in find_units([str(program)]) if Path(unit.program).resolve() == program.resolve()]
        unit = units[0].read() if units else None
        if unit is None:
            raise UnusableInput(f"{target.program}: not a Kite program")
        self.folder = scratch_folder()
        began = time.perf_counter()
        build = self.folder / "build"
        build.mkdir()
        with Session() as session:
            files = build_engine(session.compiler, self.folder / "engine")
            # The engine's process starts while the program is built (its runtime's start is off the critical path);
            # it reads the build's symbols once it is written, without a process of its own for that
            self.engine = engine = self._start_engine(files, build)
            _, _, modules = front_end(unit)
            reused = self._kept_build(session, unit, modules, build)
            if reused is not None:
                assembly, symbols = reused
                self.reused_build = True
            else:
                built = session.build(unit, build, debug=True, needs_main=False)
                if built.assembly is None or built.pdb is None:
                    errors = [d.render() for d in built.result.diagnostics if d.severity.value == "error"]
                    raise self._never_launched("the program does not compile: " + "; ".join(errors))
                assembly = built.assembly
                symbols = engine.request("symbols", dll=self._seen_by_engine(built.assembly), pdb=self._seen_by_engine(built.pdb))
                if self._build_key is not None:
                    keep(_kept_builds(), self._build_key, built.assembly, built.pdb, symbols)
        functions = [f for source, module in zip(unit.sources, modules or []) if module for f in maps.functions_of(source.path, module)]
        self.mapping = mapping = maps.Mapping(symbols, functions)
        if target.test is not None:
            method = mapping.test_method(target.test)
            if method is None:
                known = ", ".join(f'"{title}"' for title in mapping.tests()) or "none"
                raise self._never_launched(f'no test "{target.test}" in {target.program} or its test files (its tests: {known})')
            where = ["test", method.type_name, method.csharp]
        else:
            method = next((m for m in mapping.methods.values() if m.csharp == "main" and m.static and not m.parameters), None)
            if method is None:
                raise self._never_launched(f"{target.program} has no fn main(): name one of its tests to debug (\"test\": \"<title>\")")
            where = ["main"]
        self.entry = mapping.entry(method.token) if target.stop_on_entry else None
        self.timings["build"] = time.perf_counter() - began  # the debug build, the engine's image, the symbols
        began = time.perf_counter()
        seen = self._seen_by_engine
        reply = engine.request("launch", program=seen(assembly), stdlib=STDLIB_DLL, runner=seen(files.runner), hook=seen(files.hook),
                                    dotnet=_dotnet(), target=where, args=list(target.args),
                                    exceptions=target.stop_on_exception, types=mapping.kite_types())
        self.pid = reply["pid"]
        if self.sandboxed:
            from kite.debug.sandbox import host_pid

            self.pid = host_pid(engine.process.pid, reply["pid"])
        self.started = time.monotonic()
        if not self._loaded.wait(LOADED_SECONDS):
            raise LaunchError("the debuggee never loaded the program")
        self.timings["attach"] = time.perf_counter() - began  # engine and debuggee started, attached, module loaded
        return self.pid

    def _kept_build(self, session, unit, modules, build: Path) -> tuple[Path, dict] | None:
        """The debug build of this very program kept by an earlier launch, written into `build`, and its symbols;
        None when there is none (then the key to keep this launch's build under is set)."""
        from kite.dotnet.stdlib import STDLIB_DLL
        from kite.pipeline import generate_for_debugger, has_entry_point
        from kite.session import built_assembly_name

        parsed = [module for module in modules or [] if module is not None]
        if not parsed or len(parsed) != len(modules or []):
            return None  # the build reports why
        generated = generate_for_debugger(unit, parsed, entry_point=has_entry_point(parsed[0]))
        stdlib = session.compiler.stdlib_image()
        self._build_key = build_key(list(generated.sources), stdlib)
        found = kept(_kept_builds(), self._build_key, built_assembly_name(generated.module_name))
        if found is None:
            return None
        for path in (found.assembly, found.pdb):
            shutil.copyfile(path, build / path.name)
        (build / STDLIB_DLL).write_bytes(stdlib)
        return build / found.assembly.name, found.symbols()

    def _never_launched(self, message: str) -> LaunchError:
        """The launch fails before any debuggee: the engine's end (when the front end closes the session) is no
        session's end to report."""
        self._ended = True
        return LaunchError(message)

    def _seen_by_engine(self, path: Path) -> str:
        """A path of the engine's folder or the build as the engine sees it (inside the sandbox, or as it is)."""
        if not self.sandboxed:
            return str(path)
        from kite.debug.sandbox import inside

        return f"{inside(path.parent)}/{path.name}"

    def _start_engine(self, files: EngineFiles, build: Path) -> Engine:
        command = [_dotnet(), self._seen_by_engine(files.engine), "serve"]
        if not self.sandboxed:
            return Engine(command, debug_environment(), self._engine_event)
        from kite.debug.sandbox import sandboxed_command
        from kite.testing import seccomp

        filter_fd = seccomp.descriptor()
        try:
            return Engine(sandboxed_command(command, [files.folder, build], filter_fd), {}, self._engine_event,
                          pass_fds=() if filter_fd is None else (filter_fd,))
        finally:
            if filter_fd is not None:
                os.close(filter_fd)  # bubblewrap has its own copy

    # ---- breakpoints and running

    def set_breakpoints(self, path: str, lines: list[int]) -> list[maps.Resolution]:
        mapping = self._mapping()
        resolved = [mapping.resolve(path, line) for line in lines]
        with self._lock:
            self.breakpoints[maps.normalized(path)] = resolved
            if self._loaded.is_set():
                self._bind()
        return resolved

    def _bind(self) -> None:
        points = {point for resolutions in self.breakpoints.values() for r in resolutions for point in r.points}
        if self.entry:
            points.add(self.entry)
        self._engine().request("bind", points=[list(point) for point in sorted(points)])

    def configuration_done(self) -> None:
        with self._lock:
            self._bind()
            self._engine().request("go")

    def resume(self) -> None:
        self._forget_stop()
        self._engine().request("continue")

    def step(self, kind: str) -> None:
        """kind: "over" (DAP next), "in" or "out"; stops on the next Kite line, through generated code."""
        frames = self._frames()
        top = next((f for f in frames if f[2]), None)
        if top is None:
            raise EngineError("no Kite frame to step from")
        token, offset, _ = top
        location = self._mapping().location(token, offset)
        with self._lock:
            self._step = {"kind": kind, "start": (token, location.line if location else 0), "count": 0}
        self._forget_stop()
        if kind == "out" or frames[0][:2] != top[:2]:
            self._engine().request("step", kind="out" if kind == "out" or frames[0][:2] != top[:2] else kind)
        else:
            self._engine().request("step", kind=kind, range=list(self._mapping().step_range(token, offset)))

    def pause(self) -> None:
        if self.aborted_call is not None:
            raise EngineError(f"pause is not served after {self.aborted_call}(...) was aborted: the runtime cannot stop the "
                              "debuggee's thread while it runs again; a breakpoint still stops it")
        self._engine().request("pause")

    # ---- a stopped frame

    def _frames(self) -> list[list]:
        if self.frames is None:
            self.frames = self._engine().request("frames")["frames"]
        return self.frames

    def stack(self) -> tuple[list[dict], int]:
        """The Kite frames, innermost first, and how many generated or library frames were left out."""
        mapping = self._mapping()
        shown, hidden = [], 0
        for index, (token, offset, kite) in enumerate(self._frames()):
            location = mapping.location(token, offset) if kite else None
            if location is None:
                hidden += 1
                continue
            shown.append({"id": index + 1, "name": mapping.frame_name(token), "line": location.line,
                          "column": location.column, "path": location.path, "token": token, "offset": offset})
        return shown, hidden

    def _frame(self, frame_id: int) -> tuple[int, list]:
        frames = self._frames()
        if not 1 <= frame_id <= len(frames) or not frames[frame_id - 1][2]:
            raise EngineError(f"no Kite frame {frame_id} in this stop")
        return frame_id - 1, frames[frame_id - 1]

    def locals(self, frame_id: int) -> list[dict]:
        index, (token, offset, _) = self._frame(frame_id)
        mapping = self._mapping()
        location = mapping.location(token, offset)
        names = mapping.visible_locals(token, offset, location.line if location else 0)
        args = [slot for _, kind, slot in names if kind == "arg"]
        slots = [slot for _, kind, slot in names if kind == "local"]
        values = self._engine().request("values", frame=index, args=args, locals=slots)["values"]
        ordered = [name for name, kind, _ in names if kind == "arg"] + [name for name, kind, _ in names if kind == "local"]
        return [{**value, "name": name} for name, value in zip(ordered, values) if value is not None]

    def children(self, reference: int) -> list[dict]:
        return self._engine().request("children", ref=reference)["children"]

    def variables(self, reference: int) -> list[dict]:
        if reference >= SCOPE_BASE:
            return self.locals(reference - SCOPE_BASE)
        return self.children(reference)

    def evaluate(self, expression: str, frame_id: int | None) -> dict:
        if frame_id is None:
            shown, _ = self.stack()
            if not shown:
                raise EvaluationError("no Kite frame to evaluate in")
            frame_id = shown[0]["id"]
        visible: dict[str, dict] = {}  # the frame's values, read again after a call (which makes them stale)

        def lookup(name: str) -> dict | None:
            if not visible:
                visible.update({value["name"]: value for value in self.locals(frame_id)})
            return visible.get(name)

        def call(name: str, arguments: list[dict]) -> dict:
            try:
                return self.call(name, arguments)
            finally:
                visible.clear()

        return Evaluator(lookup, self.children, call).evaluate(expression)

    def call(self, name: str, arguments: list[dict]) -> dict:
        """`name` run on the stopped thread with `arguments` (values of this stop and literals), aborted after
        CALL_SECONDS; the stop goes on, its frames read again (the run made them stale). A standard-library name is
        the standard library's, as the code generator calls it, through the overload C# picked for the program."""
        from kite import standard_library

        std = standard_library.FUNCTIONS.get(name)
        if std is not None:
            if not std.pure:
                raise EvaluationError(f"{name} is not pure: evaluate calls functions only for their results")
            if len(arguments) not in std.arities:
                raise EvaluationError(f"{name} takes {' or '.join(map(str, std.arities))} argument(s), not {len(arguments)}")
            callee: dict = {"std": name}
        else:
            method = self._mapping().function_named(name)
            if method is None:
                raise EvaluationError(f"'{name}' is not a function of the program or the standard library")
            if len(arguments) != len(method.parameters):
                raise EvaluationError(f"{name} takes {len(method.parameters)} argument(s), not {len(arguments)}")
            callee = {"token": method.token}
        if self.aborted_call is not None and std is None:
            # The standard library's functions end on their own (bounded by their arguments); the program's may not
            raise EvaluationError(f"no more calls of the program's functions in this session: {self.aborted_call}(...) was "
                                  "aborted, and the runtime cannot stop the debuggee's thread again to abort another; "
                                  "standard-library calls, names, fields and operators still evaluate")
        passed = [_argument(argument) for argument in arguments]
        reply = self._call(callee, passed)
        if reply.get("box"):  # a value type where the overload takes object: the same call with it boxed
            for index in reply["box"]:
                if arguments[index]["kind"] in BOXES:
                    passed[index] = {**passed[index], "box": BOXES[arguments[index]["kind"]]}
            reply = self._call(callee, passed)
        if reply.get("stuck"):  # the call could not be aborted: the debuggee is in no state to go on
            self.end()
            raise EvaluationError(f"{name}(...) ran past the {CALL_SECONDS:g} s limit of a call and the debuggee could not "
                                  "be stopped to abort it; the session has ended")
        if reply.get("no_overload") and std is not None:
            raise EvaluationError(f"{name} does not take these arguments: {std.signature}")
        if reply.get("aborted"):
            self.aborted_call = name
            raise EvaluationError(f"{name}(...) ran past the {CALL_SECONDS:g} s limit of a call and was aborted")
        if "exception" in reply:
            failed = reply["exception"].rpartition(".")[2]
            raise EvaluationError(f"{name}(...) crashed: {failed}: {reply['message']}")
        return reply["value"]

    def _call(self, callee: dict, passed: list[dict]) -> dict:
        try:
            return self._engine().request("call", timeout=REPLY_SECONDS_FOR_CALL, args=passed, ms=int(CALL_SECONDS * 1000), **callee)
        finally:
            self._forget_stop()

    def threads(self) -> list[int]:
        return [self.stopped_thread or 1]

    # ---- events from the engine (its reader thread)

    def _engine_event(self, message: dict) -> None:
        name = message.get("event")
        if name == "loaded":
            self._loaded.set()
        elif name == "output":
            self.on_event("output", {"category": message["category"], "output": message["output"]})
        elif name == "stopped":
            self._stopped(message)
        elif name in ("exited", "engine-ended"):  # exited carries the exit code, once the debuggee's output is read
            self.end(message.get("exitCode"))

    def _stopped(self, message: dict) -> None:
        mapping = self._mapping()
        token, offset, kite = (message.get("top") or [0, 0, False]) + [0, 0, False][len(message.get("top") or []):]
        with self._lock:
            step = self._step
            self.stopped_thread = message.get("thread", 0)
            self.frames = None
        reason = message["reason"]
        if reason == "step" and step is not None:
            step["count"] += 1
            if step["count"] < MAX_MICRO_STEPS and not (kite and mapping.on_new_line(token, offset, step["start"])):
                self._forget_stop()
                if not kite or token not in mapping.methods:  # the stdlib, generated code (main's entry wrapper): back out
                    self._engine().request("step", kind="out")
                else:
                    self._engine().request("step", kind=step["kind"] if step["kind"] != "out" else "over",
                                           range=list(mapping.step_range(token, offset)))
                return
            with self._lock:
                self._step = None
        body = {"reason": reason, "threadId": self.stopped_thread, "allThreadsStopped": True}
        if reason == "breakpoint" and self.entry is not None and (token, offset) == self.entry:
            body["reason"] = "entry"
        if reason == "exception":
            text = message.get("message", "")
            failed = message.get("exception", "").endswith("ExpectationFailed")
            body["description"] = f"test failed: {text}" if failed else f"crash: {message.get('exception', '').rpartition('.')[2]}: {text}"
            body["text"] = text
        self.on_event("stopped", body)

    def _forget_stop(self) -> None:
        with self._lock:
            self.frames = None

    # ---- the end

    def end(self, exit_code: int | None = None) -> None:
        """The debuggee is gone (or is killed now): exited, then terminated, once."""
        with self._lock:
            if self._ended:
                return
            self._ended = True
        self.close()
        if exit_code is not None:
            self.on_event("exited", {"exitCode": exit_code})
        self.on_event("terminated", {})

    def close(self) -> None:
        """Kill the engine with the debuggee and remove the build: nothing of the session remains."""
        if self.engine is not None:
            self.engine.close()
            if self.pid is not None:  # `terminated` says the debuggee is gone: it is, not only signalled
                wait_dead(self.pid, KILLED_SECONDS)
        if self.folder is not None:
            remove_folder(self.folder)

    @property
    def ended(self) -> bool:
        return self._ended

    def _engine(self) -> Engine:
        if self.engine is None or self._ended:
            raise EngineError("no program is being debugged")
        return self.engine

    def _mapping(self) -> maps.Mapping:
        if self.mapping is None:
            raise EngineError("no program is being debugged")
        return self.mapping


def _argument(value: dict) -> dict:
    """A call's argument as the engine takes it: a value of this stop by its reference (a record, a collection), or a
    value to make in the debuggee (a str or dec is made again from its text: equal values, and Kite has no identity)."""
    kind = value["kind"]
    if value.get("ref"):
        return {"ref": value["ref"]}
    if kind == "int":
        return {"int": int(value["text"])}
    if kind == "bool":
        return {"bool": value["text"] == "true"}
    if kind == "dec":
        return {"dec": value["text"]}
    if kind in ("str", "char") and "raw" in value:
        return {kind: value["raw"]}
    raise EvaluationError(f"a call takes records, collections, strs, chars, ints, decs and bools as arguments, not {value['text']}")


def _kept_builds() -> Path:
    from kite.dotnet.packages import restore

    return restore().cache_dir / "debug-builds"


def _dotnet() -> str:
    """The muxer's real path: the sandbox binds the runtime's folder, not the link on PATH."""
    return str(Path(dotnet_executable()).resolve())


def debug_environment() -> dict[str, str]:
    """The engine's environment without a sandbox: the adapter's, with diagnostics on (the debugger needs them)."""
    env = {key: value for key, value in os.environ.items() if key != "DOTNET_EnableDiagnostics"}
    env["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1"
    return env
