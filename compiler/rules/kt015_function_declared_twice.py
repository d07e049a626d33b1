"""KT015: a function declared twice in one module, in one file or in the program and one of its test files."""

from pathlib import Path

from kite.diagnostics import Rule, Severity, Stage
from kite.rules.applicability import has
from kite.syntax import nodes as n

RULE = Rule(
    id="KT015",
    severity=Severity.ERROR,
    summary="a function name declared twice in one module: Kite has no overloading, and a program and its tests share names",
    rationale=(
        "Kite has no overloading: a name means one function. In C#, a second fn with other parameter types would be an "
        "overload, and a call reaches the more specific one, so a program could take over a test file's helper "
        "(fn close_to(got: int, want: int) returning true beside the tests' close_to(dec, dec)) and pass tests it fails. "
        "A program and its test files are one module, so a name used by a test file is taken."
    ),
    example="fn area(side: int) -> int\n    return side * side\n\nfn area(width: int, height: int) -> int\n    return width * height",
    fix="fn square_area(side: int) -> int\n    return side * side\n\nfn rectangle_area(width: int, height: int) -> int\n    return width * height",
    reported_by=frozenset({Stage.AST, Stage.UNIT}),
    same_as=frozenset({"CS0111"}),  # the compiler's word when both have the same parameter types
)

judges_fragments = True


def name_of(item: n.FnDecl) -> n.Span:
    return n.Span.of_name(item.line, item.column, item.name)


def functions(module: n.Module) -> list[n.FnDecl]:
    return [item for item in module.items if isinstance(item, n.FnDecl)]


def check(module, facts, file):
    first: dict[str, n.FnDecl] = {}
    for item in functions(module):
        if item.name in first:
            yield RULE.on(file, name_of(item), f"'{item.name}' is already a function on line {first[item.name].line}: "
                                                "Kite has no overloading, choose another name")
        else:
            first[item.name] = item


def across_files(program_path: str, program: n.Module | None, tests: list[tuple[str, n.Module | None]]):
    """The program's functions that one of its test files declares too, reported on the program's side: with hidden
    tests, the program is the answer, and the tests' helper is the one that keeps its name."""
    if program is None:
        return
    for item in functions(program):
        for path, module in tests:
            clash = next((fn for fn in functions(module) if fn.name == item.name), None) if module is not None else None
            if clash is not None:
                yield RULE.on(program_path, name_of(item), f"'{item.name}' is also a function of {Path(path).name} "
                                                           f"(line {clash.line}): a program and its tests share one module, choose another name")
                break


def applies(module):
    """Code that declares a function: only a declaration can take a name twice."""
    return has(module, n.FnDecl)
