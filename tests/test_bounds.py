"""The static layers are bounded: diagnostics merge in linear time, input has a size limit, Roslyn has a budget."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings, strategies as st

from conftest import FIXTURES, run_kite
from kite.csharp_words import in_kite_words
from kite.diagnostics import Diagnostic, Layer, Severity, ordered
from kite.dotnet.compile_worker import CompileWorker, shared_worker
from kite.pipeline import ANYWHERE, QUOTED_NAME, RESTATES, SAME_PROBLEM, merge, names_the_same
from kite.session import Session
from kite.source import MAX_SOURCE_BYTES, MAX_SOURCE_LINES, decode
from kite.syntax.frontend import SyntaxResult
from kite.units import Unit

FILES = ("a.kite", "a.test.kite")
KITE_IDS = sorted(SAME_PROBLEM)
CSHARP_IDS = sorted(
    {same for ids in SAME_PROBLEM.values() for same in ids} | set(RESTATES) | {i for ids in RESTATES.values() for i in ids}
    | {"CS0029", "CS0103", "CA1829"} | {same for ids in ANYWHERE.values() for same in ids}
)


def diagnostics(ids, layer):
    return st.builds(
        Diagnostic, st.sampled_from(FILES), st.integers(1, 6), st.integers(0, 3), st.sampled_from(list(Severity)),
        st.sampled_from(ids), st.sampled_from(["m", "n", "'m' twice", "a call of 'T.m(int)'"]), st.just(layer),
    )


def merged_by_definition(kite, csharp, syntax):
    """The merge as the rule states it, one comparison per pair: what the linear merge must still keep."""
    kept = list(kite)
    spoken = [in_kite_words(e) for e in csharp]  # one message is said once as the user reads it: two C# texts may be one
    for position, d in enumerate(csharp):
        if any(e.file == d.file and e.line == d.line and e.id in RESTATES.get(d.id, ()) for e in csharp):
            continue
        if any((e.file, e.line, e.id, e.message) == (d.file, d.line, d.id, spoken[position].message) for e in spoken[:position]):
            continue
        result = syntax.get(d.file)
        if result is not None and (d.line in result.leaked_lines or d.line in result.replaced_lines):
            continue
        if any(k.file == d.file and k.line == d.line and d.id in SAME_PROBLEM.get(k.id, ()) for k in kite):
            continue
        if any(d.id in ANYWHERE.get(k.id, ()) and QUOTED_NAME.search(k.message) and names_the_same(d, {QUOTED_NAME.search(k.message).group(1)})
               for k in kite):
            continue
        kept.append(in_kite_words(d))
    return ordered(kept)


lines = st.frozensets(st.integers(1, 6), max_size=2)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(diagnostics(KITE_IDS, Layer.KITE), max_size=12),
    st.lists(st.one_of(diagnostics(CSHARP_IDS, Layer.COMPILER), diagnostics(["CA1829", "CA1806"], Layer.ANALYZERS)), max_size=16),
    lines, lines,
)
def test_merge_keeps_exactly_what_comparing_every_pair_keeps(kite, csharp, leaked, replaced):
    syntax = {FILES[0]: SyntaxResult(None, (), leaked, replaced)}
    assert merge(kite, csharp, syntax) == merged_by_definition(kite, csharp, syntax)


@settings(max_examples=100, deadline=None)
@given(st.one_of(diagnostics(KITE_IDS, Layer.KITE), diagnostics(CSHARP_IDS, Layer.COMPILER)), st.integers(0, 3), st.integers(0, 9))
def test_a_diagnostic_read_back_from_its_json_is_itself(found, more_lines, end_column):
    import dataclasses

    ranged = dataclasses.replace(found, end_line=found.line + more_lines, end_column=end_column) if end_column else found
    again = Diagnostic.from_json(json.loads(json.dumps(ranged.to_json())))
    assert again == ranged and type(again.layer) is Layer and type(again.severity) is Severity


def test_merge_drops_the_compilers_word_for_a_problem_kite_reports_on_that_line_only():
    def at(line, rule_id, layer):
        return Diagnostic("a.kite", line, 1, Severity.ERROR, rule_id, "m", layer)

    kite = [at(3, "KT001", Layer.KITE)]
    csharp = [at(3, "CS0191", Layer.COMPILER), at(4, "CS0191", Layer.COMPILER), at(3, "CS0029", Layer.COMPILER)]
    assert merge(kite, csharp, {}) == [kite[0], csharp[2], csharp[1]]


def test_kt015_drops_the_compilers_words_for_that_name_in_every_file_and_only_for_that_name():
    """One mistake, one diagnostic: the answer's KT015 stands for the CS0102/CS0111/CS0121 that the hidden test file
    gets for the same name (issue 22), and a diagnostic never points into that file for it."""
    kt015 = Diagnostic("a.kite", 3, 4, Severity.ERROR, "KT015", "'close_to' is also a function of a.test.kite: choose another name", Layer.KITE)

    def there(rule_id, message):
        return Diagnostic("a.test.kite", 7, 1, Severity.ERROR, rule_id, message, Layer.COMPILER)

    same = [there("CS0102", "The type 'Shop' already contains a definition for 'close_to'"),
            there("CS0111", "Type 'Shop' already defines a member called 'close_to' with the same parameter types"),
            there("CS0121", "The call is ambiguous between the following methods or properties: 'Shop.close_to(int, int)' and 'Shop.close_to(dec, dec)'")]
    other = there("CS0102", "The type 'Shop' already contains a definition for 'price_of'")
    assert merge([kt015], [*same, other], {}) == [kt015, other]


def test_merge_says_a_message_once_per_line_and_drops_a_warning_that_restates_an_error_there():
    def at(line, column, rule_id, message="m"):
        return Diagnostic("a.kite", line, column, Severity.WARNING, rule_id, message, Layer.COMPILER)

    enumerations = [at(5, 12, "CA1851"), at(5, 30, "CA1851"), at(5, 44, "CA1851"), at(5, 50, "CA1851", "another")]
    nullable = [at(8, 5, "CS0266"), at(8, 18, "CS8629"), at(9, 1, "CS8629")]
    assert merge([], enumerations + nullable, {}) == [enumerations[0], enumerations[3], nullable[0], nullable[2]]


BOMB = FIXTURES / "KT010" / "slow_to_compile.kite"  # within Kite's lambda limit, but far past any small budget


def gone(pid: int) -> bool:
    """No such process, or only its exit status is left (a zombie burns nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_compile_process_left_holding_half_its_memory_budget_is_replaced_before_the_next_request():
    # A Python answer of 1.5 million constants peaks near 1 GB in the parse and keeps most of it: under a 1800 MB
    # budget it gets its verdict, and the next answer starts in a fresh process, never charged for what it kept.
    from kite.spawn import tree_rss

    worker = shared_worker()
    worker.text_problem("json", "[1]", 60, memory_mb=1800)
    fresh = worker.process.pid
    assert tree_rss(fresh) < 900 << 20
    assert worker.text_problem("python", "1," * 1_500_000, 300, memory_mb=1800) == ""
    assert worker.process is None or tree_rss(worker.process.pid) < 900 << 20
    assert worker.text_problem("json", "[1]", 60, memory_mb=1800) == "" and worker.process.pid != fresh


def test_a_fresh_compile_process_gives_requests_extra_time_until_its_first_check_has_run_roslyn_once():
    # No warm-up compile at start (a one-shot check would pay for the JIT twice): the first check carries it.
    worker = CompileWorker()
    try:
        assert worker.text_problem("json", "[1]", 60) == "" and worker._allowance > 0  # a text check does not run Roslyn
        assert worker.check([("c.cs", "public static class C { }\n")], 60, with_stdlib=False) == []
        assert worker._allowance == 0
        worker.stop()
        assert worker.text_problem("json", "[1]", 60) == "" and worker._allowance > 0  # a restarted process: again
    finally:
        worker.stop()


def test_the_compile_time_bomb_ends_at_the_budget_with_kt010_and_its_compile_is_killed():
    worker = shared_worker()
    run_kite(["check", "ok_shallow_lambdas.kite"], cwd=BOMB.parent)
    compiling = worker.process.pid
    result = run_kite(["check", "--compile-timeout", "1", "--format", "json", BOMB.name], cwd=BOMB.parent)
    document = json.loads(result.output)
    assert result.exit_code == 1
    assert [(d["id"], d["line"], d["message"]) for d in document["diagnostics"]] == [
        ("KT010", 1, "took longer than 1 s to compile: the C# compiler and analyzers were stopped")
    ]
    assert document["layers"] == ["kite"] and document["skipped"] == [f"{BOMB.name}: compiler and analyzers stopped after 1 s (KT010)"]
    assert gone(compiling), "the stopped compile must not keep burning a core"
    after = run_kite(["check", "ok_shallow_lambdas.kite"], cwd=BOMB.parent)
    assert after.output == "clean: 0 errors, 0 warnings\n" and worker.process.pid != compiling


def test_kite_test_fails_a_bomb_with_kt010_instead_of_hanging(tmp_path):
    program = tmp_path / "bomb.kite"
    program.write_text(BOMB.read_text() + '\ntest "total"\n    expect total([1]) == 0\n')
    result = run_kite(["test", "--compile-timeout", "1", program.name], cwd=tmp_path)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "bomb.kite(1): error KT010: took longer than 1 s to compile: the C# compiler and analyzers were stopped",
        "failed: 1 errors, 0 warnings",
        "FAIL total: the program does not compile",
        "0 passed, 1 failed",
    ]


