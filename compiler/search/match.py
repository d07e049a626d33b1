"""The structural matcher: a pattern's AST against a file's, positions ignored, metavariables bound as it goes.

A metavariable used twice must bind structurally equal code: `$X` bound to the name `item` in `let $X = ...` also
matches the expression `item` later. `$_` matches one node and binds nothing; `$$$X` matches a run (of arguments,
parameters, statements, items), the shortest that lets the rest match, or all that is left at a pattern's end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kite.search.pattern import ITEM, Pattern, metavariable
from kite.search.walk import EXPRESSIONS, ITEMS, STATEMENTS, blocks_in, fields_of, nodes_in
from kite.syntax import nodes as n

Bindings = dict  # metavariable name -> a node, a name (str) or a run of nodes (tuple)


@dataclass(frozen=True)
class Match:
    node: object  # the matched node, or the run of statements or items
    bindings: Bindings


def find_matches(pattern: Pattern, module: n.Module) -> list[Match]:
    """Every place in `module` the pattern matches; nested matches are each reported."""
    found: list[Match] = []
    if pattern.context == "expression":
        # A pattern that is not a metavariable matches only its own node class: the others are not tried.
        kinds = EXPRESSIONS if _placeholder(pattern.node) is not None else (
            (type(pattern.node),) if isinstance(pattern.node, EXPRESSIONS) else ()
        )
        for node in nodes_in(module.items):
            if isinstance(node, kinds) and (bound := match(pattern.node, node, {})) is not None:
                found.append(Match(node, bound))
    elif pattern.context == "module":
        if (bound := match(pattern.node, module, {})) is not None:
            found.append(Match(module, bound))
    else:
        assert isinstance(pattern.node, tuple), "a statement or item pattern is a run of them"
        runs: Iterable[tuple] = blocks_in(module) if pattern.context == "statement" else [module.items]
        for run in runs:
            for start in range(len(run)):
                result = _match_run(pattern.node, run, {}, 0, start, whole=False)
                if result is not None and result[1] > start:
                    found.append(Match(run[start:result[1]], result[0]))
    return found


def _placeholder(node) -> tuple[str, str] | None:
    """The metavariable a pattern node stands for: a name alone, a statement of only a name, an untyped parameter,
    a bare type, an enum member."""
    if isinstance(node, n.ExprStmt):
        node = node.expr
    if isinstance(node, (n.Name, n.EnumMember)) or (isinstance(node, n.Param) and node.type is None):
        return metavariable(node.name)
    if isinstance(node, n.TypeRef) and not node.args and not node.nullable:
        return metavariable(node.name)
    if isinstance(node, n.Use) and node.path.startswith(ITEM):  # a metavariable alone on a top-level line
        return metavariable(node.path)
    return None


def _fits(pattern, target) -> bool:
    """A metavariable takes one node of the kind its place holds."""
    if isinstance(pattern, n.ExprStmt):
        return isinstance(target, STATEMENTS)
    if isinstance(pattern, n.Use):
        return isinstance(target, ITEMS)
    if isinstance(pattern, n.Name):
        return isinstance(target, EXPRESSIONS)
    return type(target) is type(pattern)


def _bound_value(pattern, target):
    """What a metavariable binds: an expression statement's expression (so `$X` reads the same there and in an
    expression), a parameter's name."""
    if isinstance(pattern, n.ExprStmt) and isinstance(target, n.ExprStmt):
        return target.expr
    if isinstance(pattern, n.Param):
        return target.name
    return target


def _bind(kind: str, name: str, value, bindings: Bindings) -> Bindings | None:
    if kind == "any":
        return bindings
    if name in bindings:
        return bindings if same(bindings[name], value) else None
    return {**bindings, name: value}


def match(pattern, target, bindings: Bindings) -> Bindings | None:
    """The bindings under which `pattern` matches `target`, or None."""
    if isinstance(pattern, n.Node):
        placeholder = _placeholder(pattern)
        if placeholder is not None:
            if not _fits(pattern, target):
                return None
            kind, name = placeholder
            kind = ("one" if name else "any") if kind == "seq" else kind  # a run's metavariable where one node goes
            return _bind(kind, name, _bound_value(pattern, target), bindings)
        if type(target) is not type(pattern):
            return None
        for field, value in fields_of(pattern):
            found = match(value, getattr(target, field), bindings)
            if found is None:
                return None
            bindings = found
        return bindings
    if isinstance(pattern, tuple):
        if not isinstance(target, tuple):
            return None
        result = _match_run(pattern, target, bindings, 0, 0, whole=True)
        return None if result is None else result[0]
    if isinstance(pattern, str) and (placeholder := metavariable(pattern)) is not None:
        return _bind(*placeholder, target, bindings) if isinstance(target, str) else None
    return bindings if pattern == target else None


def _match_run(patterns: tuple, targets: tuple, bindings: Bindings, i: int, j: int, whole: bool):
    """(bindings, end) matching patterns[i:] against targets from j; `whole`: up to targets' end."""
    if i == len(patterns):
        return (bindings, j) if not whole or j == len(targets) else None
    placeholder = _placeholder(patterns[i])
    if placeholder is not None and placeholder[0] == "seq":
        _kind, name = placeholder
        last = i == len(patterns) - 1
        for end in ([len(targets)] if last else range(j, len(targets) + 1)):
            run = targets[j:end]
            if not all(_fits(patterns[i], target) for target in run):
                break
            bound = _bind("any" if not name else "one", name, run, bindings)
            if bound is not None and (result := _match_run(patterns, targets, bound, i + 1, end, whole)) is not None:
                return result
        return None
    if j == len(targets):
        return None
    bound = match(patterns[i], targets[j], bindings)
    return None if bound is None else _match_run(patterns, targets, bound, i + 1, j + 1, whole)


def _as_name(value):
    return value.name if isinstance(value, n.Name) else value


def same(a, b) -> bool:
    """Structurally equal code, positions ignored; a name and the expression that is only that name are the same.
    Iterative: two long chains compare down a left spine as long as they are."""
    pending = [(a, b)]
    while pending:
        a, b = pending.pop()
        a, b = _as_name(a), _as_name(b)
        if type(a) is not type(b):
            return False
        if isinstance(a, tuple):
            if len(a) != len(b):
                return False
            pending.extend(zip(a, b))
        elif isinstance(a, n.Node):
            pending.extend((value, getattr(b, field)) for field, value in fields_of(a))
        elif a != b:
            return False
    return True
