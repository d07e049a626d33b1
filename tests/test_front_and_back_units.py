"""The layout pass, the leak scanner, the analyzer and the code generator called as plain functions."""

from __future__ import annotations

import re

from conftest import REPO
from kite.analyze import gather
from kite.codegen.csharp import WHOLE_LINE, UnitSymbols, generate, span_marker
from kite.codegen.types import CSHARP_KEYWORDS
from kite.rules import kt004_csharp_leak, kt007_sandbox, kt012_text_join, kt016_list_literal_is_a_list
from kite.syntax import layout, leaks, nodes as n
from kite.syntax.foreign import BLOCK_STATEMENTS, NOT_KITE_STATEMENTS
from kite.syntax.parser import parse_module

# ---- layout


def test_layout_reports_tabs_and_odd_widths_and_makes_the_lines_consistent():
    found = layout.check("module A\n\nfn f()\n\tif x\n        pass\n")
    assert found.problems == ((4, 1, "tabs are not allowed in indentation: use 4 spaces"),)
    assert found.lines[3:5] == ("    if x", "        pass")
    assert [(line.first, line.indent, line.opens_block) for line in found.logical] == [(1, 0, False), (3, 0, True), (4, 4, True), (5, 8, False)]


def test_layout_joins_the_lines_of_an_open_bracket_into_one_logical_line():
    found = layout.check("module A\n\nfn f()\n    let xs = [1,\n        2]\n    g(xs,\n        1)\n    return xs\n")
    assert found.problems == ()
    assert [(line.first, line.last) for line in found.logical][2:] == [(4, 5), (6, 7), (8, 8)]


def test_layout_reads_a_header_only_where_a_header_word_starts_the_line():
    """check asks header_keyword only of lines whose first letter is in HEADER_STARTS: every header's is."""
    keywords = [alternative.split("\\")[0] for alternative in layout.HEADER.pattern.strip("()").split("|")]
    assert {keyword[0] for keyword in keywords} == layout.HEADER_STARTS
    for keyword in keywords:
        found = layout.check(f"module A\n\n{keyword} x\n    pass\n")
        assert (found.problems, found.logical[1].opens_block) == ((), True), keyword


def test_layout_lets_another_language_s_block_statement_keep_its_body_but_not_a_plain_line():
    for word in sorted(BLOCK_STATEMENTS):
        assert layout.check(f"module A\n\nfn f()\n    {word} x\n        pass\n").problems == (), word
    assert layout.check("module A\n\nfn f()\n    let x = 1\n        let y = 2\n").problems == ((5, 1, "unexpected indent"),)


# ---- leak scanner


def test_the_leak_scanner_reports_each_token_where_it_is_written_and_recovers_kite():
    scan = leaks.scan('module A\nfn f()\n    var x = new List();\n    if (a && !b) { }\n    else  if c\n    print(nameof(x)) // done\n')
    assert [(leak.token, leak.line, leak.column, leak.end_column) for leak in scan.leaks] == [
        ("var", 3, 5, 8), ("new", 3, 13, 16), (";", 3, 23, 24), ("&&", 4, 11, 13), ("!", 4, 14, 15), ("{", 4, 18, 19),
        ("}", 4, 20, 21), ("else if", 5, 5, 13), ("nameof", 6, 11, 17), ("//", 6, 22, 24),
    ]
    assert scan.recovered_text.splitlines()[2:] == ["    let mut x =  List()", "    if (a  and  not b)", "    elif c", "    print(to_str(x)) # done"]


def test_the_leak_scanner_skips_strings_chars_and_comments():
    scan = leaks.scan("module A\nfn f()\n    let s = \"var x = 1;\" + 'x' # var; {}\n")
    assert scan.leaks == ()


def test_the_whole_text_leak_scan_is_the_scan_of_each_line():
    """scan() searches the whole text for a suspect line: the same leaks, line numbers and recovery as each line
    scanned on its own, whether the suspect is on the first line, the last (with or without a line end), on lines
    in a row, or on none."""
    lines = ["var a = 1;", "fn f()", "    x++", "    y--", "", "    let s = \"x;\" # {", "    if a && b", "    if a != b", "    else",
             "    else  if c", "    elif !c", "    x!=!y", "    let ok = x!", "var z = 2;"]
    texts = ["\n".join(lines), "\n".join(lines) + "\n", "\n".join(lines[1:5]), "module A\nfn f()\n    pass\n", "", "\n;\n"]
    for text in texts:
        by_line = [leaks.scan_line(number, line) for number, line in enumerate(text.split("\n"), start=1)]
        scan = leaks.scan(text)
        assert scan.leaks == tuple(leak for found, _ in by_line for leak in found), text
        assert scan.recovered_text == "\n".join(recovered.rstrip() if found else line for (found, recovered), line in zip(by_line, text.split("\n"))), text


