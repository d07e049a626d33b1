"""kite find: patterns parsed by Kite's own grammar in a ladder of contexts, matched structurally with metavariables."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import run_kite
from kite.errors import UnusableInput
from kite.search.find import search_source
from kite.search.pattern import parse_pattern
from kite.search.walk import nodes_in
from kite.source import SourceFile
from kite.syntax import nodes as n
from kite.syntax.frontend import read_syntax


def program(body: str) -> SourceFile:
    """A module with one function whose body is `body` (written at column 0)."""
    return SourceFile("p.kite", "module P\n\nfn f(a: int, b: int, name: str?) -> int\n" + textwrap.indent(textwrap.dedent(body), "    "))


def found(pattern: str, body: str, context: str | None = None) -> list[str]:
    return [f.text for f in search_source(parse_pattern(pattern, context), program(body))]


# ---- metavariables


def test_a_repeated_metavariable_matches_the_guard_that_uses_what_it_checked():
    body = """\
    if name != none
        print(name.trim())
    if name != none
        print(other.trim())
    return 0
    """
    matches = found("if $X != none\n    print($X.trim())", body)
    assert matches == ["if name != none\n        print(name.trim())"]


def test_a_repeated_metavariable_binds_structurally_equal_code_whatever_its_spacing():
    matches = found("$X + $X", "print(g(a, b) + g( a,b ))\nprint(g(a, b) + g(b, a))\nreturn 0\n")
    assert matches == ["g(a, b) + g( a,b )"]


def test_a_name_bound_where_it_is_declared_is_the_same_name_used_later():
    body = "let total = a\nprint(total)\nlet other = a\nprint(b)\nreturn 0\n"
    assert found("let $X = $_\nprint($X)", body) == ["let total = a\n    print(total)"]


def test_a_sequence_matches_any_run_of_arguments_and_binds_it():
    pattern = parse_pattern("g($$$ARGS)")
    source = program("print(g())\nprint(g(a))\nprint(g(a, b + 1))\nreturn 0\n")
    results = search_source(pattern, source)
    assert [f.bindings["ARGS"].text for f in results] == ["", "a", "a, b + 1"]


def test_a_sequence_in_the_middle_of_a_block_and_a_fixed_argument_after_one():
    body = "let x = a\nprint(x)\nprint(b)\nreturn x\n"
    assert found("let $X = $_\n$$$BETWEEN\nreturn $X", body) == ["let x = a\n    print(x)\n    print(b)\n    return x"]
    assert found("g($$$, b)", "print(g(a, b))\nprint(g(b, a))\nreturn 0\n") == ["g(a, b)"]


def test_the_anonymous_metavariable_matches_any_node_and_binds_nothing():
    results = search_source(parse_pattern("$_ * $_"), program("return a * b\n"))
    assert [f.text for f in results] == ["a * b"] and results[0].bindings == {}


def test_strings_and_comments_are_not_code_so_they_never_match():
    source = program('# upper(a) in a comment\nprint("upper(a)")\nreturn 0\n')
    module = read_syntax(source).module
    assert not any(isinstance(node, n.Name) and node.name == "upper" for node in nodes_in(module))
    assert search_source(parse_pattern("upper($X)"), source) == ()
    assert found('print("upper(a)")', 'print("upper(a)")\nreturn 0\n') == ['print("upper(a)")']


def test_an_f_string_hole_is_code_and_is_searched():
    assert found("upper($X)", 'print(f"{upper(name)}!")\nreturn 0\n') == ["upper(name)"]


def test_a_pattern_over_several_lines_matches_code_on_one_and_the_reverse():
    one_line = "print(g(a, b))\nreturn 0\n"
    assert found("g(\n    a,\n    b,\n)", one_line) == ["g(a, b)"]
    spread = "print(g(\n    a,\n        b))\nreturn 0\n"
    assert found("g(a, b)", spread) == ["g(\n        a,\n            b)"]


def test_a_match_runs_from_its_opening_bracket_to_its_closing_one():
    assert found("$X * a", "return (b + 1) * a\n") == ["(b + 1) * a"]
    assert found("$X.trim()", "print((name).trim())\nreturn 0\n") == ["(name).trim()"]


def test_columns_are_the_files_own_in_a_file_indented_two_spaces():
    source = SourceFile("two.kite", "module Two\n\nfn f(x: int) -> int\n  if x > 1\n    return g(x)\n  return 0\n")
    [match] = search_source(parse_pattern("g($X)"), source)
    assert match.span == (5, 12, 5, 16) and match.text == "g(x)"


# ---- the context ladder


def test_a_call_pattern_is_read_as_an_expression_and_finds_calls():
    pattern = parse_pattern("dispose($X)")
    assert pattern.context == "expression" and isinstance(pattern.node, n.Call)
    assert found("dispose($X)", "dispose(a)\nlet y = dispose(b)\nreturn 0\n") == ["dispose(a)", "dispose(b)"]


def test_each_rung_of_the_ladder():
    assert parse_pattern("$X = $Y").context == "statement"
    assert parse_pattern("fn $F($$$P) -> int\n    $$$BODY").context == "item"
    assert parse_pattern("module $M\n\nfn main()\n    $$$").context == "module"


def test_a_forced_context_that_does_not_accept_the_pattern_says_what_was_expected(tmp_path):
    with pytest.raises(UnusableInput, match=r"as an item: line 1, column 1: 'dispose' cannot stand at the top level"):
        parse_pattern("dispose($X)", "item")
    (tmp_path / "p.kite").write_text(program("dispose(a)\nreturn 0\n").text)
    assert run_kite(["find", "--context", "item", "dispose($X)", "p.kite"], cwd=tmp_path).exit_code == 2
    assert run_kite(["find", "--context", "expression", "dispose($X)", "p.kite"], cwd=tmp_path).exit_code == 0


def test_an_unparseable_pattern_is_exit_2_with_what_each_context_expected(tmp_path):
    (tmp_path / "p.kite").write_text(program("return 0\n").text)
    result = run_kite(["find", "g($X,,)", "p.kite"], cwd=tmp_path)
    assert result.exit_code == 2
    assert "does not parse in any context: as an expression: line 1, column 6: unexpected ','" in result.output
    assert "as a statement:" in result.output and "as an item:" in result.output and "as a module:" in result.output


@pytest.mark.parametrize("pattern", ["g(__kite_meta_one_X)", "g($1)", "g($ X)"])
def test_a_pattern_that_spells_no_metavariable_or_the_reserved_prefix_is_refused(pattern):
    with pytest.raises(UnusableInput, match="pattern"):
        parse_pattern(pattern)


# ---- the command


def test_output_is_a_line_per_match_then_a_count_and_folders_are_searched_recursively(tmp_path):
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "a.kite").write_text(program("print(upper(a))\nreturn 0\n").text)
    (tmp_path / "b.kite").write_text(program("return 0\n").text)
    result = run_kite(["find", "upper($X)", "."], cwd=tmp_path)
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "deep/er/a.kite(4,11)-(4,19): upper(a)", "1 match in 1 file (2 searched, pattern read as an expression)"]


def test_nothing_matched_is_exit_1(tmp_path):
    (tmp_path / "a.kite").write_text(program("return 0\n").text)
    assert run_kite(["find", "upper($X)", "a.kite"], cwd=tmp_path).exit_code == 1


def test_json_has_each_match_with_its_bindings(tmp_path):
    (tmp_path / "a.kite").write_text(program("print(g(a, b + 1))\nreturn 0\n").text)
    document = json.loads(run_kite(["find", "--format", "json", "g($X, $$$REST)", "a.kite"], cwd=tmp_path).output)
    assert (document["count"], document["context"], document["files_searched"]) == (1, "expression", 1)
    [match] = document["matches"]
    assert (match["line"], match["column"], match["end_line"], match["end_column"], match["text"]) == (4, 11, 4, 22, "g(a, b + 1)")
    assert match["bindings"] == {
        "X": {"text": "a", "line": 4, "column": 13, "end_line": 4, "end_column": 14},
        "REST": {"text": "b + 1", "line": 4, "column": 16, "end_line": 4, "end_column": 21},
    }


def test_an_unusable_file_is_one_line_and_exit_2_and_the_others_are_still_searched(tmp_path):
    (tmp_path / "a.kite").write_text(program("print(upper(a))\nreturn 0\n").text)
    (tmp_path / "binary.kite").write_bytes(b"module X\n\x00")
    (tmp_path / "broken.kite").write_text("fn upper(\n")  # names what the pattern does: not skipped unparsed
    result = run_kite(["find", "upper($X)", "."], cwd=tmp_path)
    assert result.exit_code == 2
    assert "a.kite(4,11)-(4,19): upper(a)" in result.output
    assert "kite: error: binary.kite: binary file" in result.output
    assert "kite: error: broken.kite: does not parse, not searched" in result.output
    assert "Traceback" not in result.output


def test_a_metavariable_alone_on_a_line_of_a_block_matches_any_statement():
    body = "if a > b\n    return a\nif a > 1\n    print(a)\nreturn b\n"
    assert found("if $C\n    return $X", body) == ["if a > b\n        return a"]
    assert found("if $C\n    $S", body) == ["if a > b\n        return a", "if a > 1\n        print(a)"]


def test_a_file_without_the_names_a_pattern_spells_is_not_parsed(monkeypatch):
    import kite.search.cache as cache_module

    parsed = []
    real = cache_module.read_syntax
    monkeypatch.setattr(cache_module, "read_syntax", lambda source: parsed.append(source.path) or real(source))
    pattern = parse_pattern("len($X)")
    assert search_source(pattern, program("print(length(a))\nreturn 0\n")) == () and parsed == []
    assert [f.text for f in search_source(pattern, program('print(f"{len(a)}")\nreturn 0\n'))] == ["len(a)"]


@pytest.mark.parametrize("command", ["find", "rewrite"])
def test_help(command, tmp_path):
    result = run_kite([command, "--help"], cwd=tmp_path)
    assert result.exit_code == 0 and result.output.startswith("Usage: ")


def test_every_expression_and_statement_of_the_samples_spans_exactly_its_own_code():
    """A match's text, read back as a pattern, is the same code: its range neither stops short nor runs over."""
    from conftest import REPO
    from kite.search.match import same
    from kite.search.spans import Spans
    from kite.search.walk import EXPRESSIONS, STATEMENTS
    from kite.source import read

    checked = 0
    for path in sorted((REPO / "samples").glob("*.kite")):
        source = read(str(path))
        syntax = read_syntax(source)
        spans = Spans(source.text, syntax.parsed_lines)
        for node in nodes_in(syntax.module.items):
            if isinstance(node, EXPRESSIONS + STATEMENTS):
                span = spans.span(node)
                text = textwrap.dedent(" " * (span[1] - 1) + spans.text(span))  # later lines keep the file's indent
                pattern = parse_pattern(text, "expression" if isinstance(node, EXPRESSIONS) else "statement")
                assert same(pattern.node if isinstance(node, EXPRESSIONS) else pattern.node[0], node), (path.name, text)
                checked += 1
    assert checked > 1000


