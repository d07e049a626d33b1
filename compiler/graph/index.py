"""The index of a set of Kite files, from the syntax alone: every declared symbol, every name that refers to one (with
the kind of dependency it makes), and every local with its uses. `kite graph` prints it; the language server answers
definition, references, rename, workspace symbols and call hierarchy from it.

Names resolve within a module: a program `NAME.kite` and its `NAME.test.kite` beside it that declare the same module
are one module (docs/language.md), so a test's call of `total` is the program's `total`. Two answers that both say
`module Shop` in other files stay two modules, whose symbols share ids (a query by id lists both).

Built in two steps, so an edit re-reads only its file: `read_file` (one file's symbols, names and locals, from its
parse; cacheable) and `Workspace` (the references resolved against their module's symbols).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple, Protocol

from kite.analyze import gather
from kite.callee import constructs
from kite.search.spans import Spans
from kite.standard_library import FUNCTIONS
from kite.syntax import nodes as n

STD = "std."
TEST_SUFFIX = ".test.kite"
# Names recovery puts in place of a line that did not parse: never the program's own.
RECOVERED = ("recovered_line_", "RecoveredLine")
ITEM_KINDS = {n.FnDecl: "fn", n.Let: "const", n.TypeDecl: "type", n.EnumDecl: "enum"}
ITEM_PARTS = {n.TypeDecl: ("fields", "field"), n.EnumDecl: ("members", "member")}
LEAVES = frozenset((n.Name, n.Literal))  # nodes without children


@n.made_in_c
class Range(NamedTuple):
    """1-based lines and columns of the file as written, the end just past the last character. A tuple, not a
    dataclass: a warm `kite graph --cache` builds tens of them per file, and a tuple is quicker to make."""

    line: int
    column: int
    end_line: int
    end_column: int

    def contains(self, line: int, column: int) -> bool:
        return (self.line, self.column) <= (line, column) <= (self.end_line, self.end_column)

    def to_json(self) -> dict:
        return {"start": {"line": self.line, "column": self.column}, "end": {"line": self.end_line, "column": self.end_column}}


@n.made_in_c
class Symbol(NamedTuple):
    """A tuple, as Range is: a warm `kite graph --cache` makes every file's from its entry."""

    id: str  # Module.name, Module.Type.field, Module.Enum.Member, Module.test:<title>
    name: str
    kind: str  # fn type field enum member const test
    file: str
    range: Range  # the whole declaration as written: from its keyword (a field, a member: its name) to its last character
    name_range: Range  # where its name is written (a test: its title, quotes included)
    container: str | None = None  # the type or enum a field or member belongs to
    node: object = None  # the declaration's AST node (signatures, hover)

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "kind": self.kind, "file": self.file, "range": self.range.to_json()}


@n.made_in_c
class Name(NamedTuple):
    """A name as written in a file, before it is resolved: what it may mean depends on the module's other files. A
    tuple, as Range is: a warm `kite graph --cache` makes about twenty a file."""

    name: str
    range: Range
    role: str  # call, value, type, member, qualifier (the name before a dot: `Size` of `Size.Small`)
    source: str | None  # the id of the symbol it is written in
    owner: str | None = None  # for a member: the type its target has, where declarations tell it
    via: Range | None = None  # for a member of a bare name (`Size.Small`, `item.price`): where that name is


@dataclass(frozen=True)
class Local:
    """A local, parameter, loop variable or lambda parameter: declared once, used in its own file only."""

    name: str
    kind: str  # let, mut, param, loop, lambda
    range: Range  # its name where declared
    uses: tuple[Range, ...]
    scope: Range  # the item it is declared in (names declared there may clash with a new name)


@dataclass(frozen=True)
class FileIndex:
    path: str
    module: str
    group: str  # files of one module share it (the program's path without .kite)
    symbols: tuple[Symbol, ...]
    names: Sequence[Name]  # a tuple; read from `--cache`, made only when first read (kite.graph.cache)
    locals: Sequence[Local]  # a tuple; read from `--cache`, made only when first read (kite.graph.cache)
    skipped: tuple[str, ...]  # "line L: why" for each line the parser's recovery had to leave out


@n.made_in_c
class Reference(NamedTuple):
    """A tuple, as Symbol is: a graph makes one for every name and declaration."""

    target: str  # a symbol id, or std.NAME
    file: str
    range: Range
    kind: str  # calls, constructs, uses
    source: str | None
    edge: bool = True  # False: the name is part of a reference already counted (the `Size` of `Size.Small`)


def group_of(path: str, module: str) -> str:
    folder, slash, name = path.rpartition("/")
    if name in ("", ".") or "//" in path or "/./" in path or path.startswith("./"):  # a path pathlib spells otherwise
        file = Path(path)
        return f"{file.parent / _stem(file.name)}\0{module}"
    return f"{folder}{slash}{_stem(name)}\0{module}"  # as pathlib would, without its objects (a twentieth of indexing a file)


