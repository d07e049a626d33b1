"""C# messages that would name what the generator wrote (Runtime.List<T>, Std.sorted<T>, a local `step__1`) or speak only C#,
said in Kite's words. The id stays the compiler's: only the message is the user's language."""

from __future__ import annotations

import dataclasses
import re

from kite.diagnostics import Diagnostic

# The namespace the generated C# puts a program's types and module class in; "__" inside: no program's name is it.
PROGRAM_NAMESPACE = "kite__program"

# CS0411 names the generic method it could not type; the Kite construct behind each generated one.
HELPER = re.compile(r"'(?:[\w:]+\.)?(Runtime|Std)\.(\w+)<")
UNTYPED_EMPTY = "an empty [] or a bare none has no type of its own: declare it, as in let xs: list<int> = []"
RUNTIME_WORDS = {
    "List": "cannot tell the element type of this list: its elements must all be of one type, and an empty [] or a "
            "bare none has no type of its own (declare it, as in let xs: list<int> = [])",
    "Iter": "cannot tell what this for loop goes over: a list, set, map or str, and this value is none of them, or has "
            "no type of its own "
            "(declare it, as in let xs: list<int> = [])",
    "ExpectEqual": f"cannot compare these two values: their types differ, or one has no type ({UNTYPED_EMPTY})",
    "Eq": f"cannot compare these two values: their types differ, or one has no type ({UNTYPED_EMPTY})",
    "Contains": f"cannot tell what 'in' looks for: the value and the collection's elements differ in type ({UNTYPED_EMPTY})",
}
# CS0411 on a list or a for loop, said from what the code is (pipeline.untyped_in_kite_terms reads the shape).
MIXED_LIST = "cannot tell the element type of this list: its elements are of different types{types}, and a list holds one: write every element as one type"
NOT_ITERABLE = "cannot tell what this for loop goes over: a list, set, map or str, and {what} is none of them{advice}"
COUNTING = ": to count, write for i in range(n)"
UNTYPED_LIST = "cannot tell the element type of this list: " + UNTYPED_EMPTY
# The suffix the generator puts on a name (compiler/codegen/types.py, csharp.py): `step__1` for a name declared again
# after its block ended or a narrowed name, `a__b__u` for a program's name that looks generated, `Size__f`, `shop__m`, a test file's `helper__t`.
SPELLED_NAME = re.compile(r"\b\w*__\w*\b")
GENERATED_SUFFIX = re.compile(r"(?:__u__f|__u__t|__u|__f|__m|__t|__\d+)$")
UNDERSCORES_ONLY = re.compile(r"v(_+)")  # identifier() spells `_` as `v___u`
CONSTANT_OVERFLOW = "this int arithmetic leaves int's range (-2147483648 to 2147483647): Kite has no long"
LAMBDA_UNTYPED = "cannot tell this lambda's type: give each parameter a type, and give it a result with a type (none alone has none)"


def kite_names(message: str) -> str:
    """The message with each name the generator spelled for a program's name said as the program wrote it (and
    without the namespace the generator put it in)."""
    message = message.replace(f"global::{PROGRAM_NAMESPACE}.", "").replace(f"{PROGRAM_NAMESPACE}.", "")
    def unspelled(match: re.Match) -> str:
        stem = GENERATED_SUFFIX.sub("", match.group())
        if stem == match.group():
            return stem
        underscores = UNDERSCORES_ONLY.fullmatch(stem)
        return underscores.group(1) if underscores else stem
    return SPELLED_NAME.sub(unspelled, message)


def in_kite_words(d: Diagnostic) -> Diagnostic:
    d = dataclasses.replace(d, message=kite_names(d.message)) if "__" in d.message else d
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
    if d.id == "CS0220":  # "overflows at compile time in checked mode": Kite has no checked mode, its ints always are
        return dataclasses.replace(d, message=CONSTANT_OVERFLOW)
    return d