def test_brackets_the_parser_keeps_no_node_for_are_part_of_the_match():
    assert found("not $X", "print(not (a in b))\nreturn 0\n") == ["not (a in b)"]
    assert found("$X * $Y", "return a * (b + 1)\n") == ["a * (b + 1)"]


def test_brackets_around_a_match_are_found_over_comments_line_ends_and_strings():
    assert found("$X * $Y", "return ((a + b)) * (c + d)\n") == ["((a + b)) * (c + d)"]
    assert found("$X * $Y", 'print(f"{(a + b) * c}")\nreturn 0\n') == ["(a + b) * c"]
    spread = "let x = (  # why\n    a + \")\" .len()\n) * b\nreturn x\n"
    assert found("$X * $Y", spread) == ['(  # why\n        a + ")" .len()\n    ) * b']
    assert found("not $X", 'print(not (a in [")", b]  # (\n))\nreturn 0\n') == ['not (a in [")", b]  # (\n    )']


def test_a_declaration_starts_at_its_keywords():
    assert found("let mut $X = $Y", "let  mut total = 0\nreturn total\n") == ["let  mut total = 0"]


def test_the_command_offers_every_rung_of_the_ladder():
    from kite.cli.main import find
    from kite.search.pattern import CONTEXTS

    [option] = [param for param in find.params if param.name == "context"]
    assert tuple(option.type.choices) == CONTEXTS