def _stem(name: str) -> str:
    return name[: -len(TEST_SUFFIX)] if name.endswith(TEST_SUFFIX) else name.removesuffix(".kite")


def read_file(path: str, source_text: str, module: n.Module | None, parsed_lines: tuple[str, ...],
              skipped: tuple[str, ...] = ()) -> FileIndex:
    """One file's symbols, names and locals. `skipped`: "line L: why" for what recovery left out (KT000)."""
    if module is None:
        return FileIndex(path, "", group_of(path, ""), (), (), (), skipped or ("the file does not parse",))
    return _Reader(path, source_text, module, parsed_lines).read(skipped)


class _Reader:
    def __init__(self, path: str, text: str, module: n.Module, parsed_lines: tuple[str, ...]):
        self.path, self.module = path, module
        self.spans = Spans(text, parsed_lines)
        self.symbols: list[Symbol] = []
        self.names: list[Name] = []
        # Per line (1-based), how far the file's columns are from the parsed text's: None where recovery rewrote it.
        lines = range(1, len(parsed_lines) + 1)
        self.shift: list[int | None] = [None, *([0] * len(lines) if self.spans.as_written else map(self.spans.shift, lines))]

    def at(self, line: int, column: int, end_line: int, end_column: int) -> Range | None:
        shift = self.shift
        first = shift[line] if 0 < line < len(shift) else None
        last = shift[end_line] if 0 < end_line < len(shift) else None
        if first is None or last is None:
            return None
        return Range(line, column + first, end_line, end_column + last)

    def named(self, line: int, column: int, name: str) -> Range | None:
        """`at` for a name, which is on one line: the one a graph asks most (about fifty a file)."""
        shift = self.shift
        first = shift[line] if 0 < line < len(shift) else None
        return None if first is None else Range(line, column + first, line, column + len(name) + first)

    def declare(self, id_: str, name: str, kind: str, node, name_range: Range | None, container=None) -> None:
        span = self.spans.span(node)  # None when recovery rewrote a line of it: then as far as its nodes tell, from its keyword
        whole = Range(*span) if span is not None else self.at(*self.spans.start(node), node.end_line, node.end_column) or name_range
        if whole is not None and name_range is not None:
            self.symbols.append(Symbol(id_, name, kind, self.path, whole, name_range, container, node))

    def read(self, skipped: tuple[str, ...]) -> FileIndex:
        module = self.module
        prefix = module.name
        items = [item for item in module.items if not getattr(item, "name", "").startswith(RECOVERED)]
        for item in items:
            if isinstance(item, n.TestDecl):
                self.declare(f"{prefix}.test:{item.description}", item.description, "test", item, self._title(item))
            elif isinstance(item, (n.FnDecl, n.Let, n.TypeDecl, n.EnumDecl)):
                item_id = f"{prefix}.{item.name}"
                self.declare(item_id, item.name, ITEM_KINDS[type(item)], item, self.named(item.line, item.column, item.name))
                parts, kind = ITEM_PARTS.get(type(item), ("", ""))
                for part in getattr(item, parts) if parts else ():  # a record's fields, an enum's members
                    if not part.name.startswith(RECOVERED):
                        where = self.named(part.line, part.column, part.name)
                        self.declare(f"{item_id}.{part.name}", part.name, kind, part, where, item_id)
        locals_ = self._names(items)
        return FileIndex(self.path, prefix, group_of(self.path, prefix), tuple(self.symbols), tuple(self.names), locals_, skipped)

    def _title(self, test: n.TestDecl) -> Range | None:
        """The test's title as written: the string after `test` on its first line."""
        line = self.spans.source_lines[test.line - 1] if test.line <= len(self.spans.source_lines) else ""
        start = line.find('"')
        end = line.rfind('"')
        return Range(test.line, start + 1, test.line, end + 2) if 0 <= start < end else None

    def _names(self, items) -> tuple[Local, ...]:
        facts = gather(n.Module(self.module.line, self.module.column, self.module.name, tuple(items)), every_type=False)
        declared = {(b.line, b.column): b for b in facts.bindings}
        uses: dict[tuple[int, int], list[Range]] = defaultdict(list)
        called: set[int] = set()
        qualifiers = {id(member.target) for member, _ in facts.members}  # every Member: the analyzer walks each expression
        type_names: list[tuple[n.TypeRef, str | None]] = []
        sources = [(item, self._source_of(item)) for item in items]
        children, type_ref, call, call_of, named_type = n.children, n.TypeRef, n.Call, called.add, type_names.append  # the hot loop's
        for item, source in sources:  # one walk: what is called, the types named
            parts = [(f.type, f"{source}.{f.name}") for f in item.fields] if isinstance(item, n.TypeDecl) else [(item, source)]
            for part, part_source in parts:
                pending: list = [part]
                pop, extend = pending.pop, pending.extend
                while pending:  # as n.descendants, in source order
                    node = pop()
                    kind = type(node)
                    if kind in LEAVES:
                        continue  # a name or a literal (the most): nothing inside
                    if kind is type_ref:
                        named_type((node, part_source))
                        if not node.args and node.returns is None:
                            continue  # most types (`int`, `Item`): nothing inside
                    elif kind is call:
                        call_of(id(node.func))
                    extend(reversed(children(node)))
        starts = [(item.line, item.column) for item, _ in sources]

        def source_at(node) -> str | None:
            """The item a node is written in: the last one starting at or before it."""
            index = bisect.bisect_right(starts, (node.line, node.column)) - 1
            return sources[index][1] if index >= 0 else None

        named, add_name = self.named, self.names.append
        for name, binding in facts.resolved:
            where = named(name.line, name.column, name.name)
            if where is None:
                continue
            if binding is not None and binding.kind != "const":
                uses[(binding.line, binding.column)].append(where)
                continue
            if binding is not None and name.name in FUNCTIONS and id(name) in called:
                binding = None  # a call of a stdlib name is always the standard library's
            role = "call" if id(name) in called else ("qualifier" if id(name) in qualifiers else "value")
            add_name(Name(name.name, where, role, source_at(name)))
        for member, owner in facts.members:
            where = named(member.end_line, member.end_column - len(member.name), member.name)
            target = member.target
            via = named(target.line, target.column, target.name) if isinstance(target, n.Name) else None
            if where is not None:
                add_name(Name(member.name, where, "member", source_at(member), owner.name if owner is not None else None, via))
        for node, part_source in type_names:
            if (where := named(node.line, node.column, node.name)) is not None:
                add_name(Name(node.name, where, "type", part_source))
        locals_ = []
        lines = [item.line for item in items]
        for key, binding in declared.items():
            if binding.kind == "const":
                continue
            where = named(binding.line, binding.column, binding.name)
            # The item it is declared in: items do not share lines, so the last one starting at or before it.
            index = bisect.bisect_right(lines, binding.line) - 1
            item = items[index] if index >= 0 and binding.line <= items[index].end_line else None
            scope = self.at(item.line, 1, item.end_line, item.end_column) if item is not None else None
            if where is not None and scope is not None:
                locals_.append(Local(binding.name, binding.kind, where, tuple(uses.get(key, ())), scope))
        return tuple(locals_)

    def _source_of(self, item) -> str | None:
        if isinstance(item, n.TestDecl):
            return f"{self.module.name}.test:{item.description}"
        name = getattr(item, "name", None)
        return f"{self.module.name}.{name}" if name and not isinstance(item, n.Use) else None


