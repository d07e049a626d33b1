"""The one place that knows how Kite types and names are spelled in C#."""

from __future__ import annotations

from kite.callee import constructs
from kite.syntax import nodes as n

PRIMITIVES = {"int": "int", "dec": "decimal", "str": "string", "char": "char", "bool": "bool"}
COLLECTIONS = {name: f"global::System.Collections.Generic.{spelled}" for name, spelled in (("list", "List"), ("map", "Dictionary"), ("set", "HashSet"))}
# Every C# keyword, the undocumented ones (__makeref ...) included, and the contextual keywords: `@` makes any of
# them a plain name, so `nameof`, `await`, `value` or `with` chosen by a program stay its own names.
CSHARP_KEYWORDS = frozenset(
    "abstract as base bool break byte case catch char checked class const continue decimal default delegate do "
    "double else enum event explicit extern false finally fixed float for foreach goto if implicit in int interface "
    "internal is lock long namespace new null object operator out override params private protected public readonly "
    "ref return sbyte sealed short sizeof stackalloc static string struct switch this throw true try typeof uint ulong "
    "unchecked unsafe ushort using virtual void volatile while "
    "__arglist __makeref __reftype __refvalue "
    "add allows alias and ascending args async await by descending dynamic equals extension field file from get "
    "global group init into join let managed nameof nint not notnull nuint on or orderby partial record remove "
    "required scoped select set unmanaged value var when where with yield".split()
)
# Members every C# record, class or enum already has (or the generator adds): a program's name never lands on one.
GENERATED_MEMBERS = frozenset(
    "Equals GetHashCode ToString GetType MemberwiseClone Finalize ReferenceEquals EqualityContract PrintMembers "
    "Deconstruct Clone Main".split()
)
# A program's names get this suffix where they would meet a generated one; generated names contain "__" inside
# them and never end with it, so the two sets never meet.
ESCAPE_SUFFIX = "__u"
# A function or constant of a test file ends with this in C#: no spelling of a name the program writes does, so the
# program cannot reach the hidden tests' helpers or values (a reference solution, an expected list to clear).
TESTS_SUFFIX = "__t"


def is_generated_shape(name: str) -> bool:
    return "__" in name.lstrip("_")


def identifier(name: str) -> str:
    """A name the program chose, spelled so it can never be a C# keyword or a name the generator uses."""
    if name in CSHARP_KEYWORDS:
        return "@" + name
    if not name.strip("_"):
        return "v" + name + ESCAPE_SUFFIX  # `_` alone would be C#'s discard
    if name in GENERATED_MEMBERS or is_generated_shape(name):
        return name + ESCAPE_SUFFIX
    return name


def tests_identifier(name: str) -> str:
    """A function or constant a test file declares, as C# spells it: out of the program's reach."""
    return identifier(name) + TESTS_SUFFIX


def kite_name(spelled: str) -> str:
    """The Kite name a C# name was spelled from (identifier, member_identifier, generated_name), for a debugger
    reading a PDB: `v___u` is `_`, `Equals__u` is `Equals`, `count__3` (a redeclared or narrowed local) is `count`."""
    spelled = spelled.removeprefix("@").removesuffix("__f").removesuffix(TESTS_SUFFIX)
    if spelled.endswith(ESCAPE_SUFFIX) and spelled != ESCAPE_SUFFIX:
        spelled = spelled.removesuffix(ESCAPE_SUFFIX)
        return spelled[1:] if spelled.startswith("v") and spelled[1:] and not spelled[1:].strip("_") else spelled
    stem, _, number = spelled.rpartition("__")
    return stem if stem and number.isdigit() else spelled


def generated_name(stem: str, number: int) -> str:
    """A helper name the generator invents (pattern variables): `n__1`, never equal to a program's name."""
    return f"{stem.lstrip('_') or 'v'}__{number}"


def csharp_type(type_: n.TypeRef) -> str:
    """Iterative: a type nested deeper than the parser allows never gets here, but nothing here recurses anyway."""
    pending: list = [type_]
    out: list[str] = []
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        suffix = "?" if item.nullable else ""
        if item.name == "fn" and not item.args and item.returns is None:
            out.append("global::System.Action" + suffix)
        elif item.name == "fn" or item.name in COLLECTIONS:
            # Kite's function types are .NET's delegates: fn(int) -> bool is Func<int, bool>, fn(str) Action<string>.
            generic = COLLECTIONS.get(item.name) or ("global::System.Func" if item.returns else "global::System.Action")
            pieces: list = [f"{generic}<"]
            for position, arg in enumerate([*item.args, *([item.returns] if item.returns else [])]):
                pieces += [", "] if position else []
                pieces.append(arg)
            pieces.append(">" + suffix)
            pending.extend(reversed(pieces))
        else:
            spelled = PRIMITIVES.get(item.name) or ".".join(identifier(part) for part in item.name.split("."))
            out.append(spelled + suffix)
    return "".join(out)


def constant_type(expr, known: dict[str, str], functions=frozenset(), types=frozenset(), enums=frozenset()) -> str | None:
    """The C# type of a module constant's value, where it can be told without a type checker.

    known: the constants evaluated before it; functions, types and enums: what the unit declares."""
    if isinstance(expr, n.Literal):
        return PRIMITIVES.get(expr.kind)  # literal kinds are spelled like the types
    if isinstance(expr, n.FString):
        return "string"
    if isinstance(expr, n.Name):
        return known.get(expr.name)
    if isinstance(expr, n.Unary):
        return "bool" if expr.op == "not" else constant_type(expr.operand, known, functions, types, enums)
    if isinstance(expr, n.Binary):
        if expr.op in ("and", "or", "==", "!=", "<", "<=", ">", ">=", "in"):
            return "bool"
        operations = n.chain(expr)  # iteratively: a chain's left spine is as long as the chain
        left = constant_type(operations[0].left, known, functions, types, enums)
        for operation in operations:
            right = constant_type(operation.right, known, functions, types, enums)
            if left != right:
                both = {left, right}
                left = "decimal" if both == {"int", "decimal"} else ("string" if "string" in both and operation.op == "+" else None)
        return left
    if isinstance(expr, n.ListLiteral) and expr.items:
        element = constant_type(expr.items[0], known, functions, types, enums)
        return f"{COLLECTIONS['list']}<{element}>" if element and all(constant_type(i, known, functions, types, enums) == element for i in expr.items) else None
    if isinstance(expr, n.Member) and isinstance(expr.target, n.Name) and expr.target.name in enums and expr.target.name not in known:
        return identifier(expr.target.name)  # an enum's member: `Size.Small`
    if isinstance(expr, n.TypeCall):
        return csharp_type(expr.type)
    if isinstance(expr, n.Call) and isinstance(expr.func, n.Name):
        name = expr.func.name
        return identifier(name) if constructs(name, is_value=name in known, functions=functions, types=types) else None
    return None


def constant_types(ordered_constants, functions=frozenset(), types=frozenset(), enums=frozenset()) -> dict[str, str | None]:
    """Each constant's C# type, None where it cannot be told; constants come in the order they are evaluated."""
    known: dict[str, str] = {}
    spelled_by_name: dict[str, str | None] = {}
    for item in ordered_constants:
        spelled = csharp_type(item.type) if item.type else constant_type(item.value, known, functions, types, enums)
        spelled_by_name[item.name] = spelled
        known[item.name] = spelled or "object"
    return spelled_by_name
