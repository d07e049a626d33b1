"""What `kite lsp` answers from the workspace index (kite.graph.index), across files: definition, references,
rename, workspace symbols, call hierarchy, document highlights. Plain functions; positions in and out are the
editor's (0-based lines, code-point columns: features.EditorRange), the index's own are 1-based.
"""

from __future__ import annotations

from dataclasses import dataclass

from kite.graph.index import STD, Local, Range, Symbol, Workspace
from kite.lsp.features import EditorRange
from kite.rules.kt003_naming import PASCAL, SNAKE
from kite.standard_library import FUNCTIONS
from kite.syntax.parser import kite_keywords

PASCAL_KINDS = {"type", "enum", "member"}
MODULE_LEVEL = {"fn", "const", "type", "enum"}
# A kind as a refusal names it (a local's kinds are kite.analyze's: "mut" is no word for a name).
KIND_WORDS = {"fn": "function", "const": "constant", "param": "parameter", "lambda": "parameter", "loop": "loop variable",
              "let": "local", "mut": "local"}


class Refused(Exception):
    """A rename that cannot be done, and why (the editor shows it)."""


def editor_range(r: Range) -> EditorRange:
    return EditorRange(r.line - 1, r.column - 1, r.end_line - 1, r.end_column - 1)


@dataclass(frozen=True)
class Target:
    """What the name under the cursor means: a symbol of the index, a local of this file, or the standard library's."""

    range: Range  # the name under the cursor
    symbol: Symbol | None = None
    local: Local | None = None
    std: str | None = None

    @property
    def declared(self) -> Symbol:
        """The symbol, where the caller has ruled out a local and the standard library."""
        assert self.symbol is not None
        return self.symbol


def target_at(ws: Workspace, path: str, line: int, column: int) -> Target | None:
    """The name at the editor's position (or just before it)."""
    at = (line + 1, column + 1)
    file = ws.files.get(path)
    if file is None:
        return None
    for local in file.locals:
        for where in (local.range, *local.uses):
            if where.contains(*at):
                return Target(where, local=local)
    for ref in ws.references_in(path):
        if ref.range.contains(*at):
            if ref.target.startswith(STD):
                return Target(ref.range, std=ref.target.removeprefix(STD))
            symbol = ws.module_symbols(file.group).get(ref.target)
            if symbol is not None:
                return Target(ref.range, symbol=symbol)
    return None


@dataclass(frozen=True)
class Location:
    path: str
    range: EditorRange


def definition(ws: Workspace, path: str, line: int, column: int) -> Location | None:
    found = target_at(ws, path, line, column)
    if found is None or found.std is not None:
        return None
    if found.local is not None:
        return Location(path, editor_range(found.local.range))
    return Location(found.declared.file, editor_range(found.declared.name_range))


def references(ws: Workspace, path: str, line: int, column: int, include_declaration: bool) -> list[Location]:
    """Every place the name under the cursor means the same thing, in every file of its module."""
    found = target_at(ws, path, line, column)
    if found is None or found.std is not None:
        return []
    if found.local is not None:
        spots = ((found.local.range,) if include_declaration else ()) + found.local.uses
        return [Location(path, editor_range(r)) for r in sorted(spots)]
    group = ws.files[path].group
    return [Location(ref.file, editor_range(ref.range)) for ref in ws.references_of(found.declared.id, group)
            if include_declaration or ref.kind != "declares"]


def highlights(ws: Workspace, path: str, line: int, column: int) -> list[tuple[EditorRange, bool]]:
    """The name's occurrences in this file, each with whether it is where the name is declared (written)."""
    found = target_at(ws, path, line, column)
    if found is None or found.std is not None:
        return []
    if found.local is not None:
        return [(editor_range(found.local.range), True), *((editor_range(r), False) for r in found.local.uses)]
    return [(editor_range(ref.range), ref.kind == "declares")
            for ref in ws.references_of(found.declared.id, ws.files[path].group) if ref.file == path]


# ---- rename


