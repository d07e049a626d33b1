"""The standard library's functions (LANGUAGE.md section 7), the one table the rules and the code generator read.

Plain Python, so the Kite-only layer never needs .NET; tests/test_standard_library.py ties it to the public
methods of `Kite.Std` in stdlib/KiteStd.cs, both ways.
"""

from __future__ import annotations

from dataclasses import dataclass

# Generated C# reaches the stdlib assembly only through this extern alias, so no name a program declares (a module
# `Kite`, a type `Std`) can hide it. Kite names never contain "__" inside them unescaped (codegen/types.py).
CSHARP_ALIAS = "kite__std"


@dataclass(frozen=True)
class StdFunction:
    name: str
    pure: bool  # calling it only for its result; on a line by itself it does nothing (KT006)
    arities: tuple[int, ...]  # how many arguments its overloads take


FUNCTIONS = {
    function.name: function
    for function in (
        StdFunction("len", True, (1,)),
        StdFunction("sum", True, (1,)),
        StdFunction("min", True, (1, 2)),
        StdFunction("max", True, (1, 2)),
        StdFunction("abs", True, (1,)),
        StdFunction("round", True, (1, 2)),
        StdFunction("upper", True, (1,)),
        StdFunction("lower", True, (1,)),
        StdFunction("trim", True, (1,)),
        StdFunction("split", True, (1, 2)),
        StdFunction("join", True, (2,)),
        StdFunction("contains", True, (2,)),
        StdFunction("starts_with", True, (2,)),
        StdFunction("ends_with", True, (2,)),
        StdFunction("replace", True, (3,)),
        StdFunction("range", True, (1, 2)),
        StdFunction("sorted", True, (1,)),
        StdFunction("reversed", True, (1,)),
        StdFunction("keys", True, (1,)),
        StdFunction("values", True, (1,)),
        StdFunction("to_str", True, (1,)),
        StdFunction("parse_int", True, (1,)),
        StdFunction("parse_dec", True, (1,)),
        StdFunction("print", False, (1,)),
    )
}
PURE = frozenset(name for name, function in FUNCTIONS.items() if function.pure)
