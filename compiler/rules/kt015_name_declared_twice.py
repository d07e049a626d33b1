"""KT015: a name is one thing in a module. A function, type, enum or constant name declared twice (as the same kind
or as two kinds), in one file or in the program and one of its test files; or a function or constant named like a
.NET type Kite code can name, or like a type a test file constructs; or a field spelled like a .NET member that a test
file reads."""

import tomllib
from functools import cache
from importlib import resources
from pathlib import Path

from kite.diagnostics import Related, Rule, Severity, Stage
from kite.rules.applicability import has
from kite.syntax import nodes as n

RULE = Rule(
    id="KT015",
    severity=Severity.ERROR,
    summary=("a name declared twice in one module (function, type, enum, constant), a function or constant named like a .NET type "
             "or a type the tests construct, or a capitalized field the tests read as a member"),
    rationale=(
        "A name is one thing in a module, and a program and its test files are one module. Kite has no overloading: "
        "in C#, a second fn with other parameter types would be an overload, and a call reaches the more specific one, "
        "so a program could take over a test file's helper (fn close_to(got: int, want: int) returning true beside the "
        "tests' close_to(dec, dec)). A fn Item beside type Item would turn every Item(...) of the hidden tests into a "
        "call of the answer's function (returning none, so every expected value is none too); a constant Int32 would "
        "turn the tests' Int32.MinValue into the answer's value. So a function, type, enum or constant name is declared "
        "once, and a function or constant never takes the name of a .NET type Kite code can name (compiler/dotnet/"
        "allowlist.toml), nor the name a test file calls as a type (`Item(...)`): with no type Item at all, a fn Item "
        "returning none would stand in for it. Nor does a field take a capital where a test file reads that member: "
        "the test means .NET's xs.Count, and a record of the answer's with a field Count would stand in for the list. "
        "What a test file's name means is decided by the task's declarations, the standard library and .NET."
    ),
    example="type Item\n    name: str\n    price: dec\n\nfn Item(name: str, price: dec) -> Item?\n    return none",
    fix="type Item\n    name: str\n    price: dec\n\nfn free_item(name: str) -> Item\n    return Item(name, 0.0)",
    reported_by=frozenset({Stage.AST, Stage.UNIT}),
    same_as=frozenset({"CS0111", "CS0102"}),  # the compiler's words for two members of one name in the module's class
)

judges_fragments = True

KINDS = ((n.FnDecl, "function"), (n.TypeDecl, "type"), (n.EnumDecl, "enum"), (n.Let, "constant"))
VALUES = (n.FnDecl, n.Let)  # what C# makes a member of the module's class: it hides a type of that name in every file


def kind_of(item) -> str:
    return next(kind for node_type, kind in KINDS if isinstance(item, node_type))


def name_of(item) -> n.Span:
    return n.Span.of_name(item.line, item.column, item.name)


def declarations(module: n.Module) -> list:
    return [item for item in module.items if isinstance(item, tuple(node_type for node_type, _ in KINDS))]


def clash(earlier, later) -> bool:
    """Two declarations of one name that Kite refuses; two types or enums are C#'s CS0101 already, said on the line."""
    return earlier.name == later.name and (isinstance(earlier, VALUES) or isinstance(later, VALUES))


@cache
def dotnet_type_names() -> frozenset[str]:
    """The simple names of the .NET types Kite code can name, and the namespace roots they sit in: allowlist.toml,
    read as data (the one home of what Kite may bind to)."""
    table = tomllib.loads((resources.files("kite") / "dotnet" / "allowlist.toml").read_text())
    types = [name for name in table["types"]] + [name.rsplit(".", 1)[0] for name in table["members"]]
    return frozenset({name.split("`")[0].rsplit(".", 1)[-1] for name in types} | {name.split(".")[0] for name in types})


def message(item, earlier, where: str = "") -> str:
    """No line number: where the earlier declaration is goes in a related location (earlier_at), so a diagnostic
    that only moved keeps its key for --new-only."""
    if isinstance(item, n.FnDecl) and isinstance(earlier, n.FnDecl) and not where:
        return f"'{item.name}' is already a function: Kite has no overloading, choose another name"
    if where:
        return (f"'{item.name}' is also a {kind_of(earlier)} of {where}: "
                "a program and its tests share one module, choose another name")
    return f"'{item.name}' is already a {kind_of(earlier)}: a name is one thing in a module, choose another name"


