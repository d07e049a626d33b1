"""Source text to AST: leak scan (KT004), layout (KT000), then the parser with line-level recovery.

A line that does not parse is reported once (KT000), replaced by a neutral line, and its top-level item is
parsed again, so one mistake neither hides the rest of the file nor cascades into more errors.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr

from kite.diagnostics import Diagnostic, Edit, Fix
from kite.source import SourceFile
from kite.syntax import layout as layout_pass, leak_fixes, leaks, nodes as n
from kite.syntax.foreign import EXPRESSION_HABITS, KITE_SPELLINGS, NOT_KITE_STATEMENTS, statement_message
from kite.syntax.nodes import Module, Span
from kite.syntax.parser import KiteSyntaxError, lark_parser, parse_module
from kite.syntax.rules import CSHARP_LEAK, SYNTAX, leak_message

MAX_SYNTAX_ERRORS = 20
# Characters that recovery may re-parse beyond the file's own size: every real program's errors fit in it.
RECOVERY_ALLOWANCE = 256 * 1024
ITEM_KEYWORDS = {"module", "use", "let", "type", "enum", "fn", "test"}
EXPRESSION_STARTS = {"NAME", "INT", "DEC", "STRING", "FSTRING", "CHAR", "TRUE", "FALSE", "NONE", "LSQB", "LPAR", "MINUS", "NOT", "LIST", "SET", "MAP", "FN"}
TERMINAL_WORDS = {
    "NAME": "a name", "INT": "a number", "DEC": "a number", "STRING": "a string", "FSTRING": "an f-string",
    "CHAR": "a char", "_NL": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block",
    "$END": "end of file", "COMPARE": "a comparison", "ASSIGN_OP": "'='", "MUL_OP": "'*', '/' or '%'",
}


@dataclass(frozen=True)
class SyntaxResult:
    module: Module | None
    diagnostics: tuple[Diagnostic, ...]  # KT000 and KT004
    leaked_lines: frozenset[int]  # lines with KT004: no KT000 or compiler diagnostic is shown there
    replaced_lines: frozenset[int]  # lines recovery replaced: nothing else is reported there
    parsed_lines: tuple[str, ...] = ()  # the text the parser read (layout made consistent, recovery's lines in): positions are its

    @property
    def complete(self) -> bool:
        """Every line was understood as written (after leak recovery): the C# layer can run."""
        return self.module is not None and not self.replaced_lines


class ItemCache:
    """Each top-level item's parse as the latest read of its file used it, keyed by its text and first line: an
    editor's next version of the file parses again only the items an edit changed (or moved). Bounded by the files
    read: a read keeps only what it used. For one long-lived reader (the language server); a batch needs none."""

    def __init__(self) -> None:
        self._files: dict[str, dict[tuple[int, str], Module]] = {}
        self.parsed = 0  # items parsed rather than found, since made: what a test of the cache counts

    def parser_for(self, file: str) -> Callable[[str, int], Module]:
        known = self._files.get(file, {})
        used: dict[tuple[int, str], Module] = {}
        self._files[file] = used

        def parse(text: str, first_line: int) -> Module:
            key = (first_line, text)
            module = used.get(key) or known.get(key)
            if module is None:
                module = parse_module(text, first_line)
                self.parsed += 1
            used[key] = module
            return module

        return parse