def test_the_symbols_only_search_is_taken_only_where_no_suspect_word_is():
    """scan searches for SUSPECT's symbols alone in an ASCII text without any of its words: the same leaks either way,
    whether a word is there (or `else if`, or a non-ASCII character around a word), or only symbols, or neither."""
    texts = ["module A\nfn f()\n    pass\n", "module A\nfn f()\n    x = a && b;\n", "module A\nfn f()\n    var x = 1\n",
             "module A\nfn f()\n    if a\n        pass\n    else  if b\n        pass\n", "module A\nlet x = «null»\n",
             "module A\n\u00a0var x = 1 # é\n", "module A\nlet s = f\"{x}\"\n", "module A\nlet elsewhere = 1\n"]
    for text in texts:
        by_line = [leaks.scan_line(number, line) for number, line in enumerate(text.split("\n"), start=1)]
        assert leaks.scan(text).leaks == tuple(leak for found, _ in by_line for leak in found), text
    assert leaks._suspect_search(texts[1]) == leaks.SUSPECT_SYMBOL.search
    assert all(leaks._suspect_search(text) == leaks.SUSPECT.search for text in texts[2:6])


def test_the_suspect_search_finds_a_word_exactly_where_word_boundaries_around_it_do():
    """SUSPECT spells `\\b(?:word|...)\\b` first letter first, and each symbol as its own literal, for speed: a match
    at the same places, every word and symbol among letters, digits, non-ASCII letters, line starts and ends."""
    import re

    plain = re.compile(r"[;{}&|$]|!(?!=)|\+\+|--|//|\b(?:" + "|".join(leaks.SUSPECT_WORDS) + r")\b")
    words = [word.replace("[ \\t]+", " ") for word in leaks.SUSPECT_WORDS] + [";", "{", "}", "&", "|", "$", "!", "!=", "++", "--", "//", "+", "-", "/"]
    around = ["", " ", "x", "_", "1", "é", ".", "(", "\n", "\t"]
    texts = [f"{before}{word}{after}" for word in words for before in around for after in around]
    texts += [path.read_text() for path in REPO.glob("samples/*.kite")]
    for text in texts:
        assert [m.start() for m in leaks.SUSPECT.finditer(text)] == [m.start() for m in plain.finditer(text)], text


def test_code_only_passes_a_line_without_quotes_or_comment_through_and_takes_them_out_of_others():
    assert layout.code_only("    f(a[1], b)") == "    f(a[1], b)"
    assert layout.code_only('f("(", x) # )', keep_columns=True) == "f(   , x) "
    assert layout.code_only("f('[') # ]") == "f() "
    assert layout.bracket_delta('f("(", g(x)') == 1


def test_code_only_finds_an_f_string_where_the_f_starts_no_name():
    """LITERAL_OR_COMMENT checks the character before `f"` after the f, for speed: the same as looking before it."""
    plain = re.compile(r'(?<![A-Za-z0-9_])f"|"|\'|#')
    texts = [f"{before}f{quote}x{after}" for before in ["", " ", "x", "_", "1", "é", "(", "f"] for quote in "\"'"
             for after in ['"', "'", "#", "{", " # f\"", ""]]
    for text in texts:
        assert [m.start() for m in layout.LITERAL_OR_COMMENT.finditer(text)] == [m.start() for m in plain.finditer(text)], text


def test_every_token_kt004_names_is_one_the_scanner_reports():
    lines = {
        "else if": "    else if x", '$"': '    let s = $"a"', "!": "    let b = !a", "nameof(...)": "    f(nameof(x))",
    }
    for token in leaks.leaked_tokens():
        line = lines.get(token, f"    {token} x" if token.isalpha() else f"    a {token} b")
        if token in leaks.MODIFIERS:
            line = f"    {token} int x"
        if token in leaks.CSHARP_TYPES:  # LANGUAGE.md §12: KT004 only where a type is written
            line = f"    let x: {token} = y"
        written = token.removesuffix("(...)")
        if token.endswith("<...>"):  # a delegate is reported as written, with its type arguments
            written = token.replace("...", "int, int")
            line = f"    let f: {written} = g"
        reported = [leak.token for leak in leaks.scan(line).leaks]
        assert written in reported, (token, line, reported)
    assert ", ".join(leaks.leaked_tokens()) in kt004_csharp_leak.RULE.summary


def test_leaked_words_are_c_sharp_s_words_and_no_kite_statement_word_is_kite_s():
    from kite.syntax.parser import kite_keywords

    assert set(leaks.LEAKED_WORDS) | set(leaks.LEAKED_CALLS) <= CSHARP_KEYWORDS
    assert not NOT_KITE_STATEMENTS & kite_keywords()


