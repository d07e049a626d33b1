"""What the formatter's and the fixer's tests read: every Kite program in the repo, generated programs with random
layout, and what must hold of a formatted text against the text it came from."""

from __future__ import annotations

from hypothesis import strategies as st

from conftest import REPO
from kite.format import tokens
from kite.search.walk import fields_of
from kite.source import SourceFile, read
from kite.syntax import nodes as n
from kite.syntax.frontend import read_syntax


def corpus() -> list[tuple[str, str]]:
    """(path, text) of every .kite file in the repo: samples, fixtures, test programs, task sets."""
    found = []
    for path in sorted(REPO.rglob("*.kite")):
        if ".venv" in path.parts or ".git" in path.parts:
            continue
        try:
            found.append((str(path.relative_to(REPO)), read(str(path)).text))
        except Exception:  # an unusable file (empty, binary) on purpose: nothing to format
            continue
    return found


def shape(value):
    """A node as what it is, positions left out (as `kite find` compares nodes)."""
    if isinstance(value, n.Node):
        return (type(value).__name__, tuple((name, shape(field)) for name, field in fields_of(value)))
    if isinstance(value, tuple):
        return tuple(shape(item) for item in value)
    return value


def parsed(text: str):
    return read_syntax(SourceFile("p.kite", text))


def comments(text: str) -> list[str]:
    """Every comment's text, in order of where it is written."""
    document = tokens.read(text)
    found = []
    for gap, line in zip(document.gaps, [*document.lines, None]):
        found += [entry.text for entry in gap if entry is not tokens.BLANK]
        if line is not None:
            found += [token.text for token in line.tokens if token.kind == tokens.COMMENT]
    return found


def code_tokens(text: str) -> list[str]:
    """The code tokens in order, trailing commas (which come and go with line breaks) left out."""
    out = []
    for line in tokens.read(text).lines:
        code = line.code
        out += [t.text for i, t in enumerate(code) if not (t.text == "," and i + 1 < len(code) and code[i + 1].text in ")]")]
    return out


def assert_only_layout_moved(before: str, after: str) -> None:
    """The formatter's guarantees, for a text that parses."""
    first, second = parsed(before), parsed(after)
    assert not second.diagnostics, second.diagnostics[0].render()
    assert shape(first.module) == shape(second.module), "the AST changed"
    assert code_tokens(before) == code_tokens(after), "a token changed"
    literals = lambda text: [t for t in code_tokens(text) if t[0] in "\"'" or t.startswith('f"')]  # noqa: E731
    assert literals(before) == literals(after)
    # Comments stay, in order; two that a line break brought onto one line are one comment's text.
    assert " ".join(comments(before)).split() == " ".join(comments(after)).split(), "a comment changed"
    assert after.endswith("\n") and not after.endswith("\n\n")
    assert all(line == line.rstrip() for line in after.split("\n")), "trailing whitespace"


# ---- generated programs: Kite's constructs, each written with random blanks, line breaks and comments

NAMES = st.sampled_from(["a", "b", "total", "xs", "item", "count", "f_2"])
ATOMS = st.sampled_from([
    "a", "b", "xs", "0", "42", "1_000", "1.5", "0.25", '"hi"', '""', '"a\\n\\"b\\""', '"# not a comment"', '"x, y"',
    "'a'", "'\\n'", "' '", 'f"{a} and {b + 1}"', 'f"{join(xs, ", ")}"', 'f"\\{x\\}"', "true", "false", "none",
])
TYPES = st.sampled_from(["int", "str", "dec?", "list<int>", "map<str, list<int>>", "set<str>?", "Item", "System.Text.StringBuilder"])
BINARY = st.sampled_from(["or", "and", "==", "!=", "<", "<=", ">", ">=", "in", "+", "-", "*", "/", "%"])
LEVEL = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}


def _expressions():
    """Expressions as (level, tokens): the level of their outermost operator, for parentheses where needed."""
    atom = ATOMS.map(lambda text: (9, [text]))

    def wrap(expression, least):
        level, toks = expression
        return toks if level >= least else ["(", *toks, ")"]

    def grow(inner):
        binary = st.tuples(inner, BINARY, inner).map(lambda t: (
            LEVEL[t[1]],
            [*wrap(t[0], LEVEL[t[1]] + (1 if LEVEL[t[1]] == 4 else 0)), t[1], *wrap(t[2], LEVEL[t[1]] + 1)],
        ))
        call = st.tuples(NAMES, st.lists(inner, max_size=3)).map(lambda t: (8, [t[0], "(", *_joined([e[1] for e in t[1]]), ")"]))
        member = st.tuples(inner, st.sampled_from(["Count", "name", "list", "in"])).map(lambda t: (8, [*wrap(t[0], 8), ".", t[1]]))
        index = st.tuples(inner, inner).map(lambda t: (8, [*wrap(t[0], 8), "[", *t[1][1], "]"]))
        listed = st.lists(inner, max_size=3).map(lambda items: (9, ["[", *_joined([e[1] for e in items]), "]"]))
        negated = inner.map(lambda e: (7, ["-", *wrap(e, 7)]))
        inverted = inner.map(lambda e: (3, ["not", *wrap(e, 3)]))
        lambda_ = st.tuples(st.lists(NAMES, max_size=2, unique=True), inner).map(lambda t: (0, ["fn", "(", *_joined([[p] for p in t[0]]), ")", "=>", *t[1][1]]))
        made = st.lists(inner, max_size=2).map(lambda items: (9, ["map", "<", "str", ",", "int", ">", "(", *_joined([e[1] for e in items]), ")"]))
        return st.one_of(binary, call, member, index, listed, negated, inverted, lambda_, made)

    return st.recursive(atom, grow, max_leaves=12)


