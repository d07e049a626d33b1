"""What a called bare name is: the one place that tells a construction `Item(...)` from a call `item(...)`.

A name means what the program declared it as, never what its first letter suggests: the standard library, a local
or a module constant (a lambda in a let), a record or enum of the program, then a function. A type comes before a
function: `Item(...)` constructs the type in every file, even where an answer declares a `fn Item` too (KT015). Only a name the program
never declared is guessed at, by .NET's convention that types are PascalCase (`StringBuilder()`).
"""

from __future__ import annotations

from kite import standard_library


def constructs(name: str, *, is_value: bool, functions, types) -> bool:
    """`name(...)` makes a new `name`. is_value: a local, parameter or constant of that name is in scope."""
    if name in standard_library.FUNCTIONS or is_value:
        return False
    return name in types or (name not in functions and name[:1].isupper())
