"""The front end on every construct and on hostile input: diagnostics or a one-line error, never a traceback."""

from __future__ import annotations

import codecs
import os

import pytest

from conftest import ARTICLE, REPO, run_kite
from kite.errors import UnusableInput
from kite.pipeline import kite_layer
from kite.source import MAX_SOURCE_BYTES, MAX_SOURCE_LINES, decode
from kite.syntax import nodes as n
from kite.syntax.parser import MAX_NESTING


def kite_lines(text: str, name: str = "t.kite") -> list[str]:
    _, found = kite_layer(decode(name, text.encode()))
    return sorted(d.render() for d in found)


@pytest.mark.parametrize("path", sorted(ARTICLE.glob("*.kite")) + sorted((REPO / "samples").glob("*.kite")), ids=lambda p: p.name)
def test_every_example_and_sample_parses(path):
    syntax, _ = kite_layer(decode(path.name, path.read_bytes()))
    assert syntax.module is not None
    assert not [d for d in syntax.diagnostics if d.id == "KT000"]


def test_the_language_tour_covers_every_construct():
    syntax, found = kite_layer(decode("tour.kite", (REPO / "samples" / "language_tour.kite").read_bytes()))
    assert found == []
    seen = set()

    def visit(value):
        if isinstance(value, tuple):
            for item in value:
                visit(item)
        elif isinstance(value, n.Node):
            seen.add(type(value).__name__)
            if isinstance(value, n.Literal):
                seen.add(f"Literal:{value.kind}")
            for field in value.__dataclass_fields__:
                visit(getattr(value, field))

    visit(syntax.module)
    every_node = {name for name, value in vars(n).items() if isinstance(value, type) and issubclass(value, n.Node) and value is not n.Node}
    assert every_node - seen == set()
    assert {f"Literal:{kind}" for kind in ("int", "dec", "str", "char", "bool", "none")} <= seen


def test_bom_and_crlf_read_like_plain_lf():
    text = (ARTICLE / "mistakes.kite").read_text()
    plain = kite_lines(text)
    _, found = kite_layer(decode("t.kite", codecs.BOM_UTF8 + text.replace("\n", "\r\n").encode()))
    assert sorted(d.render() for d in found) == plain


def test_invalid_utf8_is_a_clear_error_naming_the_offset():
    with pytest.raises(UnusableInput, match=r"not valid UTF-8 \(byte 0xff at offset 13\)"):
        decode("t.kite", b"module Bytes\n\xff\n")


def test_empty_text_is_kt000_no_module():
    assert kite_lines("") == ["t.kite(1): error KT000: empty file: expected 'module Name'"]


@pytest.mark.parametrize("content", [b"", b"\x00\x01binary", b"module A\n\xc3\x28\n"], ids=["empty", "binary", "bad-utf8"])
def test_unusable_files_exit_2_with_one_line(tmp_path, content):
    (tmp_path / "bad.kite").write_bytes(content)
    result = run_kite(["check", "--layer", "kite", "bad.kite"], cwd=tmp_path)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith("kite: error: bad.kite:")


def test_missing_file_exits_2(tmp_path):
    result = run_kite(["check", "nothing.kite"], cwd=tmp_path)
    assert (result.exit_code, result.output) == (2, "kite: error: nothing.kite: no such file\n")


