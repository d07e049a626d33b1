"""An answer split into prose and code with CommonMark (markdown-it-py), every position kept.

The prose is the answer with each code block (its fences too) and each inline code span replaced by spaces, same
length and newlines kept, so a span found in the prose points at the same characters of the answer. Positions are
found on the answer's own lines: markdown-it reports a block's lines, and a line's code is the end of it once the
container (a quote's `>`, a list item's indentation) is taken off.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

from kite.scoring import fragments
from kite.syntax import leaks
from kite.syntax.nodes import Call, ExprStmt, FnDecl

LINE_END = re.compile(r"\r\n|\r|\n")
NOT_LINE_END = re.compile(r"[^\r\n]")
BACKTICKS = re.compile(r"`+")
# The info string's first word, also as Pandoc writes it (`{.kite}`) and before options (`kite,linenums`).
INFO_LANGUAGE = re.compile(r"[\s{.]*([^\s{}.,]*)")
PROBE_MODULE = "Answer"
# Lines only Kite writes: a module line, a function header, a test header, an expect, a let binding.
KITE_ONLY = re.compile(
    r'^[ \t]*(?:module[ \t]+[A-Z]\w*[ \t]*$|fn[ \t]+[A-Za-z_]\w*[ \t]*\(|test[ \t]+"[^"\n]*"[ \t]*$|expect[ \t]'
    r"|let(?:[ \t]+mut)?[ \t]+[A-Za-z_]\w*[ \t]*[:=])",
    re.MULTILINE,
)


@dataclass(frozen=True)
class CodeBlock:
    language: str  # the info string's first word, lower-case ("kite", "csharp", "python", "" if none)
    text: str  # the code itself: the block's lines as CommonMark reads them, joined by "\n"
    start: int  # offset of text[0] in the answer (characters, not bytes)
    end: int  # offset just past the code
    fence: str  # "```", "~~~" or "indented"
    is_kite: bool  # tagged kite, or untagged and parses as Kite (as a module, items, or a function body)


@dataclass(frozen=True)
class Extraction:
    prose: str  # the answer with every code block and inline code blanked in place (same length; newlines kept)
    blocks: tuple[CodeBlock, ...]  # in order


def _column(line: str, code: str) -> int:
    """Where `code` (one line of a block, as CommonMark read it) starts on the answer's line."""
    if line.endswith(code):
        return len(line) - len(code)
    rest = code.lstrip(" \t")  # CommonMark turned a tab of the container's indentation into spaces
    return len(line) - len(rest) if line.endswith(rest) else len(line)


def looks_like_kite(code: str) -> bool:
    """Untagged code is Kite when it reads as Kite (a module, items or a function body) and is not something else
    that happens to parse: program output (`42`, `[1, 2]`), or C# with half its lines leaking and nothing only Kite
    writes. Code that does not read is Kite when it has a line only Kite writes: it is graded, and fails, as Kite."""
    if not code.strip() or len(code) > fragments.MAX_PROBED_CHARS:
        return False
    written_as_kite = KITE_ONLY.search(code) is not None
    reading = fragments.read_as_module(code, PROBE_MODULE)
    module = fragments.parsed(reading.source)
    if module is None:
        return written_as_kite
    if reading.how == "function body":
        [body] = [item for item in module.items if isinstance(item, FnDecl)]
        if all(isinstance(statement, ExprStmt) and not isinstance(statement.expr, Call) for statement in body.body):
            return False
    return written_as_kite or not _mostly_leaks(code)


def _mostly_leaks(code: str) -> bool:
    significant = sum(1 for line in code.split("\n") if line.strip() and not line.strip().startswith("#"))
    return 2 * len(leaks.scan(code).leaked_lines) >= significant


@functools.cache
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark")


