"""KT003: naming. Functions, variables, parameters and fields are snake_case; modules, types and enum members PascalCase."""

import re

from kite.diagnostics import Edit, Fix, Rule, Severity, Stage
from kite.rules.applicability import has, nodes_of
from kite.syntax import nodes as n

RULE = Rule(
    id="KT003",
    severity=Severity.WARNING,
    summary="a declared name in the wrong case: snake_case for values and functions, PascalCase for modules and types",
    rationale="One naming style per kind of name is part of writing Kite, not C# (AddItem) or Java (addItem). Names Kite did not declare (.NET members such as Split) are never checked.",
    example="fn AddItem(itemName: str)",
    fix="fn add_item(item_name: str)",
    reported_by=frozenset({Stage.AST}),
    same_as=frozenset({"CS8981"}),  # the compiler's own warning about an all-lowercase type name
)

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = True

SNAKE = re.compile(r"^(_|_*[a-z][a-z0-9]*(_[a-z0-9]+)*)$")  # `_` alone: a value the code never reads
PASCAL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
PASCAL_KINDS = {"module", "type", "enum", "member"}


def words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [word for word in re.split(r"[_\s]+", spaced) if word]


def to_snake(name: str) -> str:
    return "_".join(word.lower() for word in words(name))


def to_pascal(name: str) -> str:
    return "".join(word[:1].upper() + word[1:].lower() for word in words(name))


def check(module, facts, file):
    for declaration in facts.declarations:
        name = declaration.name
        if declaration.kind in PASCAL_KINDS:
            if not PASCAL.match(name):
                yield RULE.on(file, declaration.span, f"'{name}' should be PascalCase: {to_pascal(name)}", rename(module, facts, declaration, to_pascal(name)))
        elif not SNAKE.match(name):
            yield RULE.on(file, declaration.span, f"'{name}' should be snake_case: {to_snake(name)}", rename(module, facts, declaration, to_snake(name)))


# Where a declaration of each kind is seen: in the whole module, or in the function or test that declares it.
MODULE_WIDE = {"type", "enum", "member", "field", "fn", "const"}


def rename(module, facts, declaration, new_name: str) -> Fix | None:
    """Every place this file writes the name, renamed: its declarations, and its uses where the declaration is seen.
    Not safe: another file of the module (its tests) may use the name too, so only the language server offers it."""
    old = declaration.name
    if not new_name or new_name == old or declaration.kind == "module":
        return None
    if declaration.kind in MODULE_WIDE:
        within = module.items
    else:
        within = [item for item in module.items if item.line <= declaration.line <= item.end_line]
    spots = {(d.line, d.column) for d in facts.declarations if d.name == old and (d.kind in MODULE_WIDE) == (declaration.kind in MODULE_WIDE)}
    for node in nodes_of(module):
        if not any(item.line <= node.line <= item.end_line for item in within):
            continue
        named = isinstance(node, n.Name) or (isinstance(node, n.TypeRef) and declaration.kind in ("type", "enum"))
        if named and node.name == old:
            spots.add((node.line, node.column))
        elif isinstance(node, n.Member) and node.name == old and declaration.kind in ("field", "member"):
            spots.add((node.end_line, node.end_column - len(old)))
    edits = tuple(Edit(line, column, line, column + len(old), new_name) for line, column in sorted(spots))
    return Fix(f"Rename '{old}' to '{new_name}'", edits, safe=False)


def applies(module):
    """Code that declares a name; a module line declares one too."""
    return bool(module.name) or has(module, n.FnDecl, n.TypeDecl, n.EnumDecl, n.Let, n.For, n.Lambda)
