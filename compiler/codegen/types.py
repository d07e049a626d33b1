"""The one place that knows how Kite types and names are spelled in C#."""

from __future__ import annotations

from kite.syntax import nodes as n

PRIMITIVES = {"int": "int", "dec": "decimal", "str": "string", "char": "char", "bool": "bool"}
COLLECTIONS = {"list": "List", "map": "Dictionary", "set": "HashSet"}
CSHARP_KEYWORDS = frozenset(
    "abstract as base bool break byte case catch char checked class const continue decimal default delegate do "
    "double else enum event explicit extern false finally fixed float for foreach goto if implicit in int interface "
    "internal is lock long namespace new null object operator out override params private protected public readonly "
    "ref return sbyte sealed short sizeof stackalloc static string struct switch this throw true try typeof uint ulong "
    "unchecked unsafe ushort using virtual void volatile while".split()
)


def identifier(name: str) -> str:
    return "@" + name if name in CSHARP_KEYWORDS else name


def csharp_type(type_: n.TypeRef) -> str:
    if type_.name in COLLECTIONS:
        spelled = f"{COLLECTIONS[type_.name]}<{', '.join(csharp_type(arg) for arg in type_.args)}>"
    else:
        spelled = PRIMITIVES.get(type_.name, type_.name)
    return spelled + ("?" if type_.nullable else "")


def constant_type(expr, known: dict[str, str] | None = None) -> str | None:
    """The C# type of a module constant's value, where it can be told without a type checker."""
    known = known or {}
    if isinstance(expr, n.Literal):
        return PRIMITIVES.get(expr.kind)  # literal kinds are spelled like the types
    if isinstance(expr, n.FString):
        return "string"
    if isinstance(expr, n.Name):
        return known.get(expr.name)
    if isinstance(expr, n.Unary):
        return "bool" if expr.op == "not" else constant_type(expr.operand, known)
    if isinstance(expr, n.Binary):
        if expr.op in ("and", "or", "==", "!=", "<", "<=", ">", ">=", "in"):
            return "bool"
        left, right = constant_type(expr.left, known), constant_type(expr.right, known)
        if left == right:
            return left
        return "decimal" if {left, right} == {"int", "decimal"} else ("string" if "string" in (left, right) and expr.op == "+" else None)
    if isinstance(expr, n.ListLiteral) and expr.items:
        element = constant_type(expr.items[0], known)
        return f"List<{element}>" if element and all(constant_type(i, known) == element for i in expr.items) else None
    if isinstance(expr, n.TypeCall):
        return csharp_type(expr.type)
    if isinstance(expr, n.Call) and isinstance(expr.func, n.Name) and expr.func.name[:1].isupper():
        return expr.func.name
    return None
