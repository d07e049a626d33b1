"""`kite dap`: the Debug Adapter Protocol on stdio, over kite.framing and one DebugSession.

Seed 002's rules for a tool that owns a stopped process: exactly one session per adapter (a second `launch` or
`attach` is refused with the running session's pid and age, and the first goes on); a hard TTL kills the debuggee,
says so in an `output` event, then `terminated`; `disconnect` and `terminate` always kill it; when the client goes
away (stdin ends) the debuggee is killed and the adapter exits.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import BinaryIO

from kite import __version__, framing
from kite.debug.engine import EngineError
from kite.debug.evaluate import EvaluationError
from kite.debug.session import SCOPE_BASE, DebugSession, LaunchError, Target
from kite.defaults import DEBUG_TTL_SECONDS
from kite.display import visible
from kite.errors import ToolchainError, UnusableInput


class Refused(Exception):
    """A request this adapter will not do: its message is the response's."""


class Adapter:
    def __init__(self, output: BinaryIO, ttl_seconds: float = DEBUG_TTL_SECONDS, sandboxed: bool = True):
        self.output = output
        self.ttl_seconds = ttl_seconds
        self.sandboxed = sandboxed
        self.session: DebugSession | None = None
        self.seq = 0
        self._write_lock = threading.Lock()
        self._ttl: threading.Timer | None = None
        self.finished = threading.Event()  # disconnect: the adapter's loop ends

    # ---- the wire

    def send(self, message: dict) -> None:
        with self._write_lock:
            self.seq += 1
            message["seq"] = self.seq
            self.output.write(framing.encode(message))
            self.output.flush()

    def event(self, name: str, body: dict | None = None) -> None:
        self.send({"type": "event", "event": name, "body": body or {}})

    def respond(self, request: dict, body: dict | None = None, error: str | None = None) -> None:
        response = {"type": "response", "request_seq": request.get("seq", 0), "command": request.get("command", ""),
                    "success": error is None}
        if error is not None:
            response["message"] = error
            response["body"] = {"error": {"id": 1, "format": error, "showUser": True}}
        else:
            response["body"] = body or {}
        self.send(response)

    def serve(self, stream: BinaryIO) -> None:
        try:
            for message in framing.messages(stream):
                if message.get("type") == "request":
                    self.handle(message)
                if self.finished.is_set():
                    break
        except framing.FramingError as error:
            self.event("output", {"category": "stderr", "output": f"kite dap: {error}; the session ends\n"})
        finally:
            self.close()

    def close(self) -> None:
        if self._ttl is not None:
            self._ttl.cancel()
        if self.session is not None:
            self.session.close()

    # ---- requests

    def handle(self, request: dict) -> None:
        command = request.get("command", "")
        arguments = request.get("arguments") or {}
        handler = getattr(self, "on_" + command.replace("-", "_"), None) if command.isidentifier() else None
        if handler is None:
            self.respond(request, error=f"kite dap does not support '{visible(command)}'")
            return
        try:
            body = handler(arguments, request)
        except (Refused, LaunchError, EngineError, EvaluationError, UnusableInput, ToolchainError) as error:
            self.respond(request, error=visible(str(error)))
            return
        except (KeyError, TypeError, ValueError) as error:
            self.respond(request, error=f"malformed '{command}' request: {type(error).__name__}: {visible(str(error))}")
            return
        if body is not None:
            self.respond(request, body)

    def on_initialize(self, arguments: dict, request: dict) -> dict:
        return {
            "supportsConfigurationDoneRequest": True,
            "supportsEvaluateForHovers": True,
            "supportsTerminateRequest": True,
            "supportsDelayedStackTraceLoading": False,
            "supportsExceptionInfoRequest": False,
            "exceptionBreakpointFilters": [],
            "kite": __version__,
        }

    def on_launch(self, arguments: dict, request: dict) -> dict | None:
        if self.session is not None:
            raise Refused(self._busy())
        program = arguments.get("program")
        if not isinstance(program, str):
            raise Refused('launch needs "program": the path of a .kite file')
        test = arguments.get("test")
        args = arguments.get("args") or []
        if (test is not None and not isinstance(test, str)) or not all(isinstance(a, str) for a in args):
            raise Refused('"test" is a test\'s title and "args" a list of strings')
        target = Target(program, test, tuple(args), bool(arguments.get("stopOnEntry", False)),
                        bool(arguments.get("stopOnException", True)))
        session = DebugSession(self.on_session_event, sandboxed=self.sandboxed)
        self.session = session
        try:
            pid = session.launch(target)
        except BaseException:
            session.close()
            self.session = None
            raise
        self._ttl = threading.Timer(self.ttl_seconds, self.expire)
        self._ttl.daemon = True
        self._ttl.start()
        self.respond(request, {"pid": pid})
        self.event("process", {"name": program, "systemProcessId": pid, "startMethod": "launch", "isLocalProcess": True})
        self.event("initialized")
        return None

    def on_attach(self, arguments: dict, request: dict) -> dict:
        if self.session is not None:
            raise Refused(self._busy())
        # The engine and the debuggee share one sandbox (pid namespace, private /tmp holding the runtime's debug
        # pipes): a process started outside it can be neither seen nor attached; docs/debugger.md, "attach".
        raise Refused("kite dap attaches only to the programs it launches: a process outside the debug sandbox has "
                      "no debug transport the engine can reach (its pipes live in the sandbox's private /tmp); "
                      "use launch with \"program\" (and \"test\") instead")

    def _busy(self) -> str:
        session = self.session
        age = time.monotonic() - session.started if session and session.started else 0.0
        return (f"refused: a debug session is running already (pid {session.pid if session else '?'}, started {age:.0f} s "
                "ago); one adapter debugs one program: disconnect it first")

    def on_setBreakpoints(self, arguments: dict, request: dict) -> dict:
        session = self._session()
        path = (arguments.get("source") or {}).get("path")
        if not isinstance(path, str):
            raise Refused("setBreakpoints needs source.path: a .kite file")
        lines = [b["line"] for b in arguments.get("breakpoints") or []] or list(arguments.get("lines") or [])
        shown = []
        for index, resolution in enumerate(session.set_breakpoints(path, [int(line) for line in lines])):
            breakpoint = {"id": index + 1, "verified": resolution.verified, "line": resolution.line,
                          "source": {"path": path}}
            if resolution.message:
                breakpoint["message"] = resolution.message
            if resolution.nearest is not None:
                breakpoint["nearestLine"] = resolution.nearest
            shown.append(breakpoint)
        return {"breakpoints": shown}

    def on_setExceptionBreakpoints(self, arguments: dict, request: dict) -> dict:
        return {"breakpoints": []}

    def on_configurationDone(self, arguments: dict, request: dict) -> dict:
        self._session().configuration_done()
        return {}

    def on_threads(self, arguments: dict, request: dict) -> dict:
        session = self.session
        ids = session.threads() if session else []
        return {"threads": [{"id": thread, "name": "main"} for thread in ids]}

    def on_stackTrace(self, arguments: dict, request: dict) -> dict:
        frames, hidden = self._session().stack()
        start = int(arguments.get("startFrame") or 0)
        levels = int(arguments.get("levels") or 0) or len(frames)
        shown = [{"id": f["id"], "name": f["name"], "line": f["line"], "column": f["column"],
                  "source": {"name": f["path"].rsplit("/", 1)[-1], "path": f["path"]}} for f in frames[start: start + levels]]
        return {"stackFrames": shown, "totalFrames": len(frames), "hiddenFrames": hidden}

    def on_scopes(self, arguments: dict, request: dict) -> dict:
        frame_id = int(arguments["frameId"])
        return {"scopes": [{"name": "Locals", "presentationHint": "locals", "variablesReference": SCOPE_BASE + frame_id,
                            "expensive": False}]}

    def on_variables(self, arguments: dict, request: dict) -> dict:
        found = self._session().variables(int(arguments["variablesReference"]))
        return {"variables": [_variable(value) for value in found]}

    def on_evaluate(self, arguments: dict, request: dict) -> dict:
        expression = arguments.get("expression")
        if not isinstance(expression, str):
            raise Refused("evaluate needs an expression")
        frame = arguments.get("frameId")
        value = self._session().evaluate(expression, int(frame) if frame is not None else None)
        return {"result": value["text"], "type": _type(value), "variablesReference": value.get("ref", 0)}

    def on_continue(self, arguments: dict, request: dict) -> None:
        session = self._session()
        self.respond(request, {"allThreadsContinued": True})
        session.resume()
        return None

    def _step(self, kind: str, request: dict) -> None:
        session = self._session()
        self.respond(request, {})
        session.step(kind)

    def on_next(self, arguments: dict, request: dict) -> None:
        self._step("over", request)

    def on_stepIn(self, arguments: dict, request: dict) -> None:
        self._step("in", request)

    def on_stepOut(self, arguments: dict, request: dict) -> None:
        self._step("out", request)

    def on_pause(self, arguments: dict, request: dict) -> dict:
        self._session().pause()
        return {}

    def on_terminate(self, arguments: dict, request: dict) -> dict:
        self._end()
        return {}

    def on_disconnect(self, arguments: dict, request: dict) -> None:
        self._end()
        self.finished.set()  # before the response: whoever reads it may count on the loop being over
        self.respond(request, {})
        return None

    def _end(self) -> None:
        session = self.session
        if session is not None:
            session.end()

    def _session(self) -> DebugSession:
        if self.session is None or self.session.ended:
            raise Refused("no program is being debugged: launch one first")
        return self.session

    # ---- from the session

    def on_session_event(self, name: str, body: dict) -> None:
        if name == "terminated" and self._ttl is not None:
            self._ttl.cancel()
        self.event(name, body)

    def expire(self) -> None:
        session = self.session
        if session is None or session.ended:
            return
        self.event("output", {"category": "console",
                              "output": f"kite dap: the session's TTL of {self.ttl_seconds:g} s ran out: the debuggee was killed\n"})
        session.end()


def _type(value: dict) -> str:
    return value.get("type") or value["kind"]


def _variable(value: dict) -> dict:
    shown = {"name": value["name"], "value": value["text"], "type": _type(value), "variablesReference": value.get("ref", 0)}
    if "count" in value:
        shown["indexedVariables" if value["kind"] == "list" else "namedVariables"] = value["count"]
    return shown


def main(ttl_seconds: float = DEBUG_TTL_SECONDS, sandboxed: bool = True) -> None:
    adapter = Adapter(sys.stdout.buffer, ttl_seconds, sandboxed)
    adapter.serve(sys.stdin.buffer)