def read_syntax(source: SourceFile, items: ItemCache | None = None) -> SyntaxResult:
    """`items`: where the parses of this file's items are kept between reads (the same result, less parsing)."""
    file = source.path
    scan = leaks.scan(source.text)
    diagnostics: list[Diagnostic] = []
    leaked = scan.leaked_lines
    layout = layout_pass.check(scan.recovered_text, scan.declaration_lines)
    replaced: set[int] = set()
    raw_lines = scan.recovered_text.split("\n")
    for line, column, message in layout.problems:
        if line not in leaked:
            diagnostics.append(SYNTAX.on(file, _layout_span(raw_lines[line - 1], line, column), message))
        if message.startswith("expected an indented block"):
            replaced.add(line)
    lines = list(layout.lines)
    if not any(text.strip() and not text.strip().startswith("#") for text in lines):
        diagnostics.append(SYNTAX.at(file, 1, 1, "empty file: expected 'module Name'"))
        return SyntaxResult(None, (*_leaks_found(file, source.text, scan, None), *diagnostics), leaked, frozenset())
    module = _parse_items(file, lines, raw_lines, layout, diagnostics, leaked, replaced, items.parser_for(file) if items else None)
    leaks_found = _leaks_found(file, source.text, scan, module)
    if module is not None and not module.name:
        first = next((i + 1 for i, text in enumerate(lines) if text.strip() and not text.strip().startswith("#")), 1)
        diagnostics.append(SYNTAX.at(file, first, 1, "expected 'module Name' before anything else"))
        module = None
    return SyntaxResult(module, (*leaks_found, *diagnostics), leaked, frozenset(replaced), tuple(lines))


# Longer lines get KT004 without a fix: each fix reads its line, so 100,000 minuses on one line took minutes
# outside any budget.
FIXED_LINE_CHARS = 400


def _leaks_found(file: str, text: str, scan: leaks.LeakScan, module: Module | None) -> list[Diagnostic]:
    """KT004 for each leaked token, with its fix; a `var` becomes `let mut` only where the variable is assigned again
    (the recovered module tells: it read `var` as `let mut`)."""
    if not scan.leaks:  # most files: no need to split the text
        return []
    lines = text.split("\n")
    found = []
    for leak in scan.leaks:
        line = lines[leak.line - 1]
        assigned = leak.column > 1 and _assigned_again(module, leak.line) if leak.token == "var" else True
        fix = leak_fixes.fix(leak, line, assigned_again=assigned is not False) if len(line) <= FIXED_LINE_CHARS else None
        found.append(CSHARP_LEAK.on(file, leak, leak_message(leak.token), fix))
    return found


def _assigned_again(module: Module | None, line: int) -> bool | None:
    """Whether the local that the `let` on `line` declares is assigned after it, in its function or test; None when
    no such `let` was read (the line did not parse). A constant (at the top level) never is."""
    for item in module.items if module is not None else ():
        if isinstance(item, (n.FnDecl, n.TestDecl)) and item.line <= line <= item.end_line:
            statements = list(n.walk_statements(item.body))
            declared = next((s for s in statements if isinstance(s, n.Let) and s.line == line), None)
            if declared is None:
                return None
            return any(
                isinstance(s, n.Assign) and isinstance(s.target, n.Name) and s.target.name == declared.name
                and (s.line, s.column) > (declared.line, declared.column)
                for s in statements
            )
    return None


