"""Narrowing (LANGUAGE.md section 6, docs/language.md): where a name or a field path is known not to be none. Code
generation spells it as C# pattern variables (kite.codegen.csharp) and the analyzer's type pass as types without `?`
(kite.analyze): both take what a none-test tests and where a narrowing ends from here, so the editor shows the types
the C# has. tests/test_narrowing.py holds the two to the same answers."""

from __future__ import annotations

from collections.abc import Callable, Container

from kite.syntax import nodes as n

BLOCK_STATEMENTS = (n.If, n.While, n.For)  # the statements that hold others


def is_none(e) -> bool:
    return isinstance(e, n.Literal) and e.kind == "none"


def none_test(e) -> tuple[n.Expr, bool] | None:
    """`x != none`, `none == x`: what is tested, and whether the test being true says it is not none. None for any
    other expression, `none == none` included."""
    if isinstance(e, n.Binary) and e.op in ("==", "!=") and is_none(e.left) != is_none(e.right):
        return (e.right if is_none(e.left) else e.left), e.op == "!="
    return None


def field_path(e, members: Container[str], is_local: Callable[[str], bool]) -> str | None:
    """`order.item.price` when it reads fields of the program's records (`members`) from a local name, which nothing
    can change but assigning that name: a none-test narrows it as it narrows a name. None for anything else."""
    names: list[str] = []
    while isinstance(e, n.Member) and e.name in members:
        names.append(e.name)
        e = e.target
    if not names or not isinstance(e, n.Name) or not is_local(e.name):
        return None
    return ".".join([e.name, *reversed(names)])


def assigned_names(body) -> set[str]:
    """Names assigned anywhere in these statements (nested blocks included)."""
    return {s.target.name for s in n.walk_statements(body) if isinstance(s, n.Assign) and isinstance(s.target, n.Name)}


def through(statement, narrowed: dict[str, str], scope: dict, run: Callable) -> None:
    """`run(statement)`, with the narrowings the statement ends dropped from `scope` (`narrowed`: the key in `scope` of
    each name or field path narrowed there): those whose name it assigns, in a nested block too. An assignment ends
    them once its value is read (`cur = next_value(cur)`), any other statement before it runs."""
    ended: list[str] = []
    if narrowed and isinstance(statement, (n.Assign, *BLOCK_STATEMENTS)):  # the others assign nothing: no walk of them
        assigned = assigned_names([statement])
        ended = [key for path, key in narrowed.items() if path.split(".")[0] in assigned]
    after = isinstance(statement, n.Assign)
    for key in () if after else ended:
        del scope[key]
    run(statement)
    for key in ended if after else ():
        del scope[key]


def unchanged(narrowed: dict, statements) -> dict:
    """The narrowings still true after these statements: those of names they never assign."""
    changed = assigned_names(statements)
    return {name: new for name, new in narrowed.items() if name not in changed}


def always_exits(body) -> bool:
    return bool(body) and isinstance(body[-1], (n.Return, n.Break, n.Continue))