def _joined(parts: list[list[str]]) -> list[str]:
    out: list[str] = []
    for index, part in enumerate(parts):
        if index:
            out.append(",")
        out.extend(part if part[0] != "fn" or len(parts) == 1 else ["(", *part, ")"])
    return out


EXPRESSIONS = _expressions()


def _type_tokens(text: str) -> list[str]:
    return [t.text for t in tokens.tokens_of(text)]


@st.composite
def statements(draw, depth: int = 0) -> list[tuple[int, list[str]]]:
    """Lines as (level offset, tokens) of one statement, with its block if it has one."""
    kind = draw(st.sampled_from(["let", "assign", "call", "return", "if", "while", "for", "pass", "expect"] if depth < 2 else ["let", "assign", "call", "pass"]))
    value = draw(EXPRESSIONS)[1]
    if kind == "let":
        typed = draw(st.booleans())
        head = ["let", *(["mut"] if draw(st.booleans()) else []), draw(NAMES)]
        return [(0, head + ([":", *_type_tokens(draw(TYPES))] if typed else []) + ["=", *value])]
    if kind == "assign":
        return [(0, [draw(NAMES), draw(st.sampled_from(["=", "+=", "-=", "*=", "/=", "%="])), *value])]
    if kind == "call":
        return [(0, [draw(NAMES), "(", *value, ")"])]
    if kind == "return":
        return [(0, ["return", *value])]
    if kind == "pass":
        return [(0, ["pass"])]
    if kind == "expect":
        return [(0, ["expect", *value])]
    body = [(level + 1, toks) for s in draw(st.lists(statements(depth + 1), min_size=1, max_size=3)) for level, toks in s]
    if kind == "for":
        return [(0, ["for", draw(NAMES), "in", *value]), *body]
    lines = [(0, [kind, *value]), *body]
    if kind == "if":
        for _ in range(draw(st.integers(0, 1))):
            lines += [(0, ["elif", *draw(EXPRESSIONS)[1]]), *[(level + 1, t) for s in draw(st.lists(statements(depth + 1), min_size=1, max_size=2)) for level, t in s]]
        if draw(st.booleans()):
            lines += [(0, ["else"]), *[(level + 1, t) for s in draw(st.lists(statements(depth + 1), min_size=1, max_size=2)) for level, t in s]]
    return lines


@st.composite
def items(draw) -> list[tuple[int, list[str]]]:
    kind = draw(st.sampled_from(["use", "let", "type", "enum", "fn", "test"]))
    if kind == "use":
        return [(0, ["use", "System", ".", "Text"])]
    if kind == "let":
        return [(0, ["let", draw(NAMES), "=", *draw(EXPRESSIONS)[1]])]
    if kind == "type":
        names = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
        return [(0, ["type", "Item"]), *[(1, [name, ":", *_type_tokens(draw(TYPES))]) for name in names]]
    if kind == "enum":
        return [(0, ["enum", "Size"]), (1, ["Small"]), (1, ["Large"])]
    body = [(level + 1, toks) for s in draw(st.lists(statements(), min_size=1, max_size=4)) for level, toks in s]
    if kind == "test":
        return [(0, ["test", '"it works"']), *body]
    params = draw(st.lists(st.tuples(NAMES, TYPES), max_size=3, unique_by=lambda p: p[0]))
    head = ["fn", draw(NAMES), "(", *_joined([[name, ":", *_type_tokens(t)] for name, t in params]), ")"]
    if draw(st.booleans()):
        head += ["->", *_type_tokens(draw(TYPES))]
    return [(0, head), *body]


WORDLIKE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_\"'")


@st.composite
def written(draw, lines: list[tuple[int, list[str]]]) -> str:
    """`lines` (level, tokens) as text: 4 spaces a level, and random blanks between tokens, line breaks (with any
    indentation, and comments) inside brackets, blank lines and comments between lines."""
    out = []
    for level, toks in lines:
        for _ in range(draw(st.integers(0, 2))):
            out.append(draw(st.sampled_from(["", "# between", " " * draw(st.integers(0, 10)) + "#  own line, any indent "])))
        text, depth = " " * (4 * level), 0
        for index, token in enumerate(toks):
            if index:
                previous = toks[index - 1]
                need = (previous[-1] in WORDLIKE and token[0] in WORDLIKE) or previous == token == "-" or (token.startswith('f"') and previous[-1] in WORDLIKE)
                if depth and previous in ("(", "[", ",") and draw(st.integers(0, 4)) == 0:
                    comment = draw(st.sampled_from(["", "  # inside"]))
                    text += comment + "\n" + " " * draw(st.integers(0, 9))
                else:
                    text += draw(st.sampled_from([" ", "  "] if need else ["", " ", "", "  "]))
            text += token
            depth += token in ("(", "[")
            depth -= token in (")", "]")
        out.append(text + draw(st.sampled_from(["", "", "  # end", "   "])))
    return "\n".join(out) + draw(st.sampled_from(["\n", "", "\n\n\n"]))


@st.composite
def programs(draw) -> str:
    lines = [(0, ["module", "Generated"])]
    for item in draw(st.lists(items(), min_size=1, max_size=4)):
        lines += item
    return draw(written(lines))