def test_a_metavariable_alone_on_a_top_level_line_stands_for_items():
    pattern = parse_pattern("module $M\n$$$BEFORE\nfn main()\n    $$$BODY\n$$$")
    assert pattern.context == "module"
    with_main = SourceFile("m.kite", "module M\n\nuse System.Text\n\nfn helper() -> int\n    return 1\n\nfn main()\n    print(helper())\n")
    [match] = search_source(pattern, with_main)
    assert match.bindings["M"].text == "M" and match.bindings["BEFORE"].text == "use System.Text\n\nfn helper() -> int\n    return 1"
    assert search_source(pattern, program("return 0\n")) == ()
    assert [f.bindings["P"].text for f in search_source(parse_pattern("use $P"), with_main)] == ["System.Text"]


def test_worker_processes_print_byte_for_byte_what_one_process_prints(tmp_path, monkeypatch):
    """Files split in batches over worker processes come back in file order: same output, problems and exit code."""
    from kite import spawn

    for number in range(10):
        body = f"print(len(items{number}))\n" if number % 3 else "print(upper(name))\n"
        (tmp_path / f"a{number}.kite").write_text(f"module A{number}\n\nfn main()\n    let items{number} = [1]\n    {body}")
    (tmp_path / "a5.kite").write_text("fn main()\n    print(len(broken))\n")  # no module: a problem amid the files
    monkeypatch.setattr(spawn, "ITEMS_PER_REQUEST", 3)
    pools = []
    real_executor = spawn.process_executor
    monkeypatch.setattr(spawn, "process_executor", lambda jobs, **how: pools.append(jobs) or real_executor(jobs, **how))
    for output_format in ("text", "json"):
        one, two = (run_kite(["find", "len($X)", ".", "--format", output_format, "--jobs", jobs], cwd=tmp_path) for jobs in ("1", "2"))
        assert (two.stdout_bytes, two.stderr_bytes, two.exit_code) == (one.stdout_bytes, one.stderr_bytes, one.exit_code)
        assert one.exit_code == 2 and one.stdout.count("len(items") == 5 and "a5.kite: does not parse" in one.stderr
    assert pools == [2, 2]  # --jobs 2 really searched in two workers


