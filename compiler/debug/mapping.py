"""A debug build's PDB read as Kite: lines to (method, IL offset) and back, frames' Kite names, which locals a
stopped frame shows and under which names. Plain data in, plain data out: no debugger, no process.

The PDB comes as the engine's `symbols` JSON (kite.debug.engine.read_symbols); the Kite side is the unit's AST,
which says where each function and test is and on which line each `let` binds its name.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from kite.codegen.types import kite_name
from kite.syntax import nodes as n

LAMBDA = re.compile(r"^<(?P<outer>[^>]*)>b__")


@dataclass(frozen=True)
class Point:
    offset: int
    line: int  # 0: hidden (generated code)
    column: int
    document: int


@dataclass(frozen=True)
class Local:
    name: str  # as Kite spells it
    slot: int
    start: int
    end: int


@dataclass(frozen=True)
class Method:
    token: int
    csharp: str
    type_name: str
    test: str | None
    static: bool
    parameters: tuple[str, ...]
    points: tuple[Point, ...]
    locals: tuple[Local, ...]


@dataclass(frozen=True)
class Resolution:
    """Where a breakpoint on a Kite line binds: the (method token, IL offset) pairs, or why nowhere."""

    line: int
    points: tuple[tuple[int, int], ...]
    message: str = ""
    nearest: int | None = None  # the closest line with code, offered when `line` has none

    @property
    def verified(self) -> bool:
        return bool(self.points)


@dataclass(frozen=True)
class Location:
    path: str
    line: int
    column: int


@dataclass(frozen=True)
class Function:
    """A Kite function or test of the unit: its name as a frame shows it, and its lines."""

    title: str
    path: str
    first_line: int
    last_line: int
    lets: dict[str, list[int]] = field(default_factory=dict)  # name -> lines a let / for binds it on


def functions_of(path: str, module: n.Module) -> list[Function]:
    """Every fn and test of a module, with the lines their `let`s and `for`s bind names on."""
    found = []
    for item in module.items:
        if isinstance(item, (n.FnDecl, n.TestDecl)):
            lets: dict[str, list[int]] = {}
            for node in n.descendants(item):
                if isinstance(node, (n.Let, n.For)):
                    lets.setdefault(node.name, []).append(node.line)
            title = item.name if isinstance(item, n.FnDecl) else f'test "{item.description}"'
            found.append(Function(title, path, item.line, max(item.end_line, item.line), lets))
    return found


def normalized(path: str) -> str:
    return os.path.normcase(os.path.normpath(os.path.abspath(path)))


class Mapping:
    def __init__(self, symbols: dict, functions: list[Function]):
        self.documents = [normalized(document["path"]) for document in symbols["documents"]]
        self.checksums = [document["checksum"] for document in symbols["documents"]]
        self.methods: dict[int, Method] = {}
        for raw in symbols["methods"]:
            points = tuple(Point(*point) for point in raw["points"])
            method_locals = tuple(Local(kite_name(name), slot, start, end) for name, slot, start, end in raw["locals"])
            self.methods[raw["token"]] = Method(raw["token"], raw["name"], raw["type"], raw["test"], raw["static"],
                                                tuple(raw["parameters"]), points, method_locals)
        self.types = symbols["types"]
        self.functions = functions

    # ---- lines to code

    def is_kite_document(self, path: str) -> bool:
        return normalized(path) in self.documents

    def checksum(self, path: str) -> str | None:
        target = normalized(path)
        return next((c for d, c in zip(self.documents, self.checksums) if d == target), None)

    def _lines(self, path: str) -> dict[int, list[tuple[int, int]]]:
        """Line -> the first (token, offset) on it in each method, for one Kite file."""
        target = normalized(path)
        lines: dict[int, list[tuple[int, int]]] = {}
        for method in self.methods.values():
            if self.function_of(method) is None:
                continue  # record members, constants' initializers: generated code a Kite line does not stop in
            seen: set[int] = set()
            for point in sorted(method.points, key=lambda p: p.offset):
                if point.line and self.documents[point.document] == target and point.line not in seen:
                    seen.add(point.line)
                    lines.setdefault(point.line, []).append((method.token, point.offset))
        return lines

    def resolve(self, path: str, line: int) -> Resolution:
        if not self.is_kite_document(path):
            return Resolution(line, (), f"{os.path.basename(path)} is not part of the program being debugged")
        lines = self._lines(path)
        if line in lines:
            return Resolution(line, tuple(lines[line]))
        if not lines:
            return Resolution(line, (), "this file has no code a breakpoint can stop in")
        nearest = min(lines, key=lambda candidate: (abs(candidate - line), candidate < line))
        return Resolution(line, (), f"no code on line {line}; the nearest line with code is {nearest}", nearest)

    def entry(self, token: int) -> tuple[int, int] | None:
        """The first Kite line of a method (stopOnEntry)."""
        method = self.methods.get(token)
        first = next((p for p in sorted(method.points, key=lambda p: p.offset) if p.line), None) if method else None
        return (token, first.offset) if first else None

    # ---- code to lines

    def point_at(self, token: int, offset: int) -> Point | None:
        """The sequence point an IL offset belongs to (hidden ones included)."""
        method = self.methods.get(token)
        if method is None:
            return None
        before = [p for p in method.points if p.offset <= offset]
        return max(before, key=lambda p: p.offset) if before else None

    def location(self, token: int, offset: int) -> Location | None:
        """The Kite line of an IL offset: the last visible point at or before it (a caller's return address may sit
        on generated code after its call)."""
        method = self.methods.get(token)
        if method is None or self.function_of(method) is None:
            return None
        visible = [p for p in method.points if p.line and p.offset <= offset]
        if not visible:
            return None
        point = max(visible, key=lambda p: p.offset)
        return Location(self.documents[point.document], point.line, point.column)

    def on_new_line(self, token: int, offset: int, start: tuple[int, int, int] | None) -> bool:
        """A step stops here: a visible point begins exactly at this offset, on another line (or frame) than the
        step's start (token, line, frame depth are compared by the caller through `start`)."""
        point = self.point_at(token, offset)
        if point is None or not point.line or point.offset != offset or self.location(token, offset) is None:
            return False
        return start is None or (token, point.line) != start[:2]

    def step_range(self, token: int, offset: int) -> tuple[int, int]:
        """The IL range of the sequence point at `offset`, through the hidden points after it (generated code of
        the same Kite line)."""
        method = self.methods[token]
        points = sorted(method.points, key=lambda p: p.offset)
        current = self.point_at(token, offset) or points[0]
        later = [p for p in points if p.offset > current.offset and p.line]
        end = later[0].offset if later else 0x7FFFFFFF
        return current.offset, end

    def function_of(self, method: Method) -> Function | None:
        lines = [p for p in method.points if p.line]
        if not lines:
            return None
        first = min(lines, key=lambda p: p.offset)
        path = self.documents[first.document]
        for function in self.functions:
            if normalized(function.path) == path and function.first_line <= first.line <= function.last_line:
                return function
        return None

    def function_named(self, name: str) -> Method | None:
        """The program's Kite function `name` (a static method of a Kite function, no test or lambda), to call."""
        for method in self.methods.values():
            function = self.function_of(method)
            if (method.static and method.test is None and function is not None and function.title == name
                    and not LAMBDA.match(method.csharp) and kite_name(method.csharp) == name):
                return method
        return None

    def frame_name(self, token: int) -> str:
        method = self.methods[token]
        function = self.function_of(method)
        title = function.title if function else kite_name(method.csharp)
        return f"fn in {title}" if LAMBDA.match(method.csharp) else title

    def visible_locals(self, token: int, offset: int, line: int) -> list[tuple[str, str, int]]:
        """(Kite name, "arg" or "local", index) of what the frame shows at `offset` on Kite `line`: parameters, and
        each local whose scope holds the offset and whose `let` has run (its line is before this one); of two C#
        locals with one Kite name (a name narrowed or declared again), the innermost scope's."""
        method = self.methods[token]
        function = self.function_of(method)
        shown: list[tuple[str, str, int]] = [(kite_name(name), "arg", index + (0 if method.static else 1))
                                             for index, name in enumerate(method.parameters)]
        best: dict[str, Local] = {}
        for local in method.locals:
            if not local.start <= offset < local.end:
                continue
            bound_on = function.lets.get(local.name, []) if function else []
            if function and bound_on and not any(bound < line for bound in bound_on):
                continue  # its let has not run yet
            held = best.get(local.name)
            if held is None or (local.end - local.start) < (held.end - held.start):
                best[local.name] = local
        names = {name for name, _, _ in shown}
        shown += [(name, "local", local.slot) for name, local in best.items() if name not in names]
        return shown

    def kite_types(self) -> dict[str, dict]:
        """What the engine spells values with: each type's Kite name, its fields' and enum members' Kite names."""
        return {
            str(t["token"]): {
                "name": kite_name(t["name"]),
                "fields": [[token, kite_name(name)] for token, name in t["fields"]],
                "members": {str(value): kite_name(name) for name, value in t["members"]},
            }
            for t in self.types
        }

    def test_method(self, title: str) -> Method | None:
        return next((m for m in self.methods.values() if m.test == title), None)

    def tests(self) -> list[str]:
        return [m.test for m in self.methods.values() if m.test is not None]
