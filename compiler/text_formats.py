"""Whether a whole answer is valid JSON, Python or a Python regex: the format checks that need no .NET.

Answer text is hostile, and these parsers are not bounded (a long Python expression takes seconds and gigabytes, a
regex's huge character class seconds): they run in the compile process (kite.dotnet.compile_worker), under the
compile budget, like every other compilation of an answer. Each returns why the text fails ("" when valid)."""

from __future__ import annotations

import ast
import json
import re


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def json_problem(text: str) -> str:
    """Strict JSON: one value, nothing after it, no NaN or Infinity."""
    try:  # integers kept as text: int() refuses over 4300 digits, and a 5000-digit number is valid JSON
        json.loads(text, parse_constant=_refuse_constant, parse_int=str)
    except (ValueError, RecursionError) as error:
        return f"not JSON: {error}"
    return ""


def python_problem(text: str) -> str:
    try:
        ast.parse(text)
    except SyntaxError as error:
        return f"not Python: {error.msg} (line {error.lineno})"
    except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes, nesting too deep for the parser
        return f"not Python: {type(error).__name__}: {error}"
    return ""


def python_regex_problem(pattern: str) -> str:
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as error:
        return f"not a Python regex: {error}"
    return ""