def test_emit_has_the_budget_too():
    # Four levels: a second or more to compile, whether checked or emitted.
    source = decode("four.kite", (
        b"module Four\n\nfn main()\n"
        b"    let xs = [1, 2]\n"
        b"    print(xs.Sum(fn(a) => xs.Sum(fn(b) => xs.Sum(fn(c) => xs.Sum(fn(d) => a + b + c + d)))))\n"
    ))
    # The check gets all the time a loaded machine needs (four levels take seconds there, past the default 20 s on
    # a busy one); only the emit is held to a budget it cannot meet on any machine.
    checker = Session(compile_timeout=3600)
    analysis = checker.analyze(Unit(source))
    assert analysis.result.diagnostics == ()
    checker.compile_timeout = 0.05
    compiled = checker.emit(Unit(source), analysis, entry_point=True)
    assert compiled.image is None
    assert [d.render() for d in compiled.result.diagnostics] == [
        "four.kite(1): error KT010: took longer than 0.05 s to compile: the C# compiler and analyzers were stopped"
    ]


def test_a_kite_killed_mid_compile_takes_its_compile_with_it():
    script = (
        "import sys; from kite.units import Unit; from kite.session import Session; from kite.source import read; "
        f"checker = Session(compile_timeout=3600); checker.check(Unit(read({str(BOMB.parent / 'ok_shallow_lambdas.kite')!r}))); "
        f"print(checker.compiler.process.pid, flush=True); checker.check(Unit(read({str(BOMB)!r})))"
    )
    kite = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    compiling = int(kite.stdout.readline())
    kite.kill()
    kite.wait()
    for _ in range(300):  # the kernel delivers the child's death signal at once; this only waits for it to land
        if gone(compiling):
            break
        time.sleep(0.1)
    assert gone(compiling)


