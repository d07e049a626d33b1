"""kite.syntax.lalr, the LALR driver over Lark's tables, against Lark's own parse and KiteTransformer: every .kite file
of the repository (and ../shared/kite/examples when present), and mutations of them, give the same AST (positions,
ends and tokens included), the same error, and through the front end the same diagnostics; and the fast path answers
exactly when Lark's parse succeeds, so it is not quietly falling back."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from pathlib import Path

import pytest
from lark import Token
from lark.exceptions import LarkError

from conftest import REPO
from kite.source import SourceFile
from kite.syntax import lalr
from kite.syntax.frontend import read_syntax
from kite.syntax.parser import KiteSyntaxError, lark_only, parse_module

EXAMPLES = REPO.parent / "shared" / "kite" / "examples"
MUTATIONS_PER_FILE = 4
# Pieces a mutation puts in: Kite's brackets, operators and keywords, an indent, a line break, a stray character, and
# characters no terminal starts with (the lexer matches by the first character: lalr.FirstCharacter).
PIECES = ["(", ")", "[", "]", ",", ":", "=", "->", "=>", ".", "<", ">", "?", "+", "-", "*", "fn", "let", "if", "else",
          "return", "none", "not", "and", '"', "'", 'f"{', "}", "#", "    ", "\n", "\t", "1.5", "_x", "@",
          "\r", "\x0c", "\x00", "é", "\u00a0", "\u2028", "日"]


def corpus() -> list[Path]:
    folders = [REPO / "samples", REPO / "tests", REPO / "stdlib", REPO / "docs", EXAMPLES]
    return sorted({path for folder in folders if folder.is_dir() for path in folder.rglob("*.kite")})


def texts() -> list[tuple[str, str]]:
    found = []
    for path in corpus():
        try:
            found.append((str(path), path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, OSError):  # a fixture of bytes that are not text: the front end's test
            continue
    return found


def shape(value):
    """Everything a value holds, ends and token positions included (nodes compare without their ends)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *((f.name, shape(getattr(value, f.name))) for f in dataclasses.fields(value)))
    if isinstance(value, Token):
        return ("Token", value.type, str(value), value.line, value.column, value.end_line, value.end_column,
                value.start_pos, value.end_pos)
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, *(shape(item) for item in value))
    return (type(value).__name__, value)


def outcome(text: str, first_line: int = 1):
    try:
        return ("parsed", shape(parse_module(text, first_line)))
    except KiteSyntaxError as error:
        return ("KiteSyntaxError", error.line, error.column, error.message, error.span)
    except LarkError as error:
        return (type(error).__name__, str(error), getattr(error, "line", None), getattr(error, "column", None))


@pytest.fixture(autouse=True, params=["c", "python"])
def driver(request, monkeypatch):
    """Every comparison runs with each loop: the C one (compiler/syntax/_lalr.c) and the Python one (lalr._run)."""
    if request.param == "c" and not lalr.c_loop_in_use():
        pytest.skip("the C loop is not built")
    if request.param == "python":
        monkeypatch.setattr(lalr, "_c_loop", None)
    return request.param


def both_ways(text: str, first_line: int = 1):
    answered = []
    real_parse = lalr.parse

    def counted(*args):
        result = real_parse(*args)
        if args[2] == "start":
            answered.append(result is not None)
        return result

    lalr.parse = counted
    try:
        fast = outcome(text, first_line)
    finally:
        lalr.parse = real_parse
    with lark_only():
        slow = outcome(text, first_line)
    return fast, slow, answered == [True]