# ---- --cache: parses kept across searches


@pytest.fixture
def counted_parses(monkeypatch):
    """The files parsed for real (not read back from the cache), in this process."""
    import kite.search.cache as cache_module

    parsed = []
    real_parse = cache_module.parse
    monkeypatch.setattr(cache_module, "parse", lambda source: parsed.append(source.path) or real_parse(source))
    return parsed


def cached_find(pattern: str, folder, cache) -> tuple[str, int]:
    result = run_kite(["find", pattern, ".", "--jobs", "1", "--cache", str(cache)], cwd=folder)
    return result.stdout, result.exit_code


def test_a_second_search_reads_the_parses_back_and_finds_the_same(tmp_path, counted_parses):
    (tmp_path / "a.kite").write_text("module A\n\nfn main()\n    print(upper(name))\n")
    (tmp_path / "b.kite").write_text("module B\n\nfn main()\n    print(upper(\n        other))\n")
    cache = tmp_path / "cache"
    first = cached_find("upper($X)", tmp_path, cache)
    assert sorted(counted_parses) == ["a.kite", "b.kite"] and first[1] == 0
    assert cached_find("upper($X)", tmp_path, cache) == first and len(counted_parses) == 2  # nothing parsed again
    assert cached_find("print($X)", tmp_path, cache)[0].count("print(") == 2 and len(counted_parses) == 2


