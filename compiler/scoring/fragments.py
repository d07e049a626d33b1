"""A block of Kite from an answer, read as a whole module the pipeline can compile.

Answers are often fragments. A block that declares a module is read as written, errors and all. One without a
`module` line gets the task's module; if that does not parse, it is tried with its common indentation removed (items
cut from an indented context), then as the body of a function. The reading says which way it went, so a rule that
judges only whole files can tell, and its line offset maps every diagnostic back to the block's own lines.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
import textwrap
from dataclasses import dataclass

from lark.exceptions import LarkError

from kite.syntax import layout as layout_pass, leaks, nodes as n
from kite.syntax.nodes import Module
from kite.syntax.parser import KiteSyntaxError, parse_module

# A module line at column 0 (`module` is a keyword: nothing else starts so); a bad name is the parser's to report.
MODULE_LINE = re.compile(r"^module[ \t]+([^\s#]+)", re.MULTILINE)
# The function a bare body is wrapped in: snake_case, no standard-library name, so it adds no diagnostic of its own,
# and named after the body, so two bodies of one answer put in one module do not clash.
BODY_FUNCTION = "fragment_body"
BODY_WRAPPER = re.compile(rf"{BODY_FUNCTION}_[0-9a-f]{{8}}")
HOWS = ("module", "no module line", "items", "function body", "unreadable")
# Code larger than this is not tried as a fragment, nor an untagged block as Kite: each try is a parse of all of it.
MAX_PROBED_CHARS = 100_000


@dataclass(frozen=True)
class Reading:
    source: str  # a whole Kite module to compile
    how: str  # one of HOWS
    module: str  # the module name the source declares
    line_offset: int  # Kite line N of `source` is line N - line_offset of the block
    column_offset: int = 0  # and column C of a code line is column C - column_offset of the block's line


def normalized(code: str) -> str:
    """LF line ends, as Kite's own reader leaves a file."""
    return code.replace("\r\n", "\n").replace("\r", "\n")


@functools.lru_cache(maxsize=64)  # a block is read once to choose its reading and again to judge it
def parsed(text: str) -> Module | None:
    """The module `text` parses to with nothing recovered but C# leaks (which KT004 reports), else None."""
    layout = layout_pass.check(leaks.scan(text).recovered_text)
    if layout.problems:
        return None
    try:
        module = parse_module("\n".join(layout.lines))
    except (LarkError, KiteSyntaxError, RecursionError):
        return None
    return module if module.name else None


def own_code(module: Module, module_line_written: bool) -> Module:
    """The module as the answer wrote it, to judge where a rule applies: without the module line a reading added,
    and with each wrapped body's statements in place of the function wrapped around them (held by an `if`, which
    declares, calls and assigns nothing), so what the reader added never makes a rule apply."""

    def unwrapped(item):
        if isinstance(item, n.FnDecl) and not item.params and item.returns is None and BODY_WRAPPER.fullmatch(item.name):
            return n.If(item.line, item.column, branches=((n.Literal(item.line, item.column, "bool", "true"), item.body),), orelse=None)
        return item

    return dataclasses.replace(module, name=module.name if module_line_written else "", items=tuple(map(unwrapped, module.items)))


def as_function_body(code: str) -> str:
    lines = textwrap.dedent(code).split("\n")
    return "\n".join("    " + line if line.strip() else "" for line in lines)


def body_function(code: str) -> str:
    return f"{BODY_FUNCTION}_{hashlib.sha256(code.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def candidates(code: str, module_name: str):
    """(how, header, body) in the order a fragment is tried."""
    header = f"module {module_name}\n"
    yield "no module line", header, code
    dedented = textwrap.dedent(code)
    if dedented != code:
        yield "items", header, dedented
    yield "function body", f"{header}fn {body_function(code)}()\n", as_function_body(code)


def indent_added(code: str, read: str) -> int:
    """How far a reading moved the code right (negative: left): dedenting and wrapping in a function move every
    non-blank line by the same amount, so the first one tells."""
    first = next((line for line in code.split("\n") if line.strip()), "")
    moved = next((line for line in read.split("\n") if line.strip()), "")
    return (len(moved) - len(moved.lstrip())) - (len(first) - len(first.lstrip()))


def read_as_module(code: str, module_name: str) -> Reading:
    code = normalized(code)
    for whole in (code, textwrap.dedent(code)):  # a whole file, maybe indented as a piece of something else
        declared = MODULE_LINE.search(whole)
        if declared:
            return Reading(whole, "module", declared.group(1), 0, indent_added(code, whole))
    if len(code) > MAX_PROBED_CHARS:  # parsing it three ways would take minutes: it is read as a file, errors and all
        return Reading(f"module {module_name}\n{code}", "no module line", module_name, 1)
    if code.strip():
        for how, header, body in candidates(code, module_name):
            if parsed(header + body) is not None:
                return Reading(header + body, how, module_name, header.count("\n"), indent_added(code, body))
    # Still a module to compile: the block's own KT000 and KT004 are what it gets graded on.
    return Reading(f"module {module_name}\n{code}", "unreadable", module_name, 1)