DEEP_TYPE = "list<" * 400 + "int" + ">" * 400
DEEP_SHAPES = {
    "parameter": f"module Deep\n\nfn f(x: {DEEP_TYPE}) -> int\n    return 1\n",
    "return": f"module Deep\n\nfn f() -> {DEEP_TYPE}\n    return []\n",
    "let": f"module Deep\n\nfn f() -> int\n    let x: {DEEP_TYPE} = []\n    return 1\n",
    "constant": f"module Deep\n\nlet x: {DEEP_TYPE} = []\n",
    "field": f"module Deep\n\ntype T\n    x: {DEEP_TYPE}\n",
    "constructed": "module Deep\n\nfn f() -> int\n    let x = " + "map<int, " * 400 + "int" + ">" * 400 + "()\n    return 1\n",
    "lambda": f"module Deep\n\nfn f() -> int\n    let g = fn(x: {DEEP_TYPE}) => 1\n    return 1\n",
    "nullable": "module Deep\n\nfn f(x: " + "set<" * 400 + "int?" + ">?" * 400 + ") -> int\n    return 1\n",
    "within_limit_plus_expression": "module Deep\n\nfn f() -> int\n    let x = " + "[" * 60 + "map<int, " * 60 + "int" + ">" * 60 + "()" + "]" * 60 + "\n    return 1\n",
    "f_string_hole_in_deep_expression": "module Deep\n\nfn f(a: int) -> str\n    return " + "[" * 60 + 'f"{' + "[" * 60 + "a" + "]" * 60 + '}"' + "]" * 60 + "\n",
    "f_string_hole_alone": 'module Deep\n\nfn f(a: int) -> str\n    return f"{' + "[" * 5000 + "a" + "]" * 5000 + '}"\n',
    "lambdas": "module Deep\n\nfn f() -> int\n    let g = " + "fn(x: int) => " * 5000 + "1\n    return 1\n",
    "member_chain": "module Deep\n\nfn f(a: str) -> int\n    return a" + ".Length" * 50_000 + "\n",
    "index_chain": "module Deep\n\nfn f(a: list<int>) -> int\n    return a" + "[0]" * 50_000 + "\n",
    "calls": "module Deep\n\nfn f(a: int) -> int\n    return " + "f(" * 5000 + "a" + ")" * 5000 + "\n",
}


@pytest.mark.parametrize("shape", sorted(DEEP_SHAPES))
def test_types_holes_and_long_chains_are_a_nesting_diagnostic_with_a_short_message(shape):
    lines = kite_lines(DEEP_SHAPES[shape])
    assert any(f"nested more than {MAX_NESTING} levels deep" in line for line in lines), lines[:3]
    assert all(len(line) < 200 for line in lines)


CHAINS = {
    "sum": " + ".join(["1"] * 100),
    "strings": " + ".join(['"s"'] * 120),
    "and": " and ".join(["true"] * 110),
    "mixed": " - ".join(["a * 2 + 1"] * 60),
}


@pytest.mark.parametrize("shape", sorted(CHAINS))
def test_a_chain_of_one_operator_is_one_level(shape):
    """LANGUAGE.md §12: the nesting limit never counts the operands of one operator; nested 95 calls deep it holds."""
    text = f"module Chains\n\nfn f(a: int) -> int\n    return a\n\nfn g(a: int) -> str\n    let x = {CHAINS[shape]}\n    return f\"{{x}}\"\n"
    assert kite_lines(text) == []
    nested = "f(" * 95 + CHAINS["sum"] + ")" * 95
    assert kite_lines(f"module Chains\n\nfn f(a: int) -> int\n    return {nested}\n") == []


def test_a_deep_type_through_every_layer_is_a_diagnostic_not_an_internal_error(tmp_path):
    (tmp_path / "deep.kite").write_text(DEEP_SHAPES["parameter"])
    result = run_kite(["check", "deep.kite"], cwd=tmp_path)
    assert result.exit_code == 1
    assert result.output.endswith("failed: 1 errors, 0 warnings\n") and "KT000" in result.output


@pytest.mark.parametrize("shape", ["parens", "unary", "sum", "lists", "blocks"])
def test_deep_nesting_is_a_diagnostic_not_a_recursion_error(shape):
    depth = 500 if shape == "blocks" else 5000  # 5,000 blocks would be 50 MB of indentation
    if shape == "parens":
        expr = "(" * depth + "1" + ")" * depth
    elif shape == "unary":
        expr = "- " * depth + "1"  # "--" would be a C# leak
    elif shape == "sum":
        expr = " + ".join(["1"] * depth)
    elif shape == "lists":
        expr = "[" * depth + "1" + "]" * depth
    if shape == "blocks":
        body = "".join("    " * (level + 1) + "if true\n" for level in range(depth)) + "    " * (depth + 1) + "pass\n"
        text = "module Deep\n\nfn f()\n" + body
    else:
        text = f"module Deep\n\nfn f() -> int\n    return {expr}\n"
    lines = kite_lines(text)
    if shape in ("parens", "sum"):
        assert lines == []  # grouping parentheses leave no node behind; a chain is one level (tests/test_chains.py)
    else:
        assert any(f"nested more than {MAX_NESTING} levels deep" in line for line in lines), lines[:3]


