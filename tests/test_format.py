"""kite.format and `kite fmt`: each layout rule of docs/format.md as an exact case, the guarantees over every program
in the repo and over generated ones, the parse gate that must never let a syntax error through, and the command."""

from __future__ import annotations

import codecs
import os
import re

import pytest
from format_corpus import assert_only_layout_moved, corpus, parsed, programs, shape
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from conftest import REPO, run_kite
from kite.format import NotKite, format_bytes, format_text, gate, tokens
from kite.syntax.parser import grammar_text

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CORPUS = corpus()


def fmt(text: str) -> str:
    return format_text(text, "case.kite")


def module(body: str) -> str:
    return "module Case\n\n" + body


# ---- each rule, exactly (docs/format.md has the same examples)

CASES = {
    "spaces around operators, = and arrows": (
        "fn f(a:int,b :int)->int\n    let c=a+b*2\n    c+=1\n    let g=fn(x)=>x>=a and not(b<=c)\n    return c\n",
        "fn f(a: int, b: int) -> int\n    let c = a + b * 2\n    c += 1\n    let g = fn(x) => x >= a and not (b <= c)\n    return c\n",
    ),
    "none inside brackets, before , : ) ], or between a name and (": (
        "fn f( xs : list < int > , m:map<str,int> ) -> int ?\n    return g ( xs [ 0 ] , [ 1 , 2 ] ) . Count\n",
        "fn f(xs: list<int>, m: map<str, int>) -> int?\n    return g(xs[0], [1, 2]).Count\n",
    ),
    "unary minus binds to its operand; two stay apart": (
        "fn f(a: int) -> int\n    return - a - - 1 * -(a)\n",
        "fn f(a: int) -> int\n    return -a - -1 * -(a)\n",
    ),
    "a type's closing > before =": (
        "let table: map<str, int>= map<str,int>( )\n",
        "let table: map<str, int> = map<str, int>()\n",
    ),
    "no trailing whitespace, one newline at the end": (
        "fn f()   \n    pass  \n\n\n",
        "fn f()\n    pass\n",
    ),
    "one blank line between items; constants and uses may stand together": (
        "use System\nuse System.Text\nlet a = 1\n\n\n\nlet b = 2\nfn f()\n    pass\ntype T\n    x: int\n",
        "use System\nuse System.Text\n\nlet a = 1\n\nlet b = 2\n\nfn f()\n    pass\n\ntype T\n    x: int\n",
    ),
    "no blank line after a header, at most one inside a block": (
        "fn f()\n\n    a()\n\n\n    if x\n\n        b()\n    c()\n",
        "fn f()\n    a()\n\n    if x\n        b()\n    c()\n",
    ),
    "own-line comments at their block's indentation, end-of-line comments two spaces after the code": (
        "fn f()\n# first\n    a() # why\n  # deeper thought\n        # inside the if? no: no if\n    b()\n",
        "fn f()\n    # first\n    a()  # why\n    # deeper thought\n    # inside the if? no: no if\n    b()\n",
    ),
    "a comment after a block stays in it when indented so, else goes to the next line's level": (
        "fn f()\n    if x\n        a()\n        # end of the if\n    # after the if\n    b()\n# before g, at the top\nfn g()\n    pass\n",
        "fn f()\n    if x\n        a()\n        # end of the if\n    # after the if\n    b()\n\n# before g, at the top\nfn g()\n    pass\n",
    ),
    "a line that fits is joined, its trailing comma gone": (
        "fn f(\n    a: int,\n    b: int,\n) -> int\n    return add(a,\n               b)\n",
        "fn f(a: int, b: int) -> int\n    return add(a, b)\n",
    ),
    "a long line breaks inside its outermost bracket, one argument a line, with a trailing comma": (
        "fn f()\n    let report = build_report(first_argument_name, second_argument_name, third_argument_name, fourth_argument)\n",
        "fn f()\n    let report = build_report(\n        first_argument_name,\n        second_argument_name,\n        third_argument_name,\n        fourth_argument,\n    )\n",
    ),
    "an element still too long breaks inside its own bracket": (
        "fn f()\n    print(combine(first_argument_name, second_argument_name, third_argument_name, fourth_argument_name), other_value)\n",
        ("fn f()\n    print(\n        combine(\n            first_argument_name,\n            second_argument_name,\n            third_argument_name,\n"
        "            fourth_argument_name,\n        ),\n        other_value,\n    )\n"),
    ),
    "a long header breaks its parameters; the block follows": (
        "fn a_long_function_name(first_parameter: list<int>, second_parameter: map<str, int>) -> map<str, int>\n    pass\n",
        "fn a_long_function_name(\n    first_parameter: list<int>,\n    second_parameter: map<str, int>,\n) -> map<str, int>\n    pass\n",
    ),
    "a comment inside brackets keeps them broken, each element on its line": (
        "fn f()\n    let xs = [1, # one\n        2]\n",
        "fn f()\n    let xs = [\n        1,  # one\n        2,\n    ]\n",
    ),
    "an own-line comment inside brackets goes before its element": (
        "fn f()\n    g(a,\n      # about b\n      b)\n",
        "fn f()\n    g(\n        a,\n        # about b\n        b,\n    )\n",
    ),
    "an index and a parenthesized expression take no trailing comma when broken": (
        "fn f()\n    let x = table[a_very_long_key_name_for_the_table + another_very_long_key_name_to_add + third_key_name]\n",
        "fn f()\n    let x = table[\n        a_very_long_key_name_for_the_table + another_very_long_key_name_to_add + third_key_name\n    ]\n",
    ),
    "a lambda's parameters take one": (
        "fn f()\n    g(fn(first_parameter_name, second_parameter_name, third_parameter_name, fourth_parameter_name) => 1)\n",
        ("fn f()\n    g(\n        fn(\n            first_parameter_name,\n            second_parameter_name,\n            third_parameter_name,\n"
        "            fourth_parameter_name,\n        ) => 1,\n    )\n"),
    ),
    "string and char literals never change; a line that cannot break stays long": (
        "fn f()\n    print(f\"{ a }  {join(xs,\", \")}\" + 'x' + \"  spaced   out  \" + \"long text that goes on and on and on past the edge\")\n",
        "fn f()\n    print(\n        f\"{ a }  {join(xs,\", \")}\" + 'x' + \"  spaced   out  \" + \"long text that goes on and on and on past the edge\",\n    )\n",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_each_layout_rule(name):
    before, after = CASES[name]
    assert fmt(module(before)) == module(after)
    assert fmt(module(after)) == module(after)


def test_the_module_line_and_the_comments_above_it():
    assert fmt("\n\n# A program.\n\n\n# More.\nmodule Case\nuse System\n") == "# A program.\n\n# More.\nmodule Case\n\nuse System\n"


def test_the_docs_show_each_rule_with_its_example():
    """docs/format.md's examples are these cases: each `before` block is formatted into the `after` block below it."""
    text = (REPO / "docs" / "format.md").read_text()
    pairs = re.findall(r"```kite\n(.*?)```\n\nbecomes\n\n```kite\n(.*?)```", text, re.DOTALL)
    assert len(pairs) == 8
    for before, after in pairs:
        assert fmt(before) == after


# ---- the guarantees over every program in the repo


@pytest.mark.parametrize("path", [path for path, _ in CORPUS])
def test_every_program_in_the_repo_formats_to_the_same_program(path):
    text = dict(CORPUS)[path]
    syntax = parsed(text)
    if syntax.diagnostics:
        with pytest.raises(NotKite) as refused:
            fmt(text)
        first = min(syntax.diagnostics, key=lambda d: (d.line, d.layer, d.column))
        assert refused.value.diagnostic.line == first.line
        return
    once = fmt(text)
    assert_only_layout_moved(text, once)
    assert fmt(once) == once


def test_the_corpus_is_big_enough_to_mean_something():
    usable = [text for _, text in CORPUS if not parsed(text).diagnostics]
    assert len(CORPUS) > 150 and len(usable) > 120


@SETTINGS
@given(programs())
def test_generated_programs_format_to_the_same_program(text):
    syntax = parsed(text)
    assert not syntax.diagnostics, f"the generator wrote a program that does not parse: {syntax.diagnostics[0].render()}\n{text}"
    once = fmt(text)
    assert_only_layout_moved(text, once)
    assert fmt(once) == once


def applied(text: str, edits) -> str:
    """Editor edits (0-based rows and columns) applied to `text`."""
    lines = text.split("\n")
    offsets = [sum(len(line) + 1 for line in lines[:row]) for row in range(len(lines) + 1)]
    for span, new in sorted(edits, key=lambda edit: (edit[0].line, edit[0].column), reverse=True):
        start, end = offsets[span.line] + span.column, offsets[span.end_line] + span.end_column
        text = text[:start] + new + text[end:]
    return text


@SETTINGS
@given(programs(), st.data())
def test_formatting_any_range_formats_those_lines_and_changes_nothing_else(text, data):
    """The language server's rangeFormatting: the edits of the lines a range touches, applied alone, leave a program
    that means the same, and the whole document's edits give kite fmt's text."""
    from kite.lsp.features import formatting_edits

    edits = formatting_edits("p.kite", text)
    assert applied(text, edits) == fmt(text)
    rows = text.count("\n") + 1
    first = data.draw(st.integers(0, rows - 1))
    some = formatting_edits("p.kite", text, range(first, data.draw(st.integers(first, rows - 1)) + 1))
    assert all(edit in edits for edit in some)
    part = parsed(applied(text, some))
    assert not part.diagnostics and shape(part.module) == shape(parsed(text).module)
    assert fmt(applied(text, some)) == fmt(text)


# ---- the gate: a quick "it parses" may only be said when the parser agrees

GRAMMAR = from_lark(
    Lark(grammar_text(), parser="lalr", start="start"), start="start",
    explicit={"_INDENT": st.just("    "), "_DEDENT": st.just(""), "_NL": st.sampled_from(["\n", "\n    ", "  # c\n"])},
)


def gate_agrees(text: str) -> None:
    if gate.parses(tokens.read(text)):
        syntax = parsed(text)
        assert not syntax.diagnostics, f"the gate let a syntax error through: {syntax.diagnostics[0].render()}\n{text}"


@st.composite
def broken(draw):
    """A program from the repo or the generator with one token dropped, doubled or swapped with its neighbour."""
    text = draw(st.one_of(st.sampled_from([t for _, t in CORPUS]), programs()))
    spots = [m for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*|[0-9.]+|\S", text)]
    match = draw(st.sampled_from(spots))
    how = draw(st.sampled_from(["drop", "double", "swap", "colon", "indent"]))
    start, end = match.span()
    if how == "drop":
        return text[:start] + text[end:]
    if how == "double":
        return text[:end] + " " + match.group() + text[end:]
    if how == "colon":
        return text[:end] + ":" + text[end:]
    if how == "indent":
        return text[:start] + "  " + text[start:]
    later = next((m for m in spots if m.start() > end), None)
    assume(later is not None)
    return text[:start] + later.group() + text[end:later.start()] + match.group() + text[later.end():]


@SETTINGS
@given(broken())
def test_the_gate_never_passes_a_broken_program(text):
    gate_agrees(text)


@SETTINGS
@given(GRAMMAR)
def test_the_gate_never_passes_what_the_parser_refuses_from_the_grammar(text):
    gate_agrees(text)


def test_the_gate_says_yes_to_almost_every_program_in_the_repo():
    """Saying "not sure" costs only speed, but the speed is the point of it."""
    usable = [text for _, text in CORPUS if not parsed(text).diagnostics]
    sure = [text for text in usable if gate.parses(tokens.read(text))]
    assert len(sure) >= 0.95 * len(usable)


@pytest.mark.parametrize("text", [
    "module A\nfn f()\n    let fn = 1\n",  # a keyword as a name
    "module A\nfn f()\n    return a < b < c\n",  # comparisons do not chain
    "module A\nfn f()\n    x\n        y\n",  # a block after a line that opens none
    "module A\nfn f()\n    return \"\\q\"\n",  # an unknown escape
    "module A\nfn f()\n    return f\"{}\"\n",  # an empty hole
    "module A\nfn f()\n    return - not a\n",
    "module A\nfn f()\n    return a + not b\n",
    "module A\nfn f()\n  pass\n",
    "module A\nlet mut x = 1\n",
    "module A\nfn f()\n    return " + "- " * 120 + "1\n",  # nested too deep: the parser counts it
])
def test_the_gate_is_not_sure_of_what_the_parser_refuses(text):
    assert not gate.parses(tokens.read(text))


def test_brackets_nested_far_beyond_any_layout_are_written_on():
    deep = "module A\n\nfn f()\n    return g(" + "(" * 400 + "x  # deep\n" + ")" * 400 + ")\n"
    once = fmt(deep)
    assert_only_layout_moved(deep, once)
    assert fmt(once) == once


def test_every_operator_of_the_grammar_reads_as_one_token():
    """The tokenizer's operators are written out (longest first); each of the grammar's must be there."""
    from lark.lexer import PatternStr

    from kite.syntax.parser import lark_parser

    strings = set()
    for terminal in lark_parser().terminals:
        pattern = terminal.pattern
        if isinstance(pattern, PatternStr) and not pattern.value.isalpha():
            strings.add(pattern.value)
        elif re.fullmatch(r"\(\?:[^()\w]+\)", pattern.value):  # "==" | "!=" | ...: an alternation of strings
            strings.update(re.sub(r"\\(.)", r"\1", option) for option in pattern.value[3:-1].split("|"))
    assert {"->", "=>", "+=", "==", "<=", "%", ",", "?"} <= strings
    for text in strings:
        assert [t.text for t in tokens.tokens_of(f"a {text} b")] == ["a", text, "b"], text


# ---- bytes: BOM and line ends kept


@pytest.mark.parametrize("bom", [b"", codecs.BOM_UTF8])
@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_a_bom_and_crlf_are_kept(bom, end):
    data = bom + end.join([b"module Case", b"fn f( )", b"    pass  ", b"", b""])
    assert format_bytes(data, "case.kite") == bom + end.join([b"module Case", b"", b"fn f()", b"    pass", b""])


def test_text_that_is_not_kite_is_refused_with_its_first_error():
    with pytest.raises(NotKite) as refused:
        fmt("module A\n\nfn f()\n    var x = 1\n    return +\n")
    assert refused.value.diagnostic.render() == "case.kite(4): error KT004: 'var' is C#, not Kite"


# ---- kite fmt


def files(folder, **texts):
    for name, text in texts.items():
        (folder / name).write_bytes(text.encode() if isinstance(text, str) else text)


MESSY = "module Messy\nfn f( a:int )->int\n    return a+1\n"
NEAT = "module Messy\n\nfn f(a: int) -> int\n    return a + 1\n"
BROKEN = "module Broken\n\nfn f(a: int) -> int\n    return a +\n"


def test_fmt_writes_the_files_it_changes_and_leaves_a_syntax_error_alone(tmp_path):
    files(tmp_path, **{"messy.kite": MESSY, "broken.kite": BROKEN, "neat.kite": NEAT.replace("Messy", "Neat")})
    os.chmod(tmp_path / "messy.kite", 0o640)
    result = run_kite(["fmt", "."], cwd=tmp_path)
    assert result.exit_code == 1
    assert "broken.kite(4): error KT000: unexpected end of line: expected an expression (not formatted)" in result.output
    assert (tmp_path / "messy.kite").read_text() == NEAT
    assert (tmp_path / "broken.kite").read_text() == BROKEN
    assert os.stat(tmp_path / "messy.kite").st_mode & 0o777 == 0o640
    assert "1 file formatted, 1 unchanged" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.kite", "messy.kite", "neat.kite"]  # no temporary left


def test_fmt_check_lists_what_would_change_and_writes_nothing(tmp_path):
    files(tmp_path, **{"messy.kite": MESSY, "neat.kite": NEAT.replace("Messy", "Neat")})
    result = run_kite(["fmt", "--check", "."], cwd=tmp_path)
    assert result.exit_code == 1 and result.stdout == "messy.kite\n"
    assert (tmp_path / "messy.kite").read_text() == MESSY
    assert run_kite(["fmt", "--check", "neat.kite"], cwd=tmp_path).exit_code == 0


def test_fmt_diff_prints_a_unified_diff(tmp_path):
    files(tmp_path, **{"messy.kite": MESSY})
    result = run_kite(["fmt", "--diff", "messy.kite"], cwd=tmp_path)
    assert result.exit_code == 1 and (tmp_path / "messy.kite").read_text() == MESSY
    assert result.stdout == (
        "--- messy.kite (as written)\n+++ messy.kite (formatted)\n@@ -1,3 +1,4 @@\n module Messy\n-fn f( a:int )->int\n-    return a+1\n"
        "+\n+fn f(a: int) -> int\n+    return a + 1\n"
    )


def test_fmt_reads_stdin_and_names_it_in_messages(tmp_path):
    from click.testing import CliRunner

    from kite.cli.main import main

    done = CliRunner().invoke(main, ["fmt", "-"], input=MESSY.encode())
    assert done.exit_code == 0 and done.stdout == NEAT
    refused = CliRunner().invoke(main, ["fmt", "-", "--stdin-filename", "editor.kite"], input=BROKEN.encode())
    assert refused.exit_code == 1 and refused.stdout == ""
    assert refused.stderr.startswith("editor.kite(4): error KT000: ")
    assert CliRunner().invoke(main, ["fmt", "--check", "-"], input=NEAT.encode()).exit_code == 0


def test_fmt_says_which_file_it_cannot_use_and_formats_the_others(tmp_path):
    files(tmp_path, **{"messy.kite": MESSY, "empty.kite": "", "binary.kite": b"module A\x00"})
    result = run_kite(["fmt", "."], cwd=tmp_path)
    assert result.exit_code == 2
    assert "kite: error: binary.kite: binary file" in result.output and "kite: error: empty.kite: empty file" in result.output
    assert (tmp_path / "messy.kite").read_text() == NEAT


@pytest.mark.parametrize("args, message", [
    (["fmt", "-", "x.kite"], "- (stdin) is formatted alone"),
    (["fmt", "--stdin-filename", "x.kite", "x.kite"], "--stdin-filename goes with -"),
    (["fmt", "missing.kite"], "missing.kite: no such file"),
])
def test_fmt_refuses_unusable_arguments_in_one_line(tmp_path, args, message):
    result = run_kite(args, cwd=tmp_path)
    assert result.exit_code == 2 and message in result.output


def test_fmt_has_help():
    result = run_kite(["fmt", "--help"], cwd=REPO)
    assert result.exit_code == 0 and "--check" in result.output and "--stdin-filename" in result.output


def test_the_samples_are_formatted():
    """What the repo teaches Kite with is in Kite's layout."""
    result = run_kite(["fmt", "--check", "samples"], cwd=REPO)
    assert result.exit_code == 0, result.stdout
