"""What `kite lsp` answers, as plain functions over a file's text and its AST: ranges, hover, symbols, completion,
quick fixes and formatting (what needs the workspace's other files is kite.lsp.workspace). No protocol here
(kite.lsp.server adapts these to LSP); positions are 0-based lines and code-point columns, which the server turns
into the client's UTF-16 units.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kite.analyze import Binding, Facts, gather
from kite.diagnostics import Diagnostic, Fix, Layer
from kite.search.spans import Spans
from kite.source import SourceFile
from kite.standard_library import FUNCTIONS
from kite.syntax import nodes as n
from kite.syntax.frontend import read_syntax
from kite.syntax.nodes import type_text
from kite.syntax.parser import kite_keywords

RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The token a point diagnostic starts at: a word, `else if`, a run of operator characters, or one character.
TOKEN = re.compile(r"else[ \t]+if\b|[A-Za-z_][A-Za-z0-9_]*|[0-9][0-9.]*|&&|\|\||\+\+|--|//|[=!<>]=|.")


@dataclass(frozen=True)
class EditorRange:
    """A range as the editor counts it: 0-based lines, code-point columns, the end column exclusive (nodes.Span is
    the file's own, 1-based)."""

    line: int
    column: int
    end_line: int
    end_column: int


def diagnostic_span(d: Diagnostic, lines: list[str]) -> EditorRange:
    """Where a diagnostic is in the editor: its own range when it has one, else the token at its column, else the
    line's code. Every layer's columns are the Kite file's."""
    row = min(max(d.line, 1), max(len(lines), 1)) - 1
    text = lines[row] if row < len(lines) else ""
    if d.column <= 0:
        start = len(text) - len(text.lstrip())
        return EditorRange(row, start, row, max(len(text.rstrip()), start))
    start = min(d.column - 1, len(text))
    if (d.end_line, d.end_column) > (d.line, d.column):
        end_row = min(d.end_line, max(len(lines), 1)) - 1
        end_text = lines[end_row] if end_row < len(lines) else ""
        return EditorRange(row, start, end_row, min(d.end_column - 1, len(end_text)))
    token = TOKEN.match(text, start)
    return EditorRange(row, start, row, token.end() if token else start)


def rule_link(code: str) -> str | None:
    """Where a diagnostic's rule is explained: Kite's in docs/rules.md, C#'s and the analyzers' on Microsoft Learn."""
    if code.startswith("KT"):
        return f"{RULES_DOC.as_uri()}#{code.lower()}" if RULES_DOC.exists() else None
    if code.startswith("CS"):
        return f"https://learn.microsoft.com/dotnet/csharp/misc/{code.lower()}"
    if code.startswith("CA"):
        return f"https://learn.microsoft.com/dotnet/fundamentals/code-analysis/quality-rules/{code.lower()}"
    return None


SOURCES = {Layer.KITE: "kite", Layer.COMPILER: "csharp", Layer.ANALYZERS: "analyzers"}


# ---- the program's names


@dataclass(frozen=True)
class Parsed:
    """One version of a file: its lines, its module (recovered where it does not parse) and its facts."""

    lines: list[str]
    module: n.Module | None
    facts: Facts | None = None
    shared: tuple = ()  # the module's other files' items: a test file's hover and signatures show the program's
    spans: Spans | None = None  # where nodes are in the file, with the brackets the parser keeps no node for

    @classmethod
    def of(cls, path: str, text: str, shared=()) -> Parsed:
        """`shared`: the functions, records, enums and constants of the module's other files (kite.analyze.gather)."""
        syntax = read_syntax(SourceFile(path, text)) if text.strip() else None
        module = syntax.module if syntax is not None else None
        spans = Spans(text, syntax.parsed_lines) if syntax is not None else None
        return cls(text.split("\n"), module, gather(module, shared) if module is not None else None, tuple(shared), spans)

    def expression_at(self, line: int, column: int) -> tuple[n.Node, n.TypeRef | None] | None:
        """The innermost expression at the cursor with its type (kite.analyze's type pass); on a called name, the
        call. One that ends just before the cursor counts only where none holds the character at it: on the `[` of
        `xs[0]` the index, not `xs`."""
        typed = self.facts.types if self.facts is not None else ()
        best = None
        for e, t in typed:
            if (e.line - 1, e.column - 1) <= (line, column) <= (e.end_line - 1, e.end_column - 1):
                past = (line, column) == (e.end_line - 1, e.end_column - 1)
                size = (past, e.end_line - e.line, e.end_column - e.column if e.end_line == e.line else 10**6)
                if best is None or size < best[0]:
                    best = (size, e, t)
        if best is None:
            return None
        _, e, t = best
        call = next(((c, ct) for c, ct in typed if isinstance(c, n.Call) and c.func is e), None)
        return call or (e, t)

    def text_of(self, node: n.Node) -> str:
        """The expression as written, on one line (`base * (1.0 + rate)` with the `)` no node ends at)."""
        spans = self.spans
        span = spans.span(node) if spans is not None else None
        if spans is not None and span is not None:
            return " ".join(part.strip() for part in spans.text(span).split("\n"))
        if node.line == node.end_line:
            return self.lines[node.line - 1][node.column - 1:node.end_column - 1]
        return " ".join([self.lines[node.line - 1][node.column - 1:], *(text.strip() for text in self.lines[node.line:node.end_line - 1]),
                         self.lines[node.end_line - 1][:node.end_column - 1].strip()])

    def word_at(self, line: int, column: int) -> tuple[str, int] | None:
        """The name under (or just before) the cursor, and the column it starts at."""
        text = self.lines[line] if line < len(self.lines) else ""
        for match in WORD.finditer(text):
            if match.start() <= column <= match.end():
                return match.group(), match.start()
        return None

    def enclosing_item(self, line: int):
        """The top-level item the 0-based line is in (the last one starting at or before it)."""
        items = [item for item in self.module.items if item.line - 1 <= line] if self.module else []
        return items[-1] if items else None

    def bindings_in_scope(self, line: int, column: int) -> dict[str, Binding]:
        """Names declared before the position in its item, over the module's constants; the nearest wins.
        Approximate on purpose: the item's locals declared earlier, even in a block already closed."""
        if self.module is None:
            return {}
        item = self.enclosing_item(line)
        following = [other.line for other in self.module.items if item is not None and other.line > item.line]
        end = min(following, default=10**9)
        found: dict[str, Binding] = {}
        for binding in gather(self.module).bindings:
            if binding.kind == "const":
                found.setdefault(binding.name, binding)
            elif item is not None and item.line <= binding.line < end and (binding.line - 1, binding.column - 1) <= (line, column):
                found[binding.name] = binding
        return found

    @property
    def functions(self) -> dict[str, n.FnDecl]:
        """The module's functions, this file's over its other files'."""
        return {item.name: item for item in (*self.shared, *(self.module.items if self.module else ())) if isinstance(item, n.FnDecl)}

    @property
    def types(self) -> dict[str, n.TypeDecl | n.EnumDecl]:
        return {item.name: item for item in (*self.shared, *(self.module.items if self.module else ()))
                if isinstance(item, (n.TypeDecl, n.EnumDecl))}


def binding_type(binding: Binding) -> str:
    """What kite.analyze's type pass says the local or constant is."""
    return type_text(binding.type)


def fn_signature(fn: n.FnDecl) -> str:
    params = ", ".join(f"{p.name}: {type_text(p.type)}" for p in fn.params)
    return f"fn {fn.name}({params})" + (f" -> {type_text(fn.returns)}" if fn.returns else "")


def type_declaration(item) -> str:
    if isinstance(item, n.TypeDecl):
        return f"type {item.name}\n" + "\n".join(f"    {f.name}: {type_text(f.type)}" for f in item.fields)
    return f"enum {item.name}\n" + "\n".join(f"    {m.name}" for m in item.members)


def name_at(parsed: Parsed, line: int, column: int) -> tuple[str | None, Binding | None]:
    """The name under the cursor and the local or constant it means there (None for a function, type or stdlib name)."""
    found = parsed.word_at(line, column)
    if found is None:
        return None, None
    word, start = found
    return word, parsed.bindings_in_scope(line, start).get(word)


def hover(parsed: Parsed, line: int, column: int) -> str | None:
    """Markdown: the Kite type of the expression under the cursor (a call's, on its function's name), then what a
    name is: a local's kind, a function's signature, a type's fields, a stdlib function's signature and doc."""
    word, binding = name_at(parsed, line, column)
    found = parsed.expression_at(line, column)
    if found is not None and isinstance(found[0], n.Member):
        word = binding = None  # the word is the field's or member's, never a local or function of that name (`tag.name`)
    typed = None
    if found is not None and not (isinstance(found[0], n.Name) and binding is not None):
        e, t = found
        typed = f"```kite\n{parsed.text_of(e)}: {type_text(t)}\n```"
    # A local read here has the type the pass gives this read: without `?` where a none-test narrowed it.
    read = found[1] if found is not None and isinstance(found[0], n.Name) and found[0].name == word else None
    about = _name_hover(parsed, word, binding, read) if word is not None else None
    return "\n".join(part for part in (typed, about) if part) or None


def _name_hover(parsed: Parsed, word: str, binding: Binding | None, read: n.TypeRef | None = None) -> str | None:
    if binding is not None:
        kind = {"mut": "let mut", "param": "parameter", "loop": "for", "lambda": "lambda parameter", "const": "let (constant)"}.get(binding.kind, binding.kind)
        return f"```kite\n{word}: {type_text(read) if read is not None else binding_type(binding)}\n```\n{kind}"
    if word in parsed.functions:
        return f"```kite\n{fn_signature(parsed.functions[word])}\n```"
    if word in parsed.types:
        return f"```kite\n{type_declaration(parsed.types[word])}\n```"
    if word in FUNCTIONS:
        std = FUNCTIONS[word]
        return f"```kite\n{std.signature}\n```\n{std.doc} (standard library)"
    return None


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str  # function, struct, enum, constant, test, field, member
    span: EditorRange
    children: tuple[Symbol, ...] = ()


def symbols(parsed: Parsed) -> list[Symbol]:
    """The module's items, each spanning up to the next; a record's fields and an enum's members inside it."""
    if parsed.module is None:
        return []
    items = list(parsed.module.items)
    out = []
    for index, item in enumerate(items):
        last = (items[index + 1].line - 2) if index + 1 < len(items) else len(parsed.lines) - 1
        while last > item.line - 1 and not parsed.lines[last].strip():
            last -= 1
        span = EditorRange(item.line - 1, item.column - 1, last, len(parsed.lines[last]))
        point = lambda node, name: EditorRange(node.line - 1, node.column - 1, node.line - 1, node.column - 1 + len(name))  # noqa: E731
        if isinstance(item, n.FnDecl):
            out.append(Symbol(item.name, "function", span))
        elif isinstance(item, n.TypeDecl):
            out.append(Symbol(item.name, "struct", span, tuple(Symbol(f.name, "field", point(f, f.name)) for f in item.fields)))
        elif isinstance(item, n.EnumDecl):
            out.append(Symbol(item.name, "enum", span, tuple(Symbol(m.name, "member", point(m, m.name)) for m in item.members)))
        elif isinstance(item, n.Let):
            out.append(Symbol(item.name, "constant", span))
        elif isinstance(item, n.TestDecl):
            out.append(Symbol(f'test "{item.description}"', "test", span))
    return out


@dataclass(frozen=True)
class Completion:
    label: str
    kind: str  # variable, function, struct, enum, field, member, keyword
    detail: str


def completions(parsed: Parsed, line: int, column: int) -> list[Completion]:
    """After `name.`: a record's fields or an enum's members. Elsewhere: the names in scope, the module's functions
    and types, the standard library and Kite's keywords."""
    text = parsed.lines[line][:column] if line < len(parsed.lines) else ""
    dotted = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\.[A-Za-z0-9_]*$", text)
    if dotted:
        target = dotted.group(1)
        binding = parsed.bindings_in_scope(line, dotted.start(1)).get(target)
        declared = parsed.types.get(binding.type.name if binding is not None and binding.type is not None else target)
        if isinstance(declared, n.TypeDecl) and binding is not None:
            return [Completion(f.name, "field", type_text(f.type)) for f in declared.fields]
        if isinstance(declared, n.EnumDecl) and binding is None:
            return [Completion(m.name, "member", declared.name) for m in declared.members]
        return []
    found = [Completion(name, "variable", binding_type(b)) for name, b in parsed.bindings_in_scope(line, column).items()]
    found += [Completion(name, "function", fn_signature(fn)) for name, fn in parsed.functions.items()]
    found += [Completion(name, "struct" if isinstance(t, n.TypeDecl) else "enum", name) for name, t in parsed.types.items()]
    found += [Completion(name, "function", std.signature) for name, std in FUNCTIONS.items()]
    found += [Completion(word, "keyword", "") for word in sorted(kite_keywords())]
    return found


# ---- quick fixes and formatting: edits as the editor counts them


def fix_edits(fix: Fix) -> list[tuple[EditorRange, str]]:
    """A diagnostic's fix (kite.diagnostics.Fix, made by its rule) as editor ranges."""
    return [(EditorRange(e.line - 1, e.column - 1, e.end_line - 1, e.end_column - 1), e.text) for e in fix.edits]


def formatting_edits(path: str, text: str, rows: range | None = None) -> list[tuple[EditorRange, str]]:
    """The edits that give `text` (LF or CRLF line ends) Kite's layout (kite.format): one per logical line that
    changes (with the blank lines and comments before it), and with `rows` (0-based lines) only those that touch
    them. Raises kite.format.NotKite."""
    from kite.format import format_pieces

    end = "\r\n" if "\r\n" in text else "\n"
    lines = text.replace("\r\n", "\n").split("\n")
    edits = []
    for first, last, piece in format_pieces(text.replace("\r\n", "\n"), path):
        if rows is not None and not (first < rows.stop and rows.start < max(last, first + 1)):
            continue
        new = "".join(line + end for line in piece)
        old = "".join(line + end for line in lines[first:last]) if last < len(lines) else end.join(lines[first:last])
        if new != old:
            ending = (last, 0) if last < len(lines) else (len(lines) - 1, len(lines[-1]))
            edits.append((EditorRange(first, 0, *ending), new))
    return edits


# ---- types where they are not written, signatures while a call is typed


def inlay_hints(parsed: Parsed, rows: range) -> list[tuple[int, int, str]]:
    """(line, column, label): after each `let` name without a declared type in the rows, the type the pass gives."""
    if parsed.module is None or parsed.facts is None:
        return []
    typed = {(b.line, b.column): b.type for b in parsed.facts.bindings}
    found = []
    for node in n.descendants(parsed.module):
        if isinstance(node, n.Let) and node.type is None and node.line - 1 in rows and (node.line, node.column) in typed:
            found.append((node.line - 1, node.column - 1 + len(node.name), f": {type_text(typed[(node.line, node.column)])}"))
    return found


@dataclass(frozen=True)
class SignatureHelp:
    signatures: tuple[tuple[str, tuple[str, ...], str], ...]  # (label, its parameters' labels, doc) per overload
    active_signature: int
    active_parameter: int


def open_call(lines: list[str], line: int, column: int) -> tuple[str, int] | None:
    """The function whose call the cursor is inside (read from the text: code being typed does not parse yet) and
    how many of its arguments come before the cursor."""
    text = "\n".join([*lines[:line], lines[line][:column] if line < len(lines) else ""])
    depth, commas, quote = 0, 0, None
    for index in range(len(text) - 1, -1, -1):
        char = text[index]
        if quote:
            if char == quote:
                quote = None
            continue
        if char in "\"'":
            quote = char
        elif char in ")]":
            depth += 1
        elif char in "([":
            if depth == 0:
                if char == "[":
                    return None
                name = WORD_BEFORE.search(text, 0, index)
                return (name.group(1), commas) if name else None
            depth -= 1
        elif char == "," and depth == 0:
            commas += 1
        elif char == "\n" and depth == 0 and not text[:index].rstrip().endswith((",", "(")):
            return None
    return None


WORD_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*$")


def signature_help(parsed: Parsed, line: int, column: int, functions: dict[str, n.FnDecl | n.TypeDecl]) -> SignatureHelp | None:
    """The signature of the call being typed, with the parameter the cursor is at: the standard library's (from its
    one table), or the module's (`functions`: its functions and records, from every file of it), a record's
    constructor taking its fields."""
    found = open_call(parsed.lines, line, column)
    if found is None:
        return None
    name, argument = found
    if name in FUNCTIONS:  # a call of a stdlib name is the standard library's, whatever the program declares
        std = FUNCTIONS[name]
        overloads = tuple((text, tuple(params), std.doc) for text, params in std.overloads)
    elif isinstance(declared := functions.get(name), n.FnDecl):
        overloads = ((fn_signature(declared), tuple(f"{p.name}: {type_text(p.type)}" for p in declared.params), ""),)
    elif isinstance(declared, n.TypeDecl):
        fields = tuple(f"{f.name}: {type_text(f.type)}" for f in declared.fields)
        overloads = ((f"{name}({', '.join(fields)})", fields, f"makes a {name}"),)
    else:
        return None
    active = next((index for index, (_, params, _) in enumerate(overloads) if argument < len(params)), len(overloads) - 1)
    return SignatureHelp(overloads, active, argument)


FOLDED = (n.FnDecl, n.TestDecl, n.TypeDecl, n.EnumDecl, n.If, n.While, n.For)


def folding_ranges(parsed: Parsed) -> list[tuple[int, int]]:
    """(first, last) 0-based lines of each declaration and block that spans more than one line."""
    if parsed.module is None:
        return []
    found = {(node.line - 1, node.end_line - 1) for node in n.descendants(parsed.module)
             if isinstance(node, FOLDED) and node.end_line > node.line}
    return sorted(found)
