"""Module constants: what each one's value reads (directly or through the functions it calls), the order that
evaluates every constant after the ones it reads, and the cycles where no such order exists (KT009).

C# initialises static fields in textual order, so a constant that reads a later one would see 0 or null.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from kite.syntax import nodes as n


@dataclass(frozen=True)
class ConstantOrder:
    ordered: tuple[n.Let, ...]  # every constant, each after what it reads; textual order where nothing forces another
    cycles: tuple[tuple[str, ...], ...]  # each cycle once, as names: ("a", "f()", "b", "a")


def free_names(node, bound: frozenset[str] = frozenset()) -> set[str]:
    """Names a function body or an expression reads that it does not declare itself (scope by scope)."""
    found: set[str] = set()
    _statements_or_expr(node, set(bound), found)
    return found


def _statements_or_expr(node, bound: set[str], found: set[str]) -> None:
    if isinstance(node, tuple):
        _block(node, set(bound), found)
    else:
        _expr(node, bound, found)


def _block(body, bound: set[str], found: set[str]) -> None:
    for s in body:
        if isinstance(s, n.Let):
            _expr(s.value, bound, found)
            bound.add(s.name)
        elif isinstance(s, n.Assign):
            _expr(s.target, bound, found)
            _expr(s.value, bound, found)
        elif isinstance(s, n.ExprStmt):
            _expr(s.expr, bound, found)
        elif isinstance(s, n.Return):
            if s.value is not None:
                _expr(s.value, bound, found)
        elif isinstance(s, n.Expect):
            _expr(s.expr, bound, found)
        elif isinstance(s, n.If):
            for condition, inner in s.branches:
                _expr(condition, bound, found)
                _block(inner, set(bound), found)
            _block(s.orelse or (), set(bound), found)
        elif isinstance(s, n.While):
            _expr(s.condition, bound, found)
            _block(s.body, set(bound), found)
        elif isinstance(s, n.For):
            _expr(s.iterable, bound, found)
            _block(s.body, bound | {s.name}, found)
        elif not isinstance(s, (n.Break, n.Continue, n.Pass)):
            raise TypeError(f"the constants' order does not know the statement {type(s).__name__}")


def _expr(e, bound: set[str], found: set[str]) -> None:
    """Iterative over the expression; only a lambda opens a scope (and recurses, once per lambda level)."""
    pending = [e]
    while pending:
        e = pending.pop()
        if isinstance(e, n.Name):
            if e.name not in bound:
                found.add(e.name)
        elif isinstance(e, n.Lambda):
            _expr(e.body, bound | {p.name for p in e.params}, found)
        else:
            pending.extend(n.children(e))


def order_constants(constants, functions: dict[str, n.FnDecl]) -> ConstantOrder:
    """`constants`: the Let items of a unit in textual order; `functions`: every function they could call."""
    by_name: dict[str, n.Let] = {}
    for c in constants:
        by_name.setdefault(c.name, c)
    repeated = [c for c in constants if by_name[c.name] is not c]  # the compiler reports these where they stand
    reads = {name: free_names(c.value) for name, c in by_name.items()}
    fn_reads = _FunctionReads(functions)
    # What each constant needs evaluated first: constants it reads, directly or through functions it calls.
    needs = {name: _constants_reached(name, reads, fn_reads, by_name) for name in by_name}
    position = {name: index for index, name in enumerate(by_name)}
    waiting = {name: len(needs[name]) for name in by_name}
    needed_by: dict[str, list[str]] = {name: [] for name in by_name}
    for name, required in needs.items():
        for other in required:
            needed_by[other].append(name)
    ready = [(position[name], name) for name, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    ordered = []
    while ready:
        _, name = heapq.heappop(ready)
        ordered.append(by_name[name])
        for later in needed_by[name]:
            waiting[later] -= 1
            if waiting[later] == 0:
                heapq.heappush(ready, (position[later], later))
    stuck = [name for name in by_name if waiting[name] > 0]
    cycles = _cycles(stuck, reads, fn_reads, by_name)
    # Constants in or after a cycle keep their textual order: KT009 refuses the program anyway.
    ordered += [by_name[name] for name in stuck] + repeated
    return ConstantOrder(tuple(ordered), cycles)


class _FunctionReads(dict):
    """Function name -> the names its body reads, worked out for the functions a constant reaches, when reached."""

    def __init__(self, functions: dict[str, n.FnDecl]):
        super().__init__()
        self.functions = functions

    def __contains__(self, name) -> bool:
        return name in self.functions

    def __missing__(self, name: str) -> set[str]:
        function = self.functions[name]
        self[name] = free_names(function.body, frozenset(p.name for p in function.params))
        return self[name]

    def get(self, name, default=None):
        return self[name] if name in self.functions else default


def _constants_reached(start: str, reads, fn_reads, constants) -> set[str]:
    """Constants `start` reads directly, or through any chain of function calls (not through other constants)."""
    reached: set[str] = set()
    seen_functions: set[str] = set()
    pending = list(reads[start])
    while pending:
        name = pending.pop()
        if name in constants:
            reached.add(name)
        elif name in fn_reads and name not in seen_functions:
            seen_functions.add(name)
            pending.extend(fn_reads[name])
    return reached


def _cycles(stuck: list[str], reads, fn_reads, constants) -> tuple[tuple[str, ...], ...]:
    """One shortest cycle through each stuck constant that is on one, each cycle reported once."""
    cycles: list[tuple[str, ...]] = []
    covered: set[str] = set()
    for start in stuck:
        if start in covered:
            continue
        path = _path_back(start, reads, fn_reads, constants)
        if path is None:
            continue  # waits on a cycle without being on one
        covered.update(step for step in path if step in constants)
        cycles.append(tuple(step if step in constants else f"{step}()" for step in path))
    return tuple(cycles)


def _path_back(start: str, reads, fn_reads, constants) -> list[str] | None:
    """The shortest chain of reads (through constants and functions) from `start` back to `start`."""
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for name in frontier:
            for read in sorted(reads[name] if name in constants else fn_reads.get(name, ())):
                if read == start:
                    path = [start]
                    step = name
                    while step != start:
                        path.append(step)
                        step = parent[step]
                    return [start, *reversed(path[1:]), start]
                if read not in parent and (read in constants or read in fn_reads):
                    parent[read] = name
                    following.append(read)
        frontier = following
    return None
