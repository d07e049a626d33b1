"""What a rule's `applies(module)` looks at: every node of a module (nodes.descendants).

A rule is not applicable where the code has nothing it judges (no `let mut` for KT002); `kite score` leaves such
code out of that rule's rate instead of counting it as a pass."""

from __future__ import annotations

from kite.syntax import nodes as n

_walked: tuple[n.Module | None, tuple] = (None, ())


def nodes_of(module: n.Module) -> tuple:
    """Every node of the module, walked once however many rules ask (the last module walked is kept)."""
    global _walked
    if _walked[0] is not module:
        _walked = (module, tuple(n.descendants(module)))
    return _walked[1]


def has(module: n.Module, *kinds: type) -> bool:
    return any(isinstance(node, kinds) for node in nodes_of(module))
