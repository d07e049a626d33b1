"""Kite's one layout (docs/format.md), written from the formatter's tokens: spacing, long lines broken inside their
outermost bracket, comments where they belong, blank lines between items."""

from __future__ import annotations

from kite.format.tokens import (
    ANGLE_CLOSE,
    ANGLE_OPEN,
    BLANK,
    CLOSE,
    COMMENT,
    KEYWORD,
    LITERAL,
    NAME,
    NUMBER,
    OPEN,
    Document,
    Token,
)

WIDTH = 100
INDENT = "    "
# Past this depth a line is over the width by its indentation alone: brackets are not broken deeper, and a comment
# inside them goes before the element it sits in.
DEEPEST = WIDTH // len(INDENT) - 5
VALUES = frozenset({NAME, NUMBER, LITERAL})
VALUE_KEYWORDS = frozenset({"true", "false", "none"})
NO_SPACE_BEFORE = frozenset({",", ":", "?", ".", ")", "]"})
NO_SPACE_AFTER = frozenset({"(", "[", "."})
# Top-level items that may stand together, without a blank line between them.
GROUPED = frozenset({"let", "use"})


def _ends_value(token: Token) -> bool:
    """The token ends an operand: what follows it is a binary operator, a call or an index."""
    return token.kind in VALUES or (token.text in (")", "]") and token.kind != COMMENT) or (token.kind == KEYWORD and token.text in VALUE_KEYWORDS)


def render(tokens: list[Token]) -> str:
    """Code tokens on one line, spaced by the rules of docs/format.md; a trailing comma before a closing bracket goes."""
    out: list[str] = []
    before: Token | None = None
    unary = False  # `before` is a unary minus
    last = len(tokens) - 1
    for index, token in enumerate(tokens):
        kind, text = token.kind, token.text
        if text == "," and index < last and tokens[index + 1].text in CLOSE:
            continue
        if before is not None:
            if text in NO_SPACE_BEFORE or kind is ANGLE_OPEN or kind is ANGLE_CLOSE or before.text in NO_SPACE_AFTER or before.kind is ANGLE_OPEN:
                pass
            elif unary:
                if text == "-":  # `- -x`, never `--x` (C#'s decrement)
                    out.append(" ")
            elif text == "(":  # a call, a type's call, parameters: no space; a parenthesized expression: one
                if not (_ends_value(before) or before.kind is ANGLE_CLOSE or (before.kind is KEYWORD and before.text == "fn")):
                    out.append(" ")
            elif text == "[":  # an index: no space; a list: one
                if not _ends_value(before):
                    out.append(" ")
            else:
                out.append(" ")
        out.append(text)
        unary = text == "-" and (before is None or not _ends_value(before))
        before = token
    return "".join(out)


def _code(tokens: list[Token]) -> list[Token]:
    return [token for token in tokens if token.kind != COMMENT]


def _takes_trailing_comma(tokens: list[Token], opening: int, closing: int) -> bool:
    """A bracket whose list the grammar lets end with a comma: arguments, a list literal, parameters."""
    before = next((tokens[i] for i in range(opening - 1, -1, -1) if tokens[i].kind != COMMENT), None)
    if tokens[opening].text == "[":
        return before is None or not _ends_value(before)
    if before is None:
        return False
    if before.kind == KEYWORD and before.text == "fn":  # a lambda's parameters (a function type's: unknown)
        after = next((tokens[i] for i in range(closing + 1, len(tokens)) if tokens[i].kind != COMMENT), None)
        return after is not None and after.text == "=>"
    return _ends_value(before) or before.kind == ANGLE_CLOSE


def _brackets(tokens: list[Token], breakable_here: bool = True):
    """The outermost bracket pairs (opening index, closing index, whether a comment is inside), and the comments
    outside every bracket. A bracket inside a type's angle brackets is part of the type: never broken (nor any,
    without `breakable_here`: their comments are then outside every bracket that can be broken)."""
    pairs: list[tuple[int, int, bool]] = []
    loose: list[int] = []
    depth = angles = 0
    opened = -1
    breakable = commented = False
    for index, token in enumerate(tokens):
        kind = token.kind
        if kind == COMMENT:
            if depth and breakable:
                commented = True
            else:
                loose.append(index)
            continue
        if kind == ANGLE_OPEN:
            angles += 1
        elif kind == ANGLE_CLOSE:
            angles -= 1
        elif token.text in OPEN:
            if not depth:
                opened, breakable, commented = index, breakable_here and not angles, False
            depth += 1
        elif token.text in CLOSE and depth:  # (the bracket a run goes on from closes nothing of its own)
            depth -= 1
            if not depth and breakable:
                pairs.append((opened, index, commented))
    return pairs, loose