def prepare_rename(ws: Workspace, path: str, line: int, column: int, word: str | None) -> tuple[EditorRange, str]:
    """The range the editor lets the user rename, with its current name; Refused when it cannot be renamed."""
    found = target_at(ws, path, line, column)
    if found is None:
        if word in kite_keywords():
            raise Refused(f"'{word}' is a keyword of Kite: it cannot be renamed")
        if word in FUNCTIONS:
            raise Refused(f"'{word}' is the standard library's: it cannot be renamed")
        raise Refused("no name of this program here")
    if found.std is not None:
        raise Refused(f"'{found.std}' is the standard library's: it cannot be renamed")
    if found.symbol is not None and found.symbol.kind == "test":
        raise Refused("a test's title is text, not a name: edit it in place")
    name = found.local.name if found.local is not None else found.declared.name
    return editor_range(found.range), name


def rename(ws: Workspace, path: str, line: int, column: int, new_name: str, word: str | None = None) -> dict[str, list[tuple[EditorRange, str]]]:
    """The edits, per file, that rename the name under the cursor everywhere it means the same thing. Refused for a
    standard-library name, a keyword, a name that is not the form KT003 wants for its kind, or a name already
    declared where the renamed one is seen."""
    prepare_rename(ws, path, line, column, word)
    found = target_at(ws, path, line, column)
    assert found is not None
    kind = found.local.kind if found.local is not None else found.declared.kind
    _check_new_name(new_name, kind)
    group = ws.files[path].group
    if found.local is not None:
        same_scope = next((other for other in ws.files[path].locals if other.name == new_name and other.scope == found.local.scope), None)
        if same_scope is not None:
            raise Refused(f"'{new_name}' is already declared on line {same_scope.range.line}")
        used = {ref.target.rsplit(".", 1)[-1] for ref in ws.references_in(path)
                if found.local.scope.contains(ref.range.line, ref.range.column) and ref.kind in ("calls", "uses", "constructs")}
        if new_name in used:
            raise Refused(f"'{new_name}' is used in this function already: the new name would hide it")
        spots = [(path, r) for r in (found.local.range, *found.local.uses)]
    else:
        symbol = found.declared
        siblings = [s for s in ws.module_symbols(group).values()
                    if (s.container == symbol.container if symbol.container else s.kind in MODULE_LEVEL)]
        clash = next((s for s in siblings if s.name == new_name), None)
        if clash is not None:
            raise Refused(f"'{new_name}' is already declared: {clash.kind} {clash.id} on line {clash.name_range.line} of {clash.file}")
        spots = [(ref.file, ref.range) for ref in ws.references_of(symbol.id, group)]
        # A local of the new name where the symbol is used would hide it there; the declaration is no use: `fn s(s: str)`.
        uses = [(ref.file, ref.range) for ref in ws.references_of(symbol.id, group) if ref.kind != "declares"]
        for file, where in uses:
            hiding = next((local for local in ws.files[file].locals
                           if local.name == new_name and local.scope.contains(where.line, where.column)), None)
            if hiding is not None:
                raise Refused(f"'{new_name}' is a local on line {hiding.range.line} of {file}, where '{symbol.name}' is used: "
                              "the new name would be hidden there")
    edits: dict[str, list[tuple[EditorRange, str]]] = {}
    for file, where in sorted(set(spots)):
        edits.setdefault(file, []).append((editor_range(where), new_name))
    return edits


def _check_new_name(new_name: str, kind: str) -> None:
    if new_name in kite_keywords():
        raise Refused(f"'{new_name}' is a keyword of Kite")
    if new_name in FUNCTIONS:
        raise Refused(f"'{new_name}' is the standard library's: a program cannot declare it")
    if kind in PASCAL_KINDS:
        if not PASCAL.match(new_name):
            raise Refused(f"'{new_name}' is not a {kind} name: Kite writes them in PascalCase")
    elif not SNAKE.match(new_name) and not (kind == "const" and new_name.isupper() and SNAKE.match(new_name.lower())):
        raise Refused(f"'{new_name}' is not a {KIND_WORDS.get(kind, kind)} name: Kite writes them in snake_case")


# ---- the whole workspace


