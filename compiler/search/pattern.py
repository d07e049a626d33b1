"""A search pattern: Kite text with metavariables, parsed by Kite's own parser in the first context that accepts it.

Lark knows nothing of `$X`, so a pre-pass swaps each metavariable for a reserved name the grammar reads as any
other name (`$X` -> `__kite_meta_one_X`, `$$$ARGS` -> `__kite_meta_seq_ARGS`, `$_` -> `__kite_meta_any_`), and
the matcher recognises those names. A file may well contain such a name; it is only ever read as a metavariable
in a pattern, and a pattern that spells the reserved prefix itself is refused.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from lark.exceptions import UnexpectedInput

from kite.errors import UnusableInput
from kite.syntax import nodes as n
from kite.syntax.frontend import describe
from kite.syntax.parser import KiteSyntaxError, parse_module

RESERVED = "__kite_meta_"
ONE, SEQUENCE, ANY = f"{RESERVED}one_", f"{RESERVED}seq_", f"{RESERVED}any_"
# A metavariable alone on a top-level line stands for items; as `use <this prefix>...` it is one the grammar accepts.
ITEM = f"{RESERVED}item_"
_ALONE_AT_TOP = re.compile(rf"^{RESERVED}(?=\w*[ \t]*$)", re.MULTILINE)
# A metavariable, or what must be read past untouched: a literal (f-strings too) or a comment.
METAVARIABLE_OR_LITERAL = re.compile(r'''f?"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\#[^\n]*|\$\$\$([A-Za-z0-9_]*)|\$([A-Za-z0-9_]+)''')
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CONTEXTS = ("expression", "statement", "item", "module")
_HEADER = {"expression": "module m\nfn f()\n", "statement": "module m\nfn f()\n", "item": "module m\n", "module": ""}
_INDENTED = {"expression": True, "statement": True, "item": False, "module": False}


def metavariable(name: str) -> tuple[str, str] | None:
    """("one" | "seq" | "any", its name) for a placeholder name; None for any other name."""
    if not name.startswith(RESERVED):
        return None
    if name.startswith(ITEM):
        return metavariable(RESERVED + name[len(ITEM):])
    if name.startswith(SEQUENCE):
        return "seq", name[len(SEQUENCE):]
    if name.startswith(ONE):
        return "one", name[len(ONE):]
    return "any", ""


@dataclass(frozen=True)
class Pattern:
    text: str  # as the user wrote it
    context: str  # one of CONTEXTS
    node: object  # an expression, a tuple of statements or items, or a Module
    literal_words: frozenset[str]  # names and literals a match must contain verbatim: a file without one cannot match

    def may_match(self, text: str) -> bool:
        """False when `text` lacks one of the pattern's names (as a whole word) or literals: it cannot match."""
        return all(
            re.search(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", text) if _WORD.fullmatch(word) else word in text
            for word in self.literal_words
        )


@dataclass(frozen=True)
class Swapped:
    text: str
    shifts: tuple[tuple[int, int, int], ...]  # (line, column after the swap, characters added there)

    def column_in_pattern(self, line: int, column: int) -> int:
        return column - sum(added for at_line, at, added in self.shifts if at_line == line and at < column)


def swap_metavariables(text: str) -> Swapped:
    """Metavariables to placeholder names, outside literals and comments (neither spans a line)."""
    if RESERVED in text:
        raise UnusableInput(f"the pattern spells kite's reserved name prefix {RESERVED!r}: write $X for a metavariable")
    lines: list[str] = []
    shifts: list[tuple[int, int, int]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        pieces, index, added = [], 0, 0
        for match in METAVARIABLE_OR_LITERAL.finditer(line):
            sequence, single = match.group(1), match.group(2)
            if sequence is None and single is None:
                continue
            if sequence is not None:
                replacement = SEQUENCE + sequence
            elif single == "_":
                replacement = ANY
            elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", single):
                replacement = ONE + single
            else:
                raise UnusableInput(f"pattern: '${single}' is not a metavariable: write $ and a name ($X, $NAME, $_)")
            pieces += [line[index:match.start()], replacement]
            shifts.append((number, match.start() + 1 + added, len(replacement) - len(match.group())))
            added += len(replacement) - len(match.group())
            index = match.end()
        pieces.append(line[index:])
        lines.append("".join(pieces))
    swapped = "\n".join(lines)
    if "$" in _without_literals(swapped):
        raise UnusableInput("pattern: a '$' that starts no metavariable: write $X, $$$ARGS or $_")
    return Swapped(swapped, tuple(shifts))


def metavariable_names(text: str) -> set[str]:
    """The metavariables a pattern binds ($_ and a bare $$$ bind nothing)."""
    return {name for m in METAVARIABLE_OR_LITERAL.finditer(text) if (name := m.group(1) or m.group(2)) and name != "_"}


def _without_literals(text: str) -> str:
    return METAVARIABLE_OR_LITERAL.sub(lambda m: "" if m.group(1) is None and m.group(2) is None else m.group(), text)


def parse_pattern(text: str, context: str | None = None) -> Pattern:
    """The pattern read in the first context that accepts it (or the one forced); UnusableInput says, per context,
    what was expected where."""
    if not text.strip():
        raise UnusableInput("pattern: empty")
    swapped = swap_metavariables(textwrap.dedent(text).strip("\n"))
    failures = []
    for candidate in [context] if context else CONTEXTS:
        try:
            node = _read_in(candidate, swapped.text)
        except (UnexpectedInput, KiteSyntaxError) as error:
            failures.append(f"as {described(candidate)}: {_where(error, candidate, swapped)}")
            continue
        if node is None:
            failures.append(f"as {described(candidate)}: it is not one")
            continue
        return Pattern(text, candidate, node, frozenset(literal_words(node)))
    raise UnusableInput(f"pattern {text.strip()!r} does not parse in any context: " + "; ".join(failures))


def described(context: str) -> str:
    return f"an {context}" if context[0] in "aeiou" else f"a {context}"


def _wrapped(context: str, text: str) -> str:
    """The fragment where its context puts it: an expression or a statement in a function, an item in a module."""
    # Lines end at "\n" only: textwrap.indent would also split at a U+2028 inside a string literal.
    if _INDENTED[context]:
        return _HEADER[context] + "\n".join("    " + line for line in text.split("\n"))
    return _HEADER[context] + _ALONE_AT_TOP.sub(f"use {ITEM}", text)


def _read_in(context: str, text: str):
    module = parse_module(_wrapped(context, text))
    if context in ("expression", "statement"):
        function = module.items[0]
        assert isinstance(function, n.FnDecl), "_HEADER puts the pattern in `fn f()`"
        if context == "statement":
            return function.body
        [statement] = function.body if len(function.body) == 1 else [None]
        return statement.expr if isinstance(statement, n.ExprStmt) else None
    if context == "item":
        return module.items or None
    return module if module.name else None


def _where(error: Exception, context: str, swapped: Swapped) -> str:
    """The parser's message at the pattern's own line and column."""
    lines = _wrapped(context, swapped.text).split("\n")
    where, message, _ = describe(error, lines, len(lines))
    line, column = where.line, where.column
    line -= _HEADER[context].count("\n")
    if line < 1:
        return message
    column = swapped.column_in_pattern(line, column - (4 if _INDENTED[context] else 0))
    return f"line {line}, column {max(column, 1)}: {message}"


def literal_words(node) -> set[str]:
    """Names and literals a pattern holds verbatim; each must appear in a file's text for the file to match."""
    from kite.search.walk import fields_of

    words: set[str] = set()
    pending = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, tuple):
            pending.extend(item)
        elif isinstance(item, n.Literal):
            words.add(item.text)
        elif isinstance(item, n.Node):
            for name, value in fields_of(item):
                if isinstance(value, str) and name in NAME_FIELDS and metavariable(value) is None and value:
                    words.update(part for part in value.split(".") if part)
                else:
                    pending.append(value)
    return words


# The fields that hold a name as written in the source (a dotted one for types and `use`).
NAME_FIELDS = frozenset({"name", "path"})
