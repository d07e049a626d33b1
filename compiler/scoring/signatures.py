"""What a task's hidden tests mean by the names they use is the task's: an answer that declares one of them with
another shape (a function returning `str` where the solution returns `list<str>`, a record with other fields) could
pass tests written for the solution's (`"ink" in names(xs)` holds for a joined string too). With the task's
solution.kite, every declaration the hidden tests reach must keep the solution's shape (docs/scoring.md)."""

from __future__ import annotations

from kite.syntax import nodes as n
from kite.syntax.nodes import type_text

DECLARATIONS = (n.FnDecl, n.TypeDecl, n.EnumDecl, n.Let)


def shape(item) -> str:
    """A declaration as far as a caller sees it: a function's parameter and result types (not the parameters' names),
    a record's fields in order, an enum's members in order, a constant's kind."""
    if isinstance(item, n.FnDecl):
        returns = f" -> {type_text(item.returns)}" if item.returns else ""
        return f"fn {item.name}({', '.join(type_text(p.type) for p in item.params)}){returns}"
    if isinstance(item, n.TypeDecl):
        return f"type {item.name}({', '.join(f'{f.name}: {type_text(f.type)}' for f in item.fields)})"
    if isinstance(item, n.EnumDecl):
        return f"enum {item.name}({', '.join(m.name for m in item.members)})"
    return f"constant {item.name}"


def _named(node) -> set[str]:
    """The names a node or anything inside it writes: values, calls and types."""
    return {inner.name for inner in n.descendants(node) if isinstance(inner, (n.Name, n.TypeRef))}


def _types_named(item) -> set[str]:
    """The types a declaration's shape names (its body and a constant's value are the solution's business)."""
    if isinstance(item, n.FnDecl):
        return set().union(*(_named(p.type) for p in item.params if p.type), _named(item.returns) if item.returns else set())
    if isinstance(item, n.TypeDecl):
        return set().union(*(_named(f.type) for f in item.fields))
    return set()


def expected(solution: n.Module | None, tests: list[n.Module | None]) -> tuple[tuple[str, str], ...]:
    """(name, shape) of each declaration of the solution the hidden tests reach: the names they write, and the types
    those declarations name in turn (a function's result type, a field's type)."""
    if solution is None:
        return ()
    declared = {item.name: item for item in solution.items if isinstance(item, DECLARATIONS)}
    pending = set().union(*(_named(module) for module in tests if module is not None))
    reached: dict[str, str] = {}
    while pending:
        name = pending.pop()
        item = declared.get(name)
        if item is None or name in reached:
            continue
        reached[name] = shape(item)
        pending |= _types_named(item) - {name}
    return tuple(sorted(reached.items()))


def differing(answer: n.Module | None, wanted: tuple[tuple[str, str], ...]) -> str:
    """Why the answer does not keep the task's shapes, or "": one that lacks a declaration does not compile against
    the tests, and says so there."""
    declared = {item.name: item for item in answer.items if isinstance(item, DECLARATIONS)} if answer is not None else {}
    for name, want in wanted:
        item = declared.get(name)
        if item is not None and shape(item) != want:
            # The task's shape is not shown: it is the hidden solution's.
            return (f"'{name}' is declared as `{shape(item)}`, not as the task declares it: the hidden tests use it, "
                    "so it must keep the task's parameter and result types, fields or members")
    return ""