# ---- analyzer


def test_the_analyzer_gathers_what_the_rules_read():
    module = parse_module(
        "module A\n\nfn f(xs: list<int>) -> int\n    let total = 0\n    total = 1\n    let mut count = 0\n"
        "    for x in xs\n        let total = x\n    len(xs)\n    expect true\n    return xs.Sum(fn(a) => xs.Sum(fn(b) => a + b))\n"
    )
    facts = gather(module)
    [illegal] = facts.illegal_assignments
    assert (illegal.name, illegal.kind, illegal.target.line, illegal.target.column, illegal.target.end_column) == ("total", "let", 5, 5, 10)
    assert [(b.name, b.kind, b.changed) for b in facts.bindings if b.kind in ("let", "mut")] == [("total", "let", False), ("count", "mut", False), ("total", "let", False)]
    assert [(new.name, new.line, earlier.line) for new, earlier in facts.redeclared] == [("total", 8, 4)]
    assert [d.expr.func.name for d in facts.discarded] == ["len"]
    assert [(type(where).__name__, message) for where, message in facts.misplaced] == [("Expect", "'expect' belongs in a test block")]
    assert [(lambda_.column, depth) for lambda_, depth in facts.lambdas] == [(19, 1), (35, 2)]


# ---- code generator


def csharp_of(text: str) -> str:
    module = parse_module(text)
    return generate(module, "a.kite", UnitSymbols.of([module], ["a.kite"]))


def test_each_statement_s_line_maps_whole_to_the_statement():
    csharp = csharp_of("module A\n\nfn f(xs: list<int>) -> int\n    let total = len(xs)\n    return total\n")
    assert '#line (3, 4) - (3, 4) 65536 "a.kite"\n    public static int f(global::System.Collections.Generic.List<int> xs)' in csharp
    assert f'#line (4, 9) - (4, 23) {WHOLE_LINE} "a.kite"\n        var total = ' in csharp
    assert f'#line (5, 5) - (5, 16) {WHOLE_LINE} "a.kite"\n        return ' in csharp


def test_an_expression_spelled_as_in_kite_is_mapped_from_its_start_and_its_receiver_stays_on_its_line():
    csharp = csharp_of("module A\n\nfn f(name: str) -> str\n    return name.Split(' ')[0]\n")
    # A space, then the text: Roslyn maps the text's first character to the node's first.
    assert '#line (4, 12) - (4, 29) 1 "a.kite"\n name.Split(' in csharp
    assert '#line (4, 23) - (4, 25) 1 "a.kite"\n \' \')[' in csharp


def test_an_expression_c_sharp_spells_otherwise_maps_whole_and_f_string_holes_get_no_marker():
    csharp = csharp_of('module A\n\nfn f(x: int) -> str\n    return upper(f"{x + 1}")\n')
    assert f'#line (4, 12) - (4, 28) {WHOLE_LINE} "a.kite"\nkite__std::Kite.Std.upper(' in csharp
    hole = re.search(r'\$".*"', csharp).group()
    assert "#line" not in hole and "\n" not in hole


def test_a_marker_ends_on_the_last_character_and_a_column_beyond_what_it_can_name_keeps_only_the_line():
    assert span_marker(n.Span(2, 5, 2, 10), 1, "a.kite") == '#line (2, 5) - (2, 9) 1 "a.kite"'
    assert span_marker(n.Span(2, 5, 3, 1), 1, "a.kite") == '#line (2, 5) - (3, 1) 1 "a.kite"'
    assert span_marker(n.Span(2, 70_000, 2, 70_004), 1, "a.kite") == '#line 2 "a.kite"'


# ---- Kite rules that Roslyn analyzers implement


def test_the_roslyn_analyzers_report_under_their_kite_rules_ids():
    for rules, source in (((kt007_sandbox,), "KiteSandbox.cs"), ((kt012_text_join, kt016_list_literal_is_a_list), "KiteText.cs")):
        text = (REPO / "compiler" / "dotnet" / source).read_text()
        assert re.findall(r'new DiagnosticDescriptor\(\s*"(\w+)"', text) == [rule.RULE.id for rule in rules]
        assert all(source in rule.__doc__ for rule in rules)


def test_an_unknown_escape_covers_the_backslash_and_its_letter():
    from kite.source import decode
    from kite.syntax.frontend import read_syntax

    for literal, column in (('"a\\qb"', 14), ("'\\q'", 13), ('f"{x}\\q"', 17)):
        found = read_syntax(decode("a.kite", f"module A\n\nfn f(x: int) -> str\n    return {literal}\n".encode())).diagnostics
        # `    return ` takes columns 1-11 and the literal starts in column 12.
        assert [(d.line, d.column, d.end_column) for d in found] == [(4, column, column + 2)], literal
