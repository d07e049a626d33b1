"""C# messages that would name what the generator wrote (Runtime.List<T>, Std.sorted<T>) or speak only C#,
said in Kite's words. The id stays the compiler's: only the message is the user's language."""

from __future__ import annotations

import dataclasses
import re

from kite.diagnostics import Diagnostic

# CS0411 names the generic method it could not type; the Kite construct behind each generated one.
HELPER = re.compile(r"'(?:[\w:]+\.)?(Runtime|Std)\.(\w+)<")
UNTYPED_EMPTY = "an empty [] or a bare none has no type of its own: declare it, as in let xs: list<int> = []"
RUNTIME_WORDS = {
    "List": f"cannot tell the element type of this list: {UNTYPED_EMPTY}",
    "Iter": f"cannot tell what this for loop goes over: it needs a list, set, map or str of a known type ({UNTYPED_EMPTY})",
    "ExpectEqual": f"cannot compare these two values: their types differ, or one has no type ({UNTYPED_EMPTY})",
    "Eq": f"cannot compare these two values: their types differ, or one has no type ({UNTYPED_EMPTY})",
    "Contains": f"cannot tell what 'in' looks for: the value and the collection's elements differ in type ({UNTYPED_EMPTY})",
}
LAMBDA_UNTYPED = "cannot tell this lambda's type: give each parameter a type, and give it a result with a type (none alone has none)"


def in_kite_words(d: Diagnostic) -> Diagnostic:
    if d.id == "CS0411":
        helper = HELPER.search(d.message)
        if helper is None:
            return d
        kind, name = helper.groups()
        if kind == "Std":
            return dataclasses.replace(d, message=f"cannot tell the types of the arguments to {name}(): they differ, or one has no type ({UNTYPED_EMPTY})")
        return dataclasses.replace(d, message=RUNTIME_WORDS.get(name, f"cannot tell the types in this expression: {UNTYPED_EMPTY}"))
    if d.id == "CS8917":
        return dataclasses.replace(d, message=LAMBDA_UNTYPED)
    return d