def _parse_items(
    file: str, lines: list[str], raw_lines: list[str], layout: layout_pass.Layout, diagnostics: list[Diagnostic],
    leaked: frozenset[int], replaced: set[int], parse_item: Callable[[str, int], Module] | None = None,
) -> Module | None:
    """Each top-level item parsed on its own, so a syntax error re-parses only its item, and all re-parsing
    together stays within a budget proportional to the file: recovery costs linear time whatever the input.
    A file that parses whole (most do) is parsed in one go: the same AST, without each item's own parse.
    `raw_lines`: as written (after leak recovery); a fix is kept only where the layout pass left the line so.
    `parse_item`: an ItemCache's parser of this file; with one, every item is parsed (or found) on its own."""
    if parse_item is None:
        try:
            return parse_module("\n".join(lines))
        except (UnexpectedInput, KiteSyntaxError):
            pass
        parse_item = parse_module
    budget = RECOVERY_ALLOWANCE + sum(map(len, lines))
    failures = 0
    parts: list[Module] = []
    for index, (first, last) in enumerate(_item_lines(layout, len(lines))):
        # An item after the first reads as one after a module line, so a second `module` is the parser's error.
        header, first_line = ("", first) if index == 0 else ("module _\n", first - 1)
        while True:
            text = header + "\n".join(lines[first - 1:last])
            try:
                parts.append(parse_item(text, first_line))
                break
            except (UnexpectedInput, KiteSyntaxError) as error:
                where, message, fix = describe(error, lines, last)
                line = where.line
                if line in replaced:  # replacing it did not help: give up on the rest
                    return None
                if line not in leaked:
                    written = 0 < line <= len(raw_lines) and raw_lines[line - 1] == lines[line - 1]
                    diagnostics.append(SYNTAX.on(file, where, message, fix if written else None))
                replaced.update(_neutralize(lines, layout, line))
                failures += 1
                budget -= len(text)
                if failures == MAX_SYNTAX_ERRORS:
                    diagnostics.append(SYNTAX.at(file, 1, 1, f"more than {MAX_SYNTAX_ERRORS} syntax errors: stopped"))
                    return None
                if budget < 0:
                    diagnostics.append(SYNTAX.at(file, line, 1, "too many syntax errors to recover from in an item this long: stopped"))
                    return None
    head, tail = parts[0], parts[-1]
    items = tuple(item for part in parts for item in part.items)
    return Module(head.line, head.column, head.name, items, end_line=tail.end_line, end_column=tail.end_column)


def _layout_span(text: str, line: int, column: int) -> Span:
    """What a layout problem is about: the indentation, when it is at the start of the line; else the rest of the line
    (a header whose block is missing)."""
    if column == 1:
        return Span(line, 1, line, 1 + len(text) - len(text.lstrip(" \t")))
    return Span(line, column, line, max(len(text.rstrip()) + 1, column))


def _item_lines(layout: layout_pass.Layout, line_count: int) -> list[tuple[int, int]]:
    """(first, last) physical lines of each top-level item; comments and blank lines go with the item before."""
    starts = [logical.first for logical in layout.logical if logical.indent == 0][1:]
    firsts = [1, *starts]
    return list(zip(firsts, [start - 1 for start in starts] + [line_count]))


def _neutralize(lines: list[str], layout: layout_pass.Layout, line: int) -> range:
    """Replace the logical line holding `line` with one that parses in its place."""
    logical = layout.logical_line_of(line) or layout_pass.LogicalLine(line, line, 0, False)
    indent = " " * logical.indent
    enclosing = _enclosing_item(layout, logical)
    if logical.opens_block:
        replacement = "if true" if logical.indent else f"fn recovered_line_{line}()"
    elif enclosing == "type":
        replacement = f"recovered_line_{line}: int"
    elif enclosing == "enum":
        replacement = f"RecoveredLine{line}"
    else:
        replacement = "pass" if logical.indent else ""
    for number in range(logical.first, logical.last + 1):
        lines[number - 1] = ""
    lines[logical.first - 1] = indent + replacement if replacement else ""
    return range(logical.first, logical.last + 1)


def _enclosing_item(layout: layout_pass.Layout, logical: layout_pass.LogicalLine) -> str | None:
    if logical.indent == 0:
        return None
    for candidate in reversed(layout.logical):
        if candidate.first < logical.first and candidate.indent == 0:
            return layout.lines[candidate.first - 1].split()[0]
    return None