def earlier_at(file: str, earlier) -> tuple[Related, ...]:
    return (Related(file, earlier.line, earlier.column, f"the {kind_of(earlier)} '{earlier.name}' is declared here"),)


def check(module, facts, file):
    first: dict[str, object] = {}
    for item in declarations(module):
        earlier = first.get(item.name)
        if earlier is not None and clash(earlier, item):
            yield RULE.on(file, name_of(item), message(item, earlier), related=earlier_at(file, earlier))
        elif isinstance(item, VALUES) and item.name in dotnet_type_names():
            yield RULE.on(file, name_of(item), f"{kind_of(item)} '{item.name}' takes the name of the .NET type {item.name}: "
                                               "it would hide that type in every file of the module, choose another name")
        first.setdefault(item.name, item)


def across_files(program_path: str, program: n.Module | None, tests: list[tuple[str, n.Module | None]]):
    """The program's declarations that one of its test files declares too, reported on the program's side: with
    hidden tests, the program is the answer, and the tests' declaration is the one that keeps its name."""
    if program is None:
        return
    yield from fields_read_as_members(program_path, program, tests)
    as_types = {path: used_as_types(module) for path, module in tests if module is not None}
    for item in declarations(program):
        for path, module in tests:
            other = next((decl for decl in declarations(module) if clash(decl, item)), None) if module is not None else None
            if other is not None:
                # No related location: it would point into a test file that may be hidden (LANGUAGE.md section 12).
                yield RULE.on(program_path, name_of(item), message(item, other, Path(path).name))
                break
            if isinstance(item, VALUES) and module is not None and item.name in as_types[path]:
                yield RULE.on(program_path, name_of(item), f"'{item.name}' is used as a type in {Path(path).name}: a {kind_of(item)} "
                                                           "named like a type would stand in for it, choose a snake_case name")
                break


def used_as_types(module: n.Module) -> set[str]:
    """The names a file means as types, by the spelling Kite gives each kind (LANGUAGE.md section 3, KT003): a call of
    a name that starts with a capital (`Item(...)`, `RGB(...)`: functions are snake_case, so that is a construction)
    and a member read of a PascalCase name (`Size.Large`). Without a type or enum of that name, an answer's `fn Item`
    or `fn RGB` returning none, or a `let Size` of a record whose fields are none, would make every value and every
    expected value none. An all-capitals constant read as a value (`TAX`, `LIMITS.max`) is a constant's spelling."""
    used = set()
    for node in n.descendants(module):
        if isinstance(node, n.Call) and isinstance(node.func, n.Name) and node.func.name[:1].isupper():
            used.add(node.func.name)
        elif isinstance(node, n.Member) and isinstance(node.target, n.Name) and node.target.name[:1].isupper() and not node.target.name.isupper():
            used.add(node.target.name)
    return used


def members_read(module: n.Module) -> set[str]:
    """The member names a file reads or calls (`xs.Count`, `text.Contains("a")`, `HTTP.NotFound`)."""
    return {node.name for node in n.descendants(module) if isinstance(node, n.Member)}


def fields_read_as_members(program_path: str, program: n.Module, tests: list[tuple[str, n.Module | None]]):
    """A field of the program spelled with a capital that a test file reads as a member. Kite's fields are snake_case
    and .NET's members and enum members are PascalCase, so the test means .NET's `Count` or an enum's `NotFound`: an
    answer returning a record of its own with a field `Count: int` or `Contains: fn(str) -> bool` (true), or a
    constant HTTP of a record whose field NotFound is none, would stand in for them."""
    read = [(path, members_read(module)) for path, module in tests if module is not None]
    for item in program.items:
        for field in item.fields if isinstance(item, n.TypeDecl) else ():
            path = next((path for path, names in read if field.name[:1].isupper() and field.name in names), None)
            if path is not None:
                yield RULE.on(program_path, name_of(field), f"field '{field.name}' is read as a member in {Path(path).name}: a field named "
                                                            "like a .NET member or an enum member would stand in for it, choose a snake_case name")


def applies(module):
    """Code that declares a function or a module constant: only those take a name that means something else (a
    `let` in a body is a local, KT011's)."""
    return has(module, n.FnDecl) or any(isinstance(item, n.Let) for item in module.items)