def test_an_edited_file_is_parsed_again(tmp_path, counted_parses):
    file, cache = tmp_path / "a.kite", tmp_path / "cache"
    file.write_text("module A\n\nfn main()\n    print(upper(name))\n")
    cached_find("upper($X)", tmp_path, cache)
    file.write_text("module A\n\nfn main()\n    let shout = upper(name)\n    print(upper(shout))\n")
    text, _ = cached_find("upper($X)", tmp_path, cache)
    assert counted_parses == ["a.kite", "a.kite"] and "a.kite(5,11)-(5,23): upper(shout)" in text


def test_a_corrupted_or_foreign_entry_is_ignored_and_replaced(tmp_path, counted_parses):
    import pickle

    (tmp_path / "a.kite").write_text("module A\n\nfn main()\n    print(upper(name))\n")
    cache = tmp_path / "cache"
    expected = cached_find("upper($X)", tmp_path, cache)
    [entry] = cache.iterdir()
    for damaged in (entry.read_bytes()[:40], b"not a pickle", pickle.dumps((entry.stem, print)), pickle.dumps(print)):
        entry.write_bytes(damaged)
        assert cached_find("upper($X)", tmp_path, cache) == expected
    assert len(counted_parses) == 5
    assert cached_find("upper($X)", tmp_path, cache) == expected and len(counted_parses) == 5  # rewritten whole