def describe(error: Exception, lines: list[str], last_line: int) -> tuple[Span, str, Fix | None]:
    """Where the parse failed (in lines up to `last_line`): the offending token, or the word or character; what
    a Kite programmer should read there; and the fix, where the Kite spelling is known."""
    if isinstance(error, KiteSyntaxError):
        return error.span, error.message, None
    if isinstance(error, UnexpectedCharacters):
        return Span(error.line, error.column, error.line, error.column + 1), f"unexpected character {error.char!r}", None
    if isinstance(error, UnexpectedEOF) or (isinstance(error, UnexpectedToken) and error.token.type == "$END"):
        last = max((i + 1 for i, text in enumerate(lines[:last_line]) if text.strip()), default=1)
        return Span(last, 1, last, 1), "unexpected end of file", None
    assert isinstance(error, UnexpectedToken)
    token = error.token
    line = token.line
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    stripped = text.strip()
    word = re.match(r"\S[\w]*", stripped)
    first_word = word.group() if word else ""  # stripped text starts with a non-space, or is empty
    indent = len(text) - len(text.lstrip())
    if first_word in NOT_KITE_STATEMENTS:
        return Span.of_name(line, indent + 1, first_word), statement_message(first_word), _kite_spelling(line, text, first_word)
    if token.value == ":" and layout_pass.header_keyword(stripped) and stripped.endswith(":"):
        return _token_span(token), f"a header line has no ':' at the end: write '{stripped[:-1].rstrip()}'", _without_colon(line, text)
    if indent == 0 and first_word and first_word not in ITEM_KEYWORDS:
        return Span.of_name(line, 1, first_word), f"'{first_word}' cannot stand at the top level: only use, let, type, enum, fn and test can", None
    after = text[token.column:token.column + 1]
    operator = "=>" if token.value == "=" and after == ">" else token.value
    # `fn(x) => ...` parses: an unexpected `=>` is a lambda without fn; a `?` not C#'s `?.`, `??` or `?[` is a ternary
    if operator in EXPRESSION_HABITS and not (operator == "?" and after in (".", "?", "[")):
        return Span(line, token.column, line, token.column + len(operator)), statement_message(operator), None
    return _token_span(token), f"unexpected {_found(token)}: expected {_expected(error.expected)}", None


def _without_colon(line: int, text: str) -> Fix | None:
    """A header's ':' at the end of its line (code_only: not one inside a comment) goes, with the blanks before it."""
    code = layout_pass.code_only(text, keep_columns=True).rstrip()
    if not code.endswith(":"):
        return None
    start = len(code[:-1].rstrip())
    return Fix("Remove the ':'", (Edit(line, start + 1, line, len(code) + 1, ""),))


def _kite_spelling(line: int, text: str, word: str) -> Fix | None:
    """Another language's word that Kite spells otherwise (`def` is `fn`), and the ':' its header ends with."""
    kite = KITE_SPELLINGS.get(word)
    if kite is None:
        return None
    start = len(text) - len(text.lstrip())
    edits = [Edit(line, start + 1, line, start + len(word) + 1, kite)]
    colon = _without_colon(line, text)
    if colon is not None:
        edits.extend(colon.edits)
    return Fix(f"Replace '{word}' with '{kite}'", tuple(edits))


def _token_span(token) -> Span:
    """A token's text; a layout token (end of line, indent, dedent) is a point where it starts."""
    if token.type in ("_NL", "_INDENT", "_DEDENT") or token.end_line is None:
        return Span(token.line, token.column, token.line, token.column)
    return Span(token.line, token.column, token.end_line, token.end_column)


def _found(token) -> str:
    if token.type in ("_NL", "_INDENT", "_DEDENT"):
        return TERMINAL_WORDS[token.type]
    return f"'{token.value}'"


def _expected(names) -> str:
    names = set(names)
    words = []
    if len(names & EXPRESSION_STARTS) >= 5:
        names -= EXPRESSION_STARTS
        words.append("an expression")
    terminals = {terminal.name: terminal for terminal in lark_parser().terminals}
    for name in sorted(names):
        if name in TERMINAL_WORDS:
            words.append(TERMINAL_WORDS[name])
        elif name in terminals and isinstance(terminals[name].pattern, PatternStr):
            words.append(f"'{terminals[name].pattern.value}'")
        else:
            words.append(name.lower())
    words = list(dict.fromkeys(words))
    if len(words) > 6:
        words = [*words[:6], "..."]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