def workspace_symbols(ws: Workspace, query: str) -> list[Symbol]:
    """Symbols whose name or id holds the query, ignoring case."""
    wanted = query.lower()
    return [s for s in ws.symbols if wanted in s.name.lower() or wanted in s.id.lower()]


CALLERS = ("test", "fn", "const")


def call_item(ws: Workspace, path: str, line: int, column: int) -> Symbol | None:
    """The function (or test) under the cursor, for a call hierarchy."""
    found = target_at(ws, path, line, column)
    if found is not None and found.symbol is not None and found.declared.kind in ("fn", "test"):
        return found.symbol
    for symbol in ws.files[path].symbols if path in ws.files else ():
        if symbol.kind in ("fn", "test") and symbol.range.contains(line + 1, column + 1):
            return symbol
    return None


def _symbol_in(ws: Workspace, group: str, symbol_id: str) -> Symbol | None:
    return ws.module_symbols(group).get(symbol_id)


def incoming_calls(ws: Workspace, symbol: Symbol) -> list[tuple[Symbol, list[EditorRange]]]:
    group = ws.files[symbol.file].group
    by_source: dict[str, list[EditorRange]] = {}
    for ref in ws.references_of(symbol.id, group):
        if ref.kind in ("calls", "constructs") and ref.source is not None:
            by_source.setdefault(ref.source, []).append(editor_range(ref.range))
    return [(caller, spots) for source, spots in by_source.items() if (caller := _symbol_in(ws, group, source)) is not None]


def outgoing_calls(ws: Workspace, symbol: Symbol) -> list[tuple[Symbol, list[EditorRange]]]:
    """What the function calls or constructs (its body is in its own file); the standard library's are left out: they
    have no place to go to."""
    group = ws.files[symbol.file].group
    by_target: dict[str, list[EditorRange]] = {}
    for ref in ws.references_in(symbol.file):
        if ref.source == symbol.id and ref.kind in ("calls", "constructs"):
            by_target.setdefault(ref.target, []).append(editor_range(ref.range))
    return [(callee, spots) for target, spots in by_target.items() if (callee := _symbol_in(ws, group, target)) is not None]


# ---- semantic tokens: what each name is, from the index

TOKEN_TYPES = ("function", "struct", "enum", "enumMember", "property", "variable", "parameter", "method")
TOKEN_MODIFIERS = ("declaration", "readonly", "defaultLibrary")
SYMBOL_TOKENS = {"fn": "function", "type": "struct", "enum": "enum", "member": "enumMember", "field": "property",
                 "const": "variable", "test": "method"}
LOCAL_TOKENS = {"param": "parameter", "lambda": "parameter", "let": "variable", "mut": "variable", "loop": "variable"}


def semantic_tokens(ws: Workspace, path: str) -> list[tuple[int, int, int, str, frozenset[str]]]:
    """(line, column, length, type, modifiers) for every name of the file the index knows, in order (0-based)."""
    file = ws.files.get(path)
    if file is None:
        return []
    kinds = {s.id: s.kind for s in ws.module_symbols(file.group).values()}
    found = []
    for ref in ws.references_in(path):
        if ref.range.line != ref.range.end_line:
            continue
        if ref.target.startswith(STD):
            kind, modifiers = "function", {"defaultLibrary"}
        elif ref.target in kinds:
            kind = SYMBOL_TOKENS[kinds[ref.target]]
            modifiers = {"declaration"} if ref.kind == "declares" else set()
            if kinds[ref.target] in ("const", "member"):
                modifiers.add("readonly")
        else:
            continue
        found.append((ref.range.line - 1, ref.range.column - 1, ref.range.end_column - ref.range.column, kind, frozenset(modifiers)))
    for local in file.locals:
        readonly = set() if local.kind == "mut" else {"readonly"}
        for where in (local.range, *local.uses):
            modifiers = readonly | ({"declaration"} if where is local.range else set())
            found.append((where.line - 1, where.column - 1, where.end_column - where.column, LOCAL_TOKENS[local.kind], frozenset(modifiers)))
    return sorted(set(found), key=lambda token: token[:2])