Edge = tuple[str, str, str]  # (from, to, kind)


class KnownReferences(Protocol):
    """Where a module's resolved references may be kept (kite.graph.cache): `references` gives each of the module's
    files' references and edges when they were kept for exactly these files' indexes, else None; `keep` keeps them."""

    def references(self, paths: list[str]) -> dict[str, tuple[Sequence[Reference], Sequence[Edge]]] | None: ...

    def keep(self, paths: list[str], resolved: dict[str, tuple[Sequence[Reference], Sequence[Edge]]]) -> None: ...


class Workspace:
    """Files' indexes, their references resolved within each module. `update` and `remove` keep it current. `known`:
    where modules' references were kept, so that a module whose files are all unchanged is not resolved again."""

    def __init__(self, files=(), known: KnownReferences | None = None):
        self.files: dict[str, FileIndex] = {}
        self._references: dict[str, Sequence[Reference]] = {}
        self._edges: dict[str, Sequence[Edge]] = {}  # each file's edges, each once, in the order its code gives them
        self._groups: dict[str, dict[str, None]] = defaultdict(dict)  # group -> its files' paths, in order
        for file in files:
            self.files[file.path] = file
            self._groups[file.group][file.path] = None
        self._resolve(set(self._groups), known)

    def update(self, file: FileIndex) -> None:
        old = self.files.get(file.path)
        if old is not None:
            self._groups[old.group].pop(old.path, None)
        self.files[file.path] = file
        self._groups[file.group][file.path] = None
        self._resolve({file.group} | ({old.group} if old is not None else set()))

    def remove(self, path: str) -> None:
        old = self.files.pop(path, None)
        self._references.pop(path, None)
        self._edges.pop(path, None)
        if old is not None:
            self._groups[old.group].pop(path, None)
            self._resolve({old.group})

    # ---- what is declared

    @property
    def symbols(self) -> list[Symbol]:
        return [symbol for file in self.files.values() for symbol in file.symbols]

    def module_symbols(self, group: str) -> dict[str, Symbol]:
        """The module's symbols by id; a name declared twice (KT015) means its first declaration."""
        found: dict[str, Symbol] = {}
        for path in self._groups.get(group, ()):
            for symbol in self.files[path].symbols:
                found.setdefault(symbol.id, symbol)
        return found

    def lookup(self, name: str) -> list[Symbol]:
        """A plain name (`total`) or an id (`Shop.total`, `Shop.Item.price`): every symbol it names."""
        by_id = [s for s in self.symbols if s.id == name]
        return by_id or [s for s in self.symbols if s.name == name]

    # ---- what refers to what

    @property
    def references(self) -> list[Reference]:
        return [ref for path in self.files for ref in self._references.get(path, ())]

    def references_in(self, path: str) -> Sequence[Reference]:
        """The file's references, declarations included, in order."""
        return self._references.get(path, ())

    def references_of(self, target: str, group: str) -> list[Reference]:
        """Every reference to the symbol in the files of its module, declarations included, by file and position."""
        return [ref for path in sorted(self._groups.get(group, ())) for ref in self._references.get(path, ()) if ref.target == target]

    def edges(self) -> list[Edge]:
        """(from, to, kind), each once, in the order the files and their code give them; a test's direct calls are
        `tests` edges as well."""
        found: dict[Edge, None] = {}
        kinds = {s.id: s.kind for s in self.symbols}
        for path in self.files:
            for edge in self._edges.get(path, ()):
                found[edge] = None
                source, target, kind = edge
                if kind == "calls" and kinds.get(source) == "test" and not target.startswith(STD):
                    found[(source, target, "tests")] = None
        return list(found)

    def _resolve(self, groups: set[str], known: KnownReferences | None = None) -> None:
        for group in groups:
            paths = list(self._groups.get(group, ()))
            resolved = known.references(paths) if known is not None else None
            if resolved is None:
                table = self.module_symbols(group)
                resolved = {path: _with_edges(tuple(_resolve_file(self.files[path], table))) for path in paths}
                if known is not None:
                    known.keep(paths, resolved)
            for path, (references, edges) in resolved.items():
                self._references[path], self._edges[path] = references, edges