class _Blanking:
    """The answer's lines as markdown-it numbers them (CR LF and a lone CR end a line too), and the prose being made."""

    def __init__(self, answer: str):
        self.answer = answer.replace("\0", "\ufffd")  # as markdown-it reads it: same length
        breaks = list(LINE_END.finditer(answer))
        self.starts = [0, *(match.end() for match in breaks)]
        self.ends = [*(match.start() for match in breaks), len(answer)]
        self.original = answer
        self.blanked: list[tuple[int, int]] = []  # (start, end) of each stretch of code

    def line(self, number: int) -> str:
        return self.answer[self.starts[number]:self.ends[number]]

    def blank(self, start: int, end: int) -> None:
        if start < end:
            self.blanked.append((start, end))

    def prose(self) -> str:
        """The original answer (NUL and all) with every stretch blanked; lines of one block are blanked as one."""
        merged: list[list[int]] = []
        for start, end in sorted(self.blanked):
            if merged and not self.original[merged[-1][1]:start].strip("\r\n"):
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        pieces, position = [], 0
        for start, end in merged:
            stretch = self.original[start:end]
            pieces += [self.original[position:start], NOT_LINE_END.sub(" ", stretch) if "\n" in stretch or "\r" in stretch else " " * len(stretch)]
            position = end
        pieces.append(self.original[position:])
        return "".join(pieces)

    def blank_line_from(self, number: int, column: int) -> None:
        self.blank(self.starts[number] + column, self.ends[number])

    def inline(self, token) -> None:
        spans = [child for child in token.children or () if child.type == "code_inline"]
        if spans and token.map:
            region_end = self.ends[min(token.map[1], len(self.ends)) - 1]
            for start, end in _inline_spans(self.answer, self.starts[token.map[0]], region_end, spans):
                self.blank(start, end)

    def block(self, token) -> CodeBlock:
        """A fence or an indented block: its lines blanked (fences too), its code and where that code starts."""
        content = token.content.removesuffix("\n")
        code_lines = content.split("\n") if token.content else []
        opening, after = token.map
        first = opening + 1 if token.type == "fence" else opening
        columns = [_column(self.line(first + i), code) for i, code in enumerate(code_lines)]
        for i, column in enumerate(columns):
            self.blank_line_from(first + i, column)
        if token.type == "fence":
            marker = token.markup[0] * 3
            closing = first + len(code_lines)
            for number in (opening, closing) if closing < after else (opening,):
                self.blank_line_from(number, max(self.line(number).find(marker), 0))
        if code_lines:
            start, end = self.starts[first] + columns[0], self.ends[first + len(code_lines) - 1]
        else:
            start = end = self.starts[first] if first < len(self.starts) else len(self.answer)
        info = INFO_LANGUAGE.match(token.info)
        assert info is not None, "INFO_LANGUAGE matches any text, the empty one too"
        language = info.group(1).lower()
        text = "\n".join(code_lines)
        fence = token.markup[0] * 3 if token.type == "fence" else "indented"
        return CodeBlock(language, text, start, end, fence, language == "kite" or (language == "" and looks_like_kite(text)))


def extract(answer: str) -> Extraction:
    blanking = _Blanking(answer)
    blocks = []
    for token in _markdown().parse(answer):
        if token.type == "inline":
            blanking.inline(token)
        elif token.type in ("fence", "code_block") and token.map:
            blocks.append(blanking.block(token))
    return Extraction(blanking.prose(), tuple(blocks))


def _code_span_content(raw: str) -> str:
    """CommonMark's reading of a code span's inside: line ends become spaces, one space is stripped from each side."""
    text = raw.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    if len(text) >= 2 and text[0] == " " and text[-1] == " " and text.strip(" "):
        return text[1:-1]
    return text


def _inline_spans(answer: str, start: int, end: int, spans) -> list[tuple[int, int]]:
    """The answer's (start, end) of each code span markdown-it found between start and end, backticks included.

    A span opens at a run of backticks and closes at the next run of the same length; a run that is escaped or sits
    in an HTML attribute gives a different content, so each candidate is checked against what markdown-it read."""
    runs = [(match.start(), match.end()) for match in BACKTICKS.finditer(answer, start, end)]
    found, index = [], 0
    for span in spans:
        for opener in range(index, len(runs)):
            width = runs[opener][1] - runs[opener][0]
            if width != len(span.markup):
                continue
            closer = next((c for c in range(opener + 1, len(runs)) if runs[c][1] - runs[c][0] == width), None)
            if closer is None:
                break
            if _code_span_content(answer[runs[opener][1]:runs[closer][0]]) == span.content:
                found.append((runs[opener][0], runs[closer][1]))
                index = closer + 1
                break
    return found