def lines_of(count: int) -> bytes:
    return b"module Long\n" + b"\n" * (count - 1)


def bytes_of(count: int) -> bytes:
    return b"module Big\n#" + b"x" * (count - len(b"module Big\n#\n")) + b"\n"


@pytest.mark.parametrize(
    "content, refusal",
    [
        (lines_of(MAX_SOURCE_LINES + 1), "too long to check (200,001 lines, more than kite's limit of 200,000)"),
        (lines_of(MAX_SOURCE_LINES + 1).replace(b"\n", b"\r"), "too long to check (200,001 lines, more than kite's limit of 200,000)"),
        (bytes_of(MAX_SOURCE_BYTES + 1), "too large to check (more than kite's limit of 2 MiB)"),
    ],
    ids=["lines", "cr-lines", "bytes"],
)
@pytest.mark.parametrize("command", ["check", "test", "build"])
def test_an_oversized_file_is_refused_with_one_line_and_exit_2(tmp_path, content, refusal, command):
    (tmp_path / "big.kite").write_bytes(content)
    result = run_kite([command, "big.kite", *(["-o", "out"] if command == "build" else [])], cwd=tmp_path)
    assert (result.exit_code, result.output) == (2, f"kite: error: big.kite: {refusal}\n")


@pytest.mark.parametrize("content", [lines_of(MAX_SOURCE_LINES), bytes_of(MAX_SOURCE_BYTES)], ids=["lines", "bytes"])
def test_a_file_at_the_limits_is_checked(tmp_path, content):
    (tmp_path / "limit.kite").write_bytes(content)
    result = run_kite(["check", "--layer", "kite", "limit.kite"], cwd=tmp_path)
    assert (result.exit_code, result.output) == (0, "clean: 0 errors, 0 warnings\n")


def nest(depth: int, shape: str) -> str:
    """`depth` lambdas, each inside the one before, in the shape a hostile answer might use."""
    if shape == "fstring":
        return f'f"{{{nest(depth, "call")}}}"'
    body = "1"
    for level in reversed(range(depth)):
        name = f"p{level}"
        if shape == "call":
            body = f"xs.Sum(fn({name}) => {body} + {name})"
        elif shape == "returned":
            body = f"fn({name}) => {body}"
        elif shape == "list":
            body = f"[fn({name}) => {body}]"
    return body


