"""What a rule's `applies(module)` looks at: every node of a module, found by walking the dataclass fields.

A rule is not applicable where the code has nothing it judges (no `let mut` for KT002); `kite score` leaves such
code out of that rule's rate instead of counting it as a pass."""

from __future__ import annotations

import dataclasses

from kite.syntax import nodes as n


def every_node(node):
    """The node and every node inside it (statements, expressions, types), depth first."""
    yield node
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        for child in value if isinstance(value, tuple) else (value,):
            if isinstance(child, tuple):  # an If's (condition, body) pairs
                for inner in child:
                    yield from _nodes_in(inner)
            else:
                yield from _nodes_in(child)


def _nodes_in(value):
    if isinstance(value, n.Node):
        yield from every_node(value)
    elif isinstance(value, tuple):
        for inner in value:
            yield from _nodes_in(inner)


_walked: tuple[n.Module | None, tuple] = (None, ())


def nodes_of(module: n.Module) -> tuple:
    """Every node of the module, walked once however many rules ask (the last module walked is kept)."""
    global _walked
    if _walked[0] is not module:
        _walked = (module, tuple(every_node(module)))
    return _walked[1]


def has(module: n.Module, *kinds: type) -> bool:
    return any(isinstance(node, kinds) for node in nodes_of(module))