def _elements(tokens: list[Token]) -> list[list[Token]]:
    """A bracket's contents split at its own commas (not those of inner brackets or types)."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        kind, text = token.kind, token.text
        if kind == COMMENT:
            parts[-1].append(token)
            continue
        if text in OPEN or kind == ANGLE_OPEN:
            depth += 1
        elif text in CLOSE or kind == ANGLE_CLOSE:
            depth -= 1
        elif text == "," and not depth:
            parts.append([])
            continue
        parts[-1].append(token)
    return parts


def layout(tokens: list[Token], level: int, reserve: int = 0) -> tuple[list[str], list[str]]:
    """The lines for a run of tokens `level` deep, and the comments that sat inside it between two tokens outside
    any bracket (lifted: the caller writes them on lines of their own before these). `reserve`: characters the
    caller adds to the last line (a comma). After a broken bracket, the rest of the run goes on from its closing
    bracket's line, and may break again."""
    indent = INDENT * level
    lines: list[str] = []
    lifted: list[str] = []
    while True:
        code = _code(tokens)
        flat = indent + render(code)
        if len(code) == len(tokens) and len(flat) + reserve <= WIDTH:  # most lines: no comment, short enough
            lines.append(flat)
            return lines, lifted
        last_code = max(index for index, token in enumerate(tokens) if token.kind != COMMENT)
        pairs, loose = _brackets(tokens, level < DEEPEST)
        chosen = next(((o, c) for o, c, commented in pairs if commented), None)
        if chosen is None and len(flat) + reserve > WIDTH:
            lengths = [(len(render(_code(tokens[o + 1:c]))), o, c) for o, c, _ in pairs if c - o > 1]
            if lengths:
                _, o, c = max(lengths)
                chosen = (o, c)
        if chosen is None:
            extra = []
            for index in loose:
                comment = tokens[index]
                if index < last_code:
                    lifted.append(comment.text)
                elif comment.own_line:
                    extra.append(indent + comment.text)
                else:
                    flat += "  " + comment.text
            lines += [flat, *extra]
            return lines, lifted
        opening, closing = chosen
        lifted += [tokens[index].text for index in loose if index < opening]
        lines += _broken(tokens, opening, closing, level)
        tokens = tokens[closing:]


def _broken(tokens: list[Token], opening: int, closing: int, level: int) -> list[str]:
    """The lines from the start of `tokens` up to the bracket at `closing`, which is broken: what comes before the
    bracket and the bracket on the first line, then each element (and the comments around it) a level deeper."""
    lines = [INDENT * level + render(_code(tokens[:opening + 1]))]
    inner = INDENT * (level + 1)
    attach = 0  # the line a comment ending a line of the source goes after
    parts = _elements(tokens[opening + 1:closing])
    with_code = [i for i, part in enumerate(parts) if any(token.kind != COMMENT for token in part)]
    last_element = with_code[-1] if with_code else -1
    comma_after_last = _takes_trailing_comma(tokens, opening, closing)

    def comment(token: Token) -> None:
        if token.own_line:
            lines.append(inner + token.text)
        else:
            lines[attach] += "  " + token.text

    for number, part in enumerate(parts):
        part_codes = [i for i, token in enumerate(part) if token.kind != COMMENT]
        if not part_codes:
            for token in part:
                comment(token)
            continue
        first, last = part_codes[0], part_codes[-1]
        for token in part[:first]:
            comment(token)
        comma = number < last_element or comma_after_last
        sub, sub_lifted = layout(part[first:last + 1], level + 1, 1 if comma else 0)
        lines.extend(inner + text for text in sub_lifted)
        lines.extend(sub)
        if comma:
            lines[-1] += ","
        attach = len(lines) - 1
        for token in part[last + 1:]:
            comment(token)
    return lines


def _level(line) -> int:
    return len(line.indent) // len(INDENT)


def pieces(document: Document) -> list[tuple[int, int, list[str]]]:
    """The layout in pieces, each with the rows (0-based, the end excluded) of the text it takes the place of: a
    logical line with the blank lines and comments before it, then what ends the file. The language server formats
    a range with the pieces that touch it."""
    out: list[tuple[int, int, list[str]]] = []
    lines = document.lines
    levels = [_level(line) for line in lines]
    item = ""  # the kind of the top-level item the previous line is part of
    start = 0
    for index, line in enumerate(lines):
        level = levels[index]
        kind = line.tokens[0].text if not level else item
        piece: list[str] = []
        if index == 0:
            _gap(piece, document.gaps[0], 0, 0, after_header=True, boundary=False)
        else:
            previous = levels[index - 1]
            header = level > previous
            boundary = not level and not (kind == item and kind in GROUPED)
            _gap(piece, document.gaps[index], level, max(level, previous), after_header=header, boundary=boundary)
        sub, lifted = layout(line.tokens, level)
        piece.extend(INDENT * level + text for text in lifted)
        piece.extend(sub)
        out.append((start, line.last_row + 1, piece))
        start = line.last_row + 1
        item = kind
    ending: list[str] = []
    if lines:
        _gap(ending, document.gaps[-1], 0, levels[-1], after_header=False, boundary=False, at_end=True)
    out.append((start, max(start, document.rows), ending))
    return out


def print_document(document: Document) -> str:
    return "\n".join(line for _, _, piece in pieces(document) for line in piece) + "\n"


def _gap(out: list[str], entries: list, low: int, high: int, *, after_header: bool, boundary: bool, at_end: bool = False) -> None:
    """The blank lines and own-line comments between two logical lines. A comment goes to the block its indentation
    names, between the next line's and the previous line's; blank lines: at most one, none right after a header
    (or at the start or end of the file), exactly one where a top-level item begins (before its comments)."""
    normal: list = []
    for entry in entries:
        if entry is BLANK:
            if (normal and normal[-1] is not BLANK) or (not normal and not after_header):
                normal.append(BLANK)
        else:
            normal.append((min(max(entry.column // len(INDENT), low), high), entry.text))
    if at_end:
        while normal and normal[-1] is BLANK:
            normal.pop()
    if boundary:
        at = next((i for i, entry in enumerate(normal) if entry is not BLANK and entry[0] == 0), len(normal))
        if not (at and normal[at - 1] is BLANK):
            normal.insert(at, BLANK)
    for entry in normal:
        out.append("" if entry is BLANK else INDENT * entry[0] + entry[1])