@pytest.mark.parametrize("shape", ["call", "returned", "list", "fstring"])
def test_lambdas_nested_five_deep_are_kt010_before_any_compile_and_four_are_not(tmp_path, shape):
    program = "module Deep\n\nfn f(xs: list<int>)\n    let four = {four}\n    let five = {five}\n    print(four)\n    print(five)\n"
    (tmp_path / "deep.kite").write_text(program.format(four=nest(4, shape), five=nest(5, shape)))
    result = run_kite(["check", "--layer", "kite", "--format", "json", "deep.kite"], cwd=tmp_path)
    found = [(d["id"], d["line"]) for d in json.loads(result.output)["diagnostics"] if d["id"] == "KT010"]
    assert found == [("KT010", 5)]


def test_lambdas_nested_too_deep_are_kt010_in_a_module_constant_and_in_a_test_file(tmp_path):
    (tmp_path / "deep.kite").write_text(f"module Deep\n\nlet xs = [1, 2]\nlet five = {nest(5, 'call')}\n")
    (tmp_path / "deep.test.kite").write_text(f'module Deep\n\ntest "deep"\n    expect {nest(5, "call")} > 0\n')
    result = run_kite(["check", "--layer", "kite", "deep.kite"], cwd=tmp_path)
    assert [line.split(" KT010: ")[0] for line in result.output.splitlines() if " KT010: " in line] == [
        "deep.kite(4): error", "deep.test.kite(4): error",
    ]


def test_the_c_sharp_layers_do_not_run_on_lambdas_nested_too_deep(tmp_path):
    (tmp_path / "deep.kite").write_text(f"module Deep\n\nfn f(xs: list<int>) -> int\n    return {nest(6, 'call')}\n")
    document = json.loads(run_kite(["check", "--format", "json", "deep.kite"], cwd=tmp_path).output)
    assert document["layers"] == ["kite"]
    assert document["skipped"] == ["deep.kite: compiler and analyzers did not run: lambdas nested too deep to compile (KT010)"]


def parsed_characters(monkeypatch, text: str) -> tuple[int, list[str]]:
    """How many characters the parser read to check `text` (work, not time), and the KT000 lines."""
    from kite.syntax import frontend

    read = []
    real = frontend.parse_module
    monkeypatch.setattr(frontend, "parse_module", lambda chunk, *rest: read.append(len(chunk)) or real(chunk, *rest))
    result = frontend.read_syntax(decode("big.kite", text.encode()))
    return sum(read), [d.render() for d in result.diagnostics]


FUNCTION = "fn f_{i}(x: int) -> int\n    let y = x * 2 + {i}\n    if y > 10\n        return y\n    return x\n\n"


def test_syntax_errors_at_the_end_of_a_long_file_re_parse_only_their_items(monkeypatch):
    items = "".join(FUNCTION.format(i=i) for i in range(3000))
    broken = "".join(f"fn bad_{k}()\n    let x = 1 +\n\n" for k in range(21))
    text = "module Big\n\n" + items + broken
    work, lines = parsed_characters(monkeypatch, text)
    # One try of the whole file (most files parse whole: one parse instead of one per item), then each item once:
    # linear, never the 20 re-parses of the file this test was written against.
    assert work < 2.2 * len(text)
    assert len(lines) == 21 and lines[-1] == "big.kite(1): error KT000: more than 20 syntax errors: stopped"


def test_syntax_errors_in_one_huge_item_stop_when_re_parsing_it_would_cost_more_than_the_file(monkeypatch):
    body = "".join(f"    let y_{i} = {i} * 2\n" for i in range(30_000))
    broken = "".join(f"    let x_{k} = 1 +\n" for k in range(21))
    text = "module Big\n\nfn huge()\n" + body + broken
    work, lines = parsed_characters(monkeypatch, text)
    assert work < 3 * len(text)
    assert lines[-1].endswith("error KT000: too many syntax errors to recover from in an item this long: stopped")
    assert 2 <= len(lines) < 21


def test_many_csharp_leaks_on_one_long_line_read_that_line_a_bounded_number_of_times(monkeypatch):
    # Each KT004 fix reads its whole line: 100,000 minuses on one line (50,000 '--') took minutes outside any budget.
    from kite.source import SourceFile
    from kite.syntax import frontend, leak_fixes

    fixes = []
    real_fix = leak_fixes.fix
    monkeypatch.setattr(leak_fixes, "fix", lambda leak, line, **kw: fixes.append(len(line)) or real_fix(leak, line, **kw))
    line = "    return " + "-" * 2000 + "a"
    result = frontend.read_syntax(SourceFile("a.kite", f"module A\n\nfn f(a: int) -> int\n{line}\n    return a -- 1\n"))
    leaked = [d for d in result.diagnostics if d.id == "KT004"]
    assert len(leaked) == 1001 and len(fixes) == 1  # every leak reported; only the short line's is fixed
    assert sum(fixes) <= frontend.FIXED_LINE_CHARS