def test_a_file_of_exactly_the_size_limit_is_checked(tmp_path):
    # The size check at its boundary, cheaply: a real program padded with comment lines, which the front end skips
    # (one byte more is refused: tests/test_bounds.py). The parser's cost on 2 MB of code is the next test's.
    program = b"module Big\n\nfn f(x: int) -> int\n    return x * 2\n\n"
    comment = b"# " + b"x" * 97 + b"\n"  # 100 bytes a line: 21,000 lines, well under MAX_SOURCE_LINES
    padding = MAX_SOURCE_BYTES - len(program)
    data = program + comment * (padding // len(comment)) + b"#" * (padding % len(comment) - 1) + b"\n"
    assert len(data) == MAX_SOURCE_BYTES and data.count(b"\n") < MAX_SOURCE_LINES
    (tmp_path / "big.kite").write_bytes(data)
    result = run_kite(["check", "--layer", "kite", "big.kite"], cwd=tmp_path)
    assert (result.exit_code, result.output) == (0, "clean: 0 errors, 0 warnings\n")


@pytest.mark.dotnet  # the full tier: not .NET, but as slow (34-58 s of parsing), so kept out of the fast inner loop
def test_a_two_megabyte_program_is_checked(tmp_path):
    function = "fn f_{i}(x: int) -> int\n    let y = x * 2 + {i}\n    if y > 10\n        return y\n    return x\n\n"
    chunks = ["module Big\n\n"]
    i = 0
    while sum(map(len, chunks)) < 2_000_000:
        chunks.append(function.format(i=i))
        i += 1
    (tmp_path / "big.kite").write_text("".join(chunks))
    result = run_kite(["check", "--layer", "kite", "big.kite"], cwd=tmp_path)
    assert (result.exit_code, result.output) == (0, "clean: 0 errors, 0 warnings\n")


def test_a_syntax_error_does_not_hide_the_rest_of_the_file():
    text = "module Two\n\nfn f() -> int\n    let x = 1 +\n    return 1\n\nfn g()\n    let mut n = 0\n    print(n)\n"
    assert kite_lines(text) == [
        "t.kite(4): error KT000: unexpected end of line: expected an expression",
        "t.kite(8): warning KT002: 'n' is never changed: declare it with let, not let mut",
    ]


@pytest.mark.dotnet
def test_a_test_title_is_its_string_decoded_and_a_multi_line_expect_keeps_its_whole_expression(tmp_path):
    text = (
        'module Titles\n\nfn add3(a: int, b: int) -> int\n    return a + b\n\n'
        'test "title says \\"hi\\" \\\\ ok"\n    expect add3(  # the left\n        3,\n        [1][0]\n    ) == 5\n'
    )
    syntax, _ = kite_layer(decode("t.kite", text.encode()))
    [_, test] = syntax.module.items
    assert test.description == 'title says "hi" \\ ok'
    assert test.body[0].source == "add3(3, [1][0]) == 5"
    (tmp_path / "titles.kite").write_text(text)
    result = run_kite(["test", "titles.kite"], cwd=tmp_path)
    assert result.output.splitlines()[0] == 'FAIL title says "hi" \\ ok: expect add3(3, [1][0]) == 5 (left: 4, right: 5)'


def test_an_expect_s_source_ends_at_its_comment_never_at_a_hash_inside_an_f_string_hole():
    text = (
        'module Hashes\n\ntest "t"\n    expect f"{"#"}2" == "#2"  # a comment\n'
        '    expect [f"{\'#\'}{"a#b"}",  # more\n        "#"] == []\n'
    )
    syntax, _ = kite_layer(decode("t.kite", text.encode()))
    [test] = syntax.module.items
    assert [expect.source for expect in test.body] == ['f"{"#"}2" == "#2"', '[f"{\'#\'}{"a#b"}", "#"] == []']


def test_two_threads_parse_at_once():
    """`kite lsp` runs Kite's layer while its C# thread runs the front end: the parser must not be shared."""
    import threading

    from kite.source import SourceFile
    from kite.syntax.frontend import read_syntax

    text = (REPO / "samples" / "language_tour.kite").read_text()
    expected = read_syntax(SourceFile("tour.kite", text))
    results = []

    def parse_many():
        results.extend(read_syntax(SourceFile("tour.kite", text)) == expected for _ in range(20))

    threads = [threading.Thread(target=parse_many) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 60



def test_a_file_that_parses_whole_is_parsed_once_into_the_ast_item_by_item_parsing_gives(monkeypatch):
    """The whole-file parse is only a shortcut: forced down the item-by-item path, every sample reads the same,
    ends included (repr shows what == leaves out)."""
    from kite.source import read
    from kite.syntax import frontend
    from kite.syntax.parser import KiteSyntaxError

    real_parse, calls, refuse_whole_file = frontend.parse_module, [], [False]

    def parse_module(text, first_line=1):
        calls.append(first_line)
        if refuse_whole_file[0] and len(calls) == 1:
            raise KiteSyntaxError(1, 1, "forced down the item-by-item path")
        return real_parse(text, first_line)

    monkeypatch.setattr(frontend, "parse_module", parse_module)
    samples = sorted((REPO / "samples").glob("*.kite"))
    for path in samples:
        source = read(str(path))
        calls.clear(), refuse_whole_file.__setitem__(0, False)
        whole = frontend.read_syntax(source)
        assert calls == [1], path.name
        calls.clear(), refuse_whole_file.__setitem__(0, True)
        assert repr(frontend.read_syntax(source)) == repr(whole) and len(calls) > 1, path.name
    assert len(samples) > 5


def test_function_types_parse_into_their_parameters_and_result_and_become_delegates():
    """LANGUAGE.md section 12: fn(int, int) -> int, fn(str) -> bool, fn(); the C# is Func/Action; the hover says it."""
    from kite.codegen.types import csharp_type
    from kite.lsp.features import Parsed, hover

    text = (
        "module F\n\nfn apply(f: fn(int, str) -> bool, g: fn(), h: fn(list<int>), k: fn() -> fn(int) -> int?) -> fn(str)\n"
        "    return fn(s: str) => print(s)\n"
    )
    result, found = kite_layer(decode("f.kite", text.encode()))
    assert found == []
    [fn] = [item for item in result.module.items if isinstance(item, n.FnDecl)]
    f, g, h, k = (p.type for p in fn.params)
    assert (f.name, [a.name for a in f.args], f.returns.name) == ("fn", ["int", "str"], "bool")
    assert (g.args, g.returns) == ((), None)
    # qualified, so that a program's `type Func` cannot stand in for the delegate
    spelled = [csharp_type(t).replace("global::System.Func", "F").replace("global::System.Action", "A") for t in (f, g, h, k, fn.returns)]
    assert spelled == [
        "F<int, string, bool>", "A", "A<global::System.Collections.Generic.List<int>>", "F<F<int, int?>>", "A<string>"]
    assert [c.name for c in n.children(k)] == ["fn"]  # the walk reaches the result type
    shown = hover(Parsed.of("f.kite", text), 2, 4)
    assert "fn apply(f: fn(int, str) -> bool, g: fn(), h: fn(list<int>), k: fn() -> fn(int) -> int?) -> fn(str)" in shown


def test_an_item_cache_gives_what_a_fresh_read_gives_over_random_edits():
    """The language server's incremental parse (ItemCache) against a cold read, over edits that change a line, break
    one, add or remove lines: every version's syntax result is the same, diagnostics and recovery included."""
    import random

    from kite.syntax.frontend import ItemCache, read_syntax

    rng = random.Random(23)
    lines = (REPO / "samples" / "language_tour.kite").read_text().split("\n")
    cache = ItemCache()
    edits = ["    let extra = 1", "", "fn added(x: int) -> int", "        return x", "    if x is None", "x = = 1", "# a note"]
    for _ in range(120):
        at = rng.randrange(1, len(lines))
        kind = rng.choice(["change", "insert", "delete"])
        if kind == "change":
            lines[at] = rng.choice(edits)
        elif kind == "insert":
            lines.insert(at, rng.choice(edits))
        elif len(lines) > 10:
            del lines[at]
        source = decode("tour.kite", "\n".join(lines).encode())
        assert read_syntax(source, cache) == read_syntax(source)


def test_a_one_line_edit_parses_only_its_item_again():
    from kite.syntax.frontend import ItemCache, read_syntax

    functions = [f"fn f{i}(x: int) -> int\n    let y = x + {i}\n    return y * 2\n" for i in range(60)]
    text = "module Many\n\n" + "\n".join(functions)
    cache = ItemCache()
    read_syntax(decode("many.kite", text.encode()), cache)
    assert cache.parsed == 61  # the module line's item and each function
    edited = text.replace("let y = x + 30\n", "let y = x - 30\n")
    assert edited != text
    read_syntax(decode("many.kite", edited.encode()), cache)
    assert cache.parsed == 62
    read_syntax(decode("other.kite", edited.encode()), cache)  # another file has its own items
    assert cache.parsed == 123


def test_the_parser_is_built_once_and_then_read_from_the_user_s_cache(tmp_path, monkeypatch):
    from lark import Lark

    from kite.syntax.parser import cached_parser, parse_module, parser_entry

    monkeypatch.setenv("KITE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    cached_parser()
    assert parser_entry().is_file() and parser_entry().stat().st_mode & 0o077 == 0
    assert list((tmp_path / "tmp").iterdir()) == []  # nothing in the shared temp folder, where anyone could plant it

    def never_built(*_args, **_kwargs):
        raise AssertionError("the parser was built again")

    monkeypatch.setattr(Lark, "__init__", never_built)
    parser = cached_parser()
    assert parser.parse("module A\n\nfn f() -> int\n    return 1\n", start="start") is not None
    assert parse_module("module A\n\nfn f() -> int\n    return 1\n").name == "A"


class _Planted:
    def __reduce__(self):
        import pathlib

        return (pathlib.Path.mkdir, (pathlib.Path(os.environ["KITE_CACHE_DIR"]) / "planted-code-ran",))


@pytest.mark.parametrize("signed", ["no MAC", "another key's MAC"])
def test_a_planted_parser_entry_is_never_loaded_and_is_replaced(tmp_path, monkeypatch, signed):
    import hashlib
    import hmac
    import pickle

    from kite.syntax.parser import cached_parser, parser_entry

    monkeypatch.setenv("KITE_CACHE_DIR", str(tmp_path))
    entry = parser_entry()
    entry.parent.mkdir(parents=True)
    payload = pickle.dumps(_Planted())
    mac = hmac.digest(b"k" * 32, payload, "sha256") if signed == "another key's MAC" else b"\0" * hashlib.sha256().digest_size
    entry.write_bytes(mac + payload)
    entry.chmod(0o600)  # this user's own file: only the MAC tells it was not kite's
    parser = cached_parser()
    assert not (tmp_path / "planted-code-ran").exists()
    assert parser.parse("module A\n", start="start") is not None
    assert pickle.dumps(_Planted()) not in entry.read_bytes()


def test_the_hover_shows_a_function_typed_parameter_and_a_lambda_typed_by_where_it_is_passed():
    """A lambda without parameter types takes them from the function type of its place (a parameter, a typed let,
    a list's element), as C# does: the hover says fn(int) -> int, never fn(unknown)."""
    from kite.lsp.features import Parsed, hover

    text = (
        "module F\n\nfn apply(f: fn(int) -> int, x: int) -> int\n    return f(x)\n\n"
        "fn each(xs: list<int>, act: fn(int))\n    for x in xs\n        act(x)\n\n"
        "fn main()\n    print(apply(fn(n) => n + 1, 2))\n    let fs: list<fn(str) -> bool> = [fn(s) => len(s) > 0]\n"
        "    each([1], fn(n) => print(n))\n"
    )
    parsed = Parsed.of("f.kite", text)
    lines = text.split("\n")
    def shown(line: int, word: str) -> str:
        return hover(parsed, line, lines[line].index(word)) or ""
    assert "f: fn(int) -> int\n```\nparameter" in shown(3, "f(x)")
    assert "fn(n) => n + 1: fn(int) -> int" in shown(10, "fn(n)")
    assert "n: int" in shown(10, "n + 1")
    assert "fn(s) => len(s) > 0: fn(str) -> bool" in shown(11, "fn(s)")
    assert "fn(n) => print(n): fn(int)\n" in shown(12, "fn(n)")  # an action's lambda gives nothing


def test_two_function_types_that_differ_only_in_their_result_are_not_one_type():
    from kite.analyze import gather
    from kite.syntax.frontend import read_syntax

    text = "module F\n\nfn a(x: int) -> int\n    return x\n\nfn b(x: int) -> str\n    return to_str(x)\n\nfn main()\n    let fs = [a, b]\n    let gs = [a, a]\n"
    facts = gather(read_syntax(decode("f.kite", text.encode())).module)
    types = {b.name: b.type for b in facts.bindings}
    assert types["fs"].args == ()  # no element type: neither fn(int) -> int nor fn(int) -> str
    assert types["gs"].args[0].returns.name == "int"
