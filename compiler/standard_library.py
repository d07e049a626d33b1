"""The standard library's functions (LANGUAGE.md section 7), the one table the rules and the code generator read.

Plain Python, so the Kite-only layer never needs .NET; tests/test_standard_library.py ties it to the public
methods of `Kite.Std` in stdlib/KiteStd.cs, both ways.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Generated C# reaches the stdlib assembly only through this extern alias, so no name a program declares (a module
# `Kite`, a type `Std`) can hide it. Kite names never contain "__" inside them unescaped (codegen/types.py).
CSHARP_ALIAS = "kite__std"


@dataclass(frozen=True)
class StdFunction:
    name: str
    pure: bool  # calling it only for its result; on a line by itself it does nothing (KT006)
    arities: tuple[int, ...]  # how many arguments its overloads take
    signature: str  # for people (an editor's hover, signature help): its overloads in Kite's words, " / " between
    doc: str  # one line
    # The Kite type of a call (kite.analyze reads it): a type, or what it is made of: $arg (the first argument's
    # type), $element (its items': a list's, a set's, a map's keys), $list (a list of those), $values (a map's).
    returns: str | None = None

    @property
    def overloads(self) -> list[tuple[str, list[str]]]:
        """Each overload's text and its parameters as written (`xs: list<int>`, `a`)."""
        found = []
        for text in self.signature.split("  /  "):
            inside = text[text.index("(") + 1:text.rindex(")")]
            found.append((text, [part.strip() for part in re.split(r",(?![^<]*>)", inside) if part.strip()]))
        return found


FUNCTIONS = {
    function.name: function
    for function in (
        StdFunction("len", True, (1,), "len(x) -> int",
                    "How many items a list, set or map holds, or how many characters a str has.", returns="int"),
        StdFunction("sum", True, (1,), "sum(xs: list<int>) -> int  /  sum(xs: list<dec>) -> dec",
                    "The sum of the numbers.", returns="$element"),
        StdFunction("min", True, (1, 2), "min(a, b)  /  min(xs)",
                    "The smaller of two values, or the smallest item (a map's smallest key).", returns="$element"),
        StdFunction("max", True, (1, 2), "max(a, b)  /  max(xs)",
                    "The larger of two values, or the largest item (a map's largest key).", returns="$element"),
        StdFunction("abs", True, (1,), "abs(x: int) -> int  /  abs(x: dec) -> dec",
                    "The value without its sign.", returns="$arg"),
        StdFunction("round", True, (1, 2), "round(d: dec, places: int) -> dec",
                    "Rounded to `places` decimals (0 when left out), halves away from zero.", returns="dec"),
        StdFunction("upper", True, (1,), "upper(s: str) -> str",
                    "The text in upper case (invariant culture).", returns="str"),
        StdFunction("lower", True, (1,), "lower(s: str) -> str",
                    "The text in lower case (invariant culture).", returns="str"),
        StdFunction("trim", True, (1,), "trim(s: str) -> str",
                    "The text without white space at either end.", returns="str"),
        StdFunction("split", True, (1, 2), "split(s: str) -> list<str>  /  split(s: str, sep: str) -> list<str>",
                    "The parts between runs of white space (no empty parts), or between each `sep`.", returns="list<str>"),
        StdFunction("join", True, (2,), "join(xs, sep: str) -> str",
                    "The items as text, with `sep` between them.", returns="str"),
        StdFunction("contains", True, (2,), "contains(s: str, part: str) -> bool",
                    "Whether `part` occurs in the text (ordinal).", returns="bool"),
        StdFunction("starts_with", True, (2,), "starts_with(s: str, p: str) -> bool",
                    "Whether the text begins with `p` (ordinal).", returns="bool"),
        StdFunction("ends_with", True, (2,), "ends_with(s: str, p: str) -> bool",
                    "Whether the text ends with `p` (ordinal).", returns="bool"),
        StdFunction("replace", True, (3,), "replace(s: str, old: str, new: str) -> str",
                    "The text with every `old` replaced by `new` (ordinal).", returns="str"),
        StdFunction("range", True, (1, 2), "range(n: int) -> list<int>  /  range(a: int, b: int) -> list<int>",
                    "The integers from 0 (or `a`) up to, not including, the end.", returns="list<int>"),
        StdFunction("sorted", True, (1,), "sorted(xs) -> list",
                    "A new list of the items in ascending order (strings ordinal; a map's keys).", returns="$list"),
        StdFunction("reversed", True, (1,), "reversed(xs) -> list",
                    "A new list of the items in reverse order (a map's keys).", returns="$list"),
        StdFunction("keys", True, (1,), "keys(m: map<K, V>) -> list<K>",
                    "The map's keys.", returns="$list"),
        StdFunction("values", True, (1,), "values(m: map<K, V>) -> list<V>",
                    "The map's values.", returns="$values"),
        StdFunction("to_str", True, (1,), "to_str(x) -> str",
                    "The value as text, the way print shows it.", returns="str"),
        StdFunction("parse_int", True, (1,), "parse_int(s: str) -> int?",
                    "The text as an int, or none when it is not one.", returns="int?"),
        StdFunction("parse_dec", True, (1,), "parse_dec(s: str) -> dec?",
                    "The text as a dec (invariant culture), or none when it is not one.", returns="dec?"),
        StdFunction("print", False, (1,), "print(x)",
                    "Writes the value as text, then a line end, to standard output."),
    )
}
PURE = frozenset(name for name, function in FUNCTIONS.items() if function.pure)