def _with_edges(references: tuple[Reference, ...]) -> tuple[tuple[Reference, ...], tuple[Edge, ...]]:
    """A file's references and the edges they make (a recursive function calls itself: an edge like any other)."""
    return references, tuple(dict.fromkeys((r.source, r.target, r.kind) for r in references if r.edge and r.source is not None))


def _resolve_file(file: FileIndex, table: dict[str, Symbol]) -> list[Reference]:
    prefix = file.module
    by_name = {s.name: s for s in table.values() if s.kind in ("fn", "const", "type", "enum")}
    fields: dict[str, list[Symbol]] = defaultdict(list)
    for symbol in table.values():
        if symbol.kind in ("field", "member"):
            fields[symbol.name].append(symbol)
    out = []
    for symbol in file.symbols:
        out.append(Reference(symbol.id, file.path, symbol.name_range, "declares", symbol.id, edge=False))
    enum_reads = set()  # the `Size` of `Size.Small`: a reference to the enum, no edge of its own beside the member's
    for name in file.names:
        if name.role != "member":
            continue
        member: Symbol | None = table.get(f"{prefix}.{name.owner}.{name.name}") if name.owner is not None else None
        if member is None and name.via is not None and name.owner is None:
            enum = next((s for s in file.names if s.range == name.via), None)
            member = table.get(f"{prefix}.{enum.name}.{name.name}") if enum is not None and enum.role == "qualifier" else None
        if member is None and name.owner is None:
            candidates = fields.get(name.name, [])
            member = candidates[0] if len(candidates) == 1 and candidates[0].kind == "field" else None
        if member is not None:
            out.append(Reference(member.id, file.path, name.range, "uses", name.source))
            if member.kind == "member" and name.via is not None:
                enum_reads.add(name.via)
    for name in file.names:
        if name.role == "member":
            continue
        if name.role == "call" and name.name in FUNCTIONS:
            out.append(Reference(STD + name.name, file.path, name.range, "calls", name.source))
            continue
        found = by_name.get(name.name)
        if found is None:
            if name.name in FUNCTIONS and name.role == "value":
                out.append(Reference(STD + name.name, file.path, name.range, "uses", name.source))
            continue
        if name.role == "call":
            is_type = constructs(name.name, is_value=found.kind == "const", functions={name.name} if found.kind == "fn" else (),
                                 types={name.name} if found.kind == "type" else ())
            kind = "constructs" if is_type else "calls"
        else:
            kind = "uses"
        edge = name.range not in enum_reads
        out.append(Reference(found.id, file.path, name.range, kind, name.source, edge))
    return sorted(out, key=attrgetter("range"))