def test_a_cache_folder_that_cannot_be_one_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "a.kite").write_text("module A\n\nfn main()\n    print(upper(name))\n")
    (tmp_path / "taken").write_text("a file, not a folder")
    result = run_kite(["find", "upper($X)", "a.kite", "--cache", "taken/cache"], cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "--cache taken/cache: cannot use it" in result.stderr


def planted_entry(text: str) -> tuple[str, bytes]:
    """What anyone who can write the folder can make: the entry name for `text`, holding a parse of nothing."""
    import hashlib
    import pickle

    from kite.search.cache import Entry, Parsed, toolchain_fingerprint
    from kite.syntax import nodes as n

    key = hashlib.sha256(toolchain_fingerprint() + text.encode()).hexdigest()
    empty = n.Module(1, 1, "A", (), end_line=1, end_column=9)
    return key, pickle.dumps(Entry(key, Parsed(empty, tuple(text.split("\n")), "")), pickle.HIGHEST_PROTOCOL)


def test_a_planted_entry_is_ignored_and_replaced_by_the_file_s_own_parse(tmp_path, counted_parses):
    import hmac
    import os

    text = "module A\n\nfn main()\n    print(upper(name))\n"
    (tmp_path / "a.kite").write_text(text)
    cache = tmp_path / "cache"
    cache.mkdir()
    key, payload = planted_entry(text)
    entry = cache / f"{key}.pickle"
    forged = [payload, hmac.digest(b"k" * 32, payload, "sha256") + payload]  # no MAC; a MAC under another key
    for planted in forged:
        entry.write_bytes(planted)
        output, code = cached_find("upper($X)", tmp_path, cache)
        assert (code, output.splitlines()[0]) == (0, "a.kite(4,11)-(4,22): upper(name)")
    assert len(counted_parses) == 2
    # Even an entry with this user's own MAC is not read when another user owns it or may write it.
    mine = entry.read_bytes()
    for owner, mode in ((12345, 0o600), (os.geteuid(), 0o620), (os.geteuid(), 0o602)):
        entry.write_bytes(mine)
        os.chown(entry, owner, -1)
        entry.chmod(mode)
        assert cached_find("upper($X)", tmp_path, cache)[0].startswith("a.kite(4,11)")
    assert len(counted_parses) == 5
    assert cached_find("upper($X)", tmp_path, cache)[0].startswith("a.kite(4,11)") and len(counted_parses) == 5


def test_a_cache_folder_another_user_can_write_is_refused_in_one_line(tmp_path):
    (tmp_path / "a.kite").write_text("module A\n\nfn main()\n    print(upper(name))\n")
    (tmp_path / "shared").mkdir(mode=0o777)
    (tmp_path / "shared").chmod(0o777)
    result = run_kite(["find", "upper($X)", "a.kite", "--cache", "shared"], cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr == (
        "kite: error: --cache shared: another user can write it, so its entries could be planted: give a folder only you can write\n")


def test_a_key_another_user_could_read_is_refused(tmp_path, monkeypatch):
    (tmp_path / "a.kite").write_text("module A\n\nfn main()\n    print(upper(name))\n")
    monkeypatch.setenv("KITE_CACHE_DIR", str(tmp_path / "kite-cache"))
    assert cached_find("upper($X)", tmp_path, tmp_path / "cache")[1] == 0
    key = tmp_path / "kite-cache" / "find-cache.key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == 32
    key.chmod(0o644)
    result = run_kite(["find", "upper($X)", "a.kite", "--cache", "cache"], cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr == f"kite: error: {key}: not a key only you can read (remove it: kite makes a new one)\n"


# ---- function types (LANGUAGE.md section 12)

FUNCTION_TYPES = SourceFile("f.kite", textwrap.dedent("""\
    module F

    fn apply(f: fn(int) -> int, x: int) -> int
        return f(x)

    fn each(xs: list<int>, act: fn(int))
        for x in xs
            act(x)

    fn keep(xs: list<str>, pred: fn(str) -> bool) -> fn() -> list<str>
        let picked: fn(str) -> bool = pred
        return fn() => xs.Where(picked).ToList()
    """))


def function_type_matches(pattern: str) -> list[str]:
    return [f.text.split("\n")[0] for f in search_source(parse_pattern(pattern), FUNCTION_TYPES)]


def test_a_function_type_in_a_pattern_matches_its_parameter_and_result_types_exactly():
    assert function_type_matches("fn $F($$$P, $G: fn(int) -> int, $$$Q) -> $R\n    $$$B") == ["fn apply(f: fn(int) -> int, x: int) -> int"]
    # A result the pattern leaves out must be absent: fn($T) is an action, never fn(int) -> int.
    assert function_type_matches("fn $F($$$P, $G: fn($T))\n    $$$B") == ["fn each(xs: list<int>, act: fn(int))"]
    assert function_type_matches("fn $F($$$P, $G: fn($T) -> bool) -> fn() -> $R\n    $$$B") == ["fn keep(xs: list<str>, pred: fn(str) -> bool) -> fn() -> list<str>"]
    assert function_type_matches("let $X: fn($$$A) -> $R = $V") == ["let picked: fn(str) -> bool = pred"]
    assert function_type_matches("let $X: fn() = $V") == []


def test_an_expression_pattern_finds_its_node_class_wherever_it_is_nested_and_only_there():
    """find_matches tries a pattern that is not a metavariable only on nodes of its own class: a call is found inside
    an operation, a lambda, an f-string hole, a list and another call; `$X` still takes every expression."""
    body = """\
    let g = fn(x: int) => x + len([len("a"), 2])
    print(f"{len(name)}")
    return len("b") * 2
    """
    assert found("len($X)", body) == ['len([len("a"), 2])', 'len("a")', "len(name)", 'len("b")']
    assert found("$X", 'return -a\n') == ["-a", "a"]