def mutated(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    kind = rng.randrange(5)
    at = rng.randrange(len(lines))
    if kind == 0:  # a line dropped
        del lines[at]
    elif kind == 1:  # a line written twice
        lines.insert(at, lines[at])
    elif kind == 2:  # indentation changed
        lines[at] = rng.choice(["", "  ", "    ", "\t"]) + lines[at].lstrip()
    else:  # a character dropped, or a piece put in
        line = lines[at]
        column = rng.randrange(len(line) + 1)
        piece = "" if kind == 3 else rng.choice(PIECES)
        lines[at] = line[:column] + piece + line[column + (kind == 3):]
    return "\n".join(lines)


def test_the_corpus_is_there():
    """The comparison means something only over many programs: the samples and the fixtures."""
    assert len(texts()) > 200


@pytest.mark.parametrize("chunk", range(4))
def test_every_kite_file_parses_the_same_both_ways(chunk):
    for path, text in texts()[chunk::4]:
        fast, slow, answered = both_ways(text)
        assert fast == slow, path
        assert answered == (slow[0] == "parsed"), f"{path}: the fast path must answer exactly when Lark's parse succeeds"


def test_positions_are_the_files_for_an_item_parsed_on_its_own():
    """An item parsed alone starts on its line of the file (kite.syntax.frontend's recovery)."""
    text = 'fn f(x: int) -> str\n    let y = x + 1\n    return f"{y:F2} and {len(s)}"\n'
    fast, slow, answered = both_ways(text, first_line=7)
    assert fast == slow and answered
    assert "('line', ('int', 8))" in repr(fast) and "('line', ('int', 9))" in repr(fast)


@pytest.mark.parametrize("seed", range(4))
def test_mutated_files_agree_on_success_failure_and_the_ast(seed):
    rng = random.Random(seed)
    agreed = failed = 0
    for path, text in texts()[seed::4]:
        for _ in range(MUTATIONS_PER_FILE):
            text_now = mutated(text, rng)
            fast, slow, answered = both_ways(text_now)
            assert fast == slow, (path, text_now)
            assert answered == (slow[0] == "parsed"), (path, text_now)
            agreed += 1
            failed += slow[0] != "parsed"
    assert agreed > 100 and 0 < failed < agreed  # both outcomes were tried


def test_the_front_end_gives_the_same_diagnostics_both_ways():
    """Through read_syntax (leak scan, layout, recovery): the same module and the same diagnostics, for the files as
    they are and a mutation of each."""
    rng = random.Random(7)
    for path, text in texts()[::3]:
        for version in (text, mutated(text, rng)):
            try:
                source = SourceFile(path, version)
            except Exception:  # text the front end refuses before parsing: nothing to compare
                continue
            fast = read_syntax(source)
            with lark_only():
                slow = read_syntax(source)
            assert shape(fast.module) == shape(slow.module), path
            assert fast.diagnostics == slow.diagnostics, path
            assert [(d.end_line, d.end_column, d.fix) for d in fast.diagnostics] == [(d.end_line, d.end_column, d.fix) for d in slow.diagnostics]


def test_the_c_loop_is_the_one_in_use_when_built():
    """`pip install` builds compiler/syntax/_lalr.c where a C compiler is (setup.py, .ci/run): CI must not quietly
    run the Python loop. KITE_PYTHON_LOOP_ONLY is for a machine without one."""
    import os
    import sys

    if os.environ.get("KITE_PYTHON_LOOP_ONLY"):
        pytest.skip("KITE_PYTHON_LOOP_ONLY set")
    assert "kite.syntax._lalr" in sys.modules, "compiler/syntax/_lalr.c is not built: `pip install -e .` builds it"


def kite_tables():
    from kite.syntax.parser import KiteTransformer, lark_parser

    return lalr.tables_for(lark_parser(), KiteTransformer)


def test_a_broken_table_gives_none_not_a_crash(driver):
    """A rule's recipe the loop cannot read, a goto that is not there, a lexer row that is not a lexer: None (then
    Lark answers), from either loop."""
    from kite.syntax.parser import KiteTransformer

    text = "fn f(x: int) -> int\n    return x + 1\n"
    assert lalr.parse(kite_tables(), text, "start", KiteTransformer(text)) is not None
    for breaking in ("rules", "layouts", "goto", "lexers"):
        tables = kite_tables()
        if breaking == "rules":
            tables.rules[:] = [(1, "nothing", 9, None, 7, None, "x")] * len(tables.rules)
        elif breaking == "layouts":  # each child laid out from a place past the symbols the rule pops
            tables.rules[:] = [(*rule[:3], (tuple((99, spliced, before) for _, spliced, before in rule[3][0]), rule[3][1]), *rule[4:])
                               if rule[2] == lalr.LAYOUT else rule for rule in tables.rules]
        elif breaking == "goto":
            for row in tables.actions.values():
                for symbol in [symbol for symbol in row if not symbol.isupper()]:
                    del row[symbol]
        else:
            tables.lexers = dict.fromkeys(tables.lexers, None)
            if tables.lexer_rows is not None:
                tables.lexer_rows[:] = [None] * len(tables.lexer_rows)
        assert lalr.parse(tables, text, "start", KiteTransformer(text)) is None, breaking


def test_a_token_class_without_slots_is_larks_to_parse_from_the_c_loop(driver, monkeypatch):
    """The C loop writes a Token's attributes straight into their slots: with a class that has none it gives None
    (then Lark answers). The Python loop sets them as attributes, whatever the class."""
    from kite.syntax.parser import KiteTransformer

    class DictToken(str):  # its attributes in a __dict__, as Lark's Token had before __slots__
        pass

    text = "fn f(x: int) -> int\n    return x + 1\n"
    assert lalr.parse(kite_tables(), text, "start", KiteTransformer(text)) is not None
    monkeypatch.setattr(lalr, "Token", DictToken)
    assert (lalr.parse(kite_tables(), text, "start", KiteTransformer(text)) is None) == lalr.c_loop_in_use()


def test_the_loop_does_not_leak(driver):
    """Memory after 3,000 parses of a file is within a small bound of memory after 300 (tracemalloc, by sizes)."""
    import tracemalloc

    from kite.syntax.parser import KiteTransformer

    text = (REPO / "samples").rglob("*.kite").__next__().read_text(encoding="utf-8")
    broken = text + "\n)(\n"
    tables, transformer = kite_tables(), KiteTransformer(text)
    assert lalr.parse(tables, text, "start", transformer) is not None

    def parses(count):
        for _ in range(count):
            lalr.parse(tables, text, "start", transformer)
            lalr.parse(tables, broken, "start", transformer)

    tracemalloc.start()
    try:
        parses(300)
        after_few = tracemalloc.get_traced_memory()[0]
        parses(3000)
        after_many = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert after_many - after_few < 64 * 1024, (after_few, after_many)


def test_an_interrupt_in_a_callback_goes_on_up_from_either_loop(driver):
    """Ctrl-C (or an exit) during a parse is the user's, not a parse failure for Lark to report: it is raised, as
    every other exception gives None."""
    from kite.syntax.parser import KiteTransformer, lark_parser

    class Interrupted(KiteTransformer):
        def return_stmt(self, children):
            raise KeyboardInterrupt

    class Failing(KiteTransformer):
        def return_stmt(self, children):
            raise ValueError("a callback's own error")

    text = "fn f(x: int) -> int\n    return x + 1\n"
    assert lalr.parse(lalr.tables_for(lark_parser(), Failing), text, "start", Failing(text)) is None
    with pytest.raises(KeyboardInterrupt):
        lalr.parse(lalr.tables_for(lark_parser(), Interrupted), text, "start", Interrupted(text))


def test_a_lexers_match_by_first_character_is_its_whole_expressions_at_every_position():
    """FirstCharacter keeps only the terminals that can start with the character, in order: at every position of
    every file, in every state's lexer, it matches what the whole expression matches (the type and the end). Where
    it gives a run to scan, the whole expression matches that terminal over exactly the run."""
    tables = kite_tables()
    lexers = {id(row[0]): row for row in tables.lexers.values()}.values()
    positions, scanned = 0, Counter()
    for _path, text in texts()[::4]:
        for pos in range(0, len(text), 3):
            code = ord(text[pos])
            if code >= lalr.ASCII:
                continue
            for whole, _keywords, by_first, first_character in lexers:
                made, expected = by_first[code] or first_character(code), whole(text, pos)
                if isinstance(made, tuple):
                    type_, _, tail = made
                    end = pos + 1
                    while end < len(text) and text[end] in tail:
                        end += 1
                    found = (type_, end)
                    scanned[type_] += 1
                else:
                    match = made(text, pos)
                    found = match and (match.lastgroup, match.end())
                assert found == (expected and (expected.lastgroup, expected.end()))
                positions += 1
    assert positions > 100_000 and min(scanned["NAME"], scanned["__IGNORE_0"], scanned["LPAR"]) > 1_000, scanned


@pytest.mark.parametrize(("pattern", "flags", "run"), [
    (r"[\t ]+", 0, ("\t ", "\t ")), (r" +", 0, (" ", " ")), (r"[ \t]{1,}", 0, ("\t ", "\t ")),
    (r"(?:[\t ])+", 0, ("\t ", "\t ")), (r"[A-Za-z_][A-Za-z0-9_]*", 0, ("ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz",
                                                                          "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")),
    (r"x[0-2]*", 0, ("x", "012")),
    (r"[\t ]*", 0, None), (r"[\t ]+?", 0, None), (r"[\t ]{1,4}", 0, None), (r"[ \u00a0]+", 0, None), (r"\s+", 0, None),
    (r"[ab]+", 2, None), (r"[\t ]+x", 0, None), (r"[^a]+", 0, None), (r"x[0-2]+", 0, None), (r"x[0-2]*?", 0, None),
    (r"x\d*", 0, None), (r"xy*", 2, None), (r"(?:x|y)z*", 0, ("xy", "z")), (r"x", 0, ("x", "")), (r"\(", 0, ("(", "")),
    (r"[*/%]", 0, ("%*/", "")), (r"xy", 0, None), (r"\d", 0, None), (r"[^x]", 0, None), (r"x|yz", 0, None), (r"\b", 0, None),
])
def test_a_run_to_scan_is_some_ascii_characters_then_any_number_of_others_or_one_alone(pattern, flags, run):
    """_run_of: a pattern the loops may scan character by character, not match (2: re.IGNORECASE)."""
    assert lalr._run_of(pattern, flags) == run


@pytest.mark.parametrize(("pattern", "first"), [
    (r"[A-Za-z_][A-Za-z0-9_]*", "ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"),
    ("(?:(?:\r?\n[\t ]*|#[^\n]*))+", "\n\r#"),
    (r"==|!=|<|<=", "!<="),
    (r"a?(?>b|c)", "abc"),
    (r"\b(?=x)x\d", "x"),
    (r"[0-9](_?[0-9])*", "0123456789"),
])
def test_a_terminals_first_characters(pattern, first):
    assert lalr._first_characters(pattern, 0) == frozenset(map(ord, first))


@pytest.mark.parametrize("pattern", [r"x*", r"(?i:ab)", r"(a)?(?(1)b|c)", r"a|"])
def test_what_first_characters_cannot_tell_is_every_character(pattern):
    # matching the empty text, a flag set inside, a reference to a group: no character may be left out
    assert lalr._first_characters(pattern, 0) == lalr.EVERY_CHARACTER


def test_the_nodes_c_init_makes_what_the_dataclasses_init_makes(monkeypatch):
    """kite.syntax._nodes's __init__ (installed where built) against each class's own: every file's AST, each node's
    attributes in the same order, and the same refusals."""
    import os
    import sys

    from kite.syntax import nodes as n

    if not os.environ.get("KITE_PYTHON_LOOP_ONLY"):
        assert "kite.syntax._nodes" in sys.modules and n.Binary.__init__ is not n.DATACLASS_INITS[n.Binary]
    sources = [SourceFile(path, text) for path, text in texts()[::2]]
    made = [read_syntax(source).module for source in sources]
    for cls, init in n.DATACLASS_INITS.items():
        monkeypatch.setattr(cls, "__init__", init)
    assert [shape(module) for module in made] == [shape(read_syntax(source).module) for source in sources]
    dataclass_made = [read_syntax(source).module for source in sources]
    monkeypatch.undo()
    for ours, theirs in zip(made, dataclass_made):
        if ours is not None:
            assert [list(vars(node)) for node in n.descendants(ours)] == [list(vars(node)) for node in n.descendants(theirs)]
    for call in (lambda: n.Binary(1, 2), lambda: n.Binary(1, 2, "+", None, None, None), lambda: n.Name(1, 2, "x", y=1),
                 lambda: n.Name(1, 2, "x", name="y"), lambda: n.Let(1, 2, "x", False, None, None, 0)):
        with pytest.raises(TypeError):
            call()
    assert n.Name(3, 4, "x") == n.Name(3, 4, "x", end_line=3, end_column=4) and n.Name(3, 4, "x").end_column == 4


def test_a_node_class_called_makes_its_node_with_whatever_init_it_has(monkeypatch):
    """kite.syntax._nodes makes a node class's calls skip type.__call__'s tuple and dict: they still run the class's
    __init__ when it is not the C one any more, and only classes object.__new__ makes are taken."""
    import sys

    from kite.syntax import nodes as n

    if "kite.syntax._nodes" not in sys.modules:
        pytest.skip("compiler/syntax/_nodes.c is not built")
    from kite.syntax import _nodes  # type: ignore[attr-defined]

    calls = []

    def recorded(self, *args, **kwargs):
        calls.append((args, kwargs))
        n.DATACLASS_INITS[n.Name](self, *args, **kwargs)

    monkeypatch.setattr(n.Name, "__init__", recorded)
    assert n.Name(3, 4, "x", end_line=3, end_column=5) == n.Name(3, 4, "x") and calls[0] == ((3, 4, "x"), {"end_line": 3, "end_column": 5})
    monkeypatch.undo()
    assert n.Name(3, 4, "x", end_line=3, end_column=5).end_column == 5 and len(calls) == 2

    class Made:
        def __new__(cls):
            return super().__new__(cls)

    for refused in (int, Made, n.Name(1, 1, "x")):
        with pytest.raises(TypeError):
            _nodes.called_as_node(refused)


def test_a_namedtuple_made_in_c_is_the_one_its_own_new_makes(monkeypatch):
    """nodes.made_in_c: calls by position, defaults left out or not, make what the class's __new__ makes; keywords, a
    wrong count and a replaced __new__ go the usual way; only NamedTuple classes are taken."""
    from typing import NamedTuple

    from kite.syntax import nodes as n

    class Plain(NamedTuple):
        line: int
        text: str
        owner: str | None = None
        edge: bool = True

    @n.made_in_c
    class Quick(NamedTuple):
        line: int
        text: str
        owner: str | None = None
        edge: bool = True

    for args, kwargs in (((1, "a"), {}), ((1, "a", "o"), {}), ((1, "a", "o", False), {}), ((1,), {"text": "a", "edge": False})):
        quick, plain = Quick(*args, **kwargs), Plain(*args, **kwargs)
        assert type(quick) is Quick and tuple(quick) == tuple(plain) and quick._asdict() == plain._asdict()
    for args in ((), (1,), (1, "a", "o", True, 5)):
        with pytest.raises(TypeError):
            Quick(*args)
    made = []
    monkeypatch.setattr(Quick, "__new__", lambda cls, *args: made.append(args) or tuple.__new__(cls, (*args, None, True)))
    assert Quick(2, "b") == (2, "b", None, True) and made == [(2, "b")]
    if n._nodes is not None:
        for refused in (tuple, n.Name, int, Quick(1, "a")):
            with pytest.raises(TypeError):
                n._nodes.called_as_record(refused)


def test_the_nesting_count_in_c_is_the_pythons():
    """parser.nest (kite.syntax._nodes's where built) against parser._nest: the same level and the same depths kept,
    for children that are nodes with a depth, nodes without one, None and tokens, in tuples and lists."""
    from kite.syntax import parser

    rng = random.Random(3)
    things = [object() for _ in range(40)] + [None, Token("NAME", "x")]
    for _ in range(500):
        known = {id(thing): rng.randint(0, 120) for thing in rng.sample(things[:40], 20)}
        node = object()
        children = rng.sample(things, rng.randint(0, 6))
        ours, theirs = dict(known), dict(known)
        assert parser.nest(ours, node, children) == parser._nest(theirs, node, tuple(children)) and ours == theirs
    with pytest.raises(TypeError):
        parser.nest({}, object(), 5)


def test_first_characters_under_the_grammars_flags_and_of_every_kind_of_item():
    import re

    assert lalr._first_characters("ab|[x-z]", re.IGNORECASE) == frozenset(map(ord, "aAxyzXYZ"))
    assert lalr._first_characters(r"\d|[^a]", 0) == lalr.EVERY_CHARACTER - {ord("a")}
    assert lalr._first_characters(r"[^\n]", 0) == lalr.EVERY_CHARACTER - {ord("\n")}
