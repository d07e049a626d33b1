"""The standard-library table (compiler/standard_library.py) says exactly what class Kite.Std in stdlib/KiteStd.cs has."""

from __future__ import annotations

import re

from kite import standard_library
from kite.dotnet.stdlib import stdlib_source

PUBLIC_METHOD = re.compile(r"public static [^\n(=]+? ([a-z_]+)(?:<[^>(]*>)?\(([^)]*)\)")


def std_class_methods() -> dict[str, set[int]]:
    """Each public method of class Std and the argument counts of its overloads."""
    text = stdlib_source()
    body = text.split("public static class Std", 1)[1].split("\n    }\n", 1)[0]
    methods: dict[str, set[int]] = {}
    for name, params in PUBLIC_METHOD.findall(body):
        depth, count = 0, 1 if params.strip() else 0
        for char in params:
            depth += (char in "<(" and 1) or (char in ">)" and -1) or 0
            count += char == "," and depth == 0
        methods.setdefault(name, set()).add(count)
    return methods


def test_every_public_method_of_std_is_in_the_table_and_every_entry_is_a_method_of_std():
    methods = std_class_methods()
    assert len(methods) >= 20  # the parse found the class
    assert set(methods) == set(standard_library.FUNCTIONS)


def test_the_table_gives_each_function_the_argument_counts_of_its_overloads():
    methods = std_class_methods()
    assert {name: set(f.arities) for name, f in standard_library.FUNCTIONS.items()} == methods


def test_everything_but_print_is_pure():
    assert set(standard_library.FUNCTIONS) - standard_library.PURE == {"print"}
