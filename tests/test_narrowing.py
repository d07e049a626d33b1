"""Narrowing (LANGUAGE.md section 6): the analyzer's type pass (what hover and inlay hints show) and codegen (a C#
pattern variable in place of the name) decide it in two walks from kite.narrowing's rules. Held to one answer here:
on a table of every form, each read marked by hand, and on every Kite file of the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from kite.analyze import gather
from kite.codegen import csharp
from kite.lsp.features import Parsed, hover, inlay_hints
from kite.narrowing import none_test
from kite.source import SourceFile
from kite.syntax import nodes as n
from kite.syntax.frontend import read_syntax

ROOT = Path(__file__).resolve().parent.parent

# Each read of a nullable name or field on a line marked `# narrowed` or `# nullable` (a none-test's own subject
# aside) is that. One function per form.
CASES = {
    "inside `if x != none`, and not after it": """
fn a(v: int?) -> int
    if v != none
        let m = v + 1  # narrowed
    let k = v  # nullable
    return 0
""",
    "after `if x == none` whose block returns": """
fn b(v: int?) -> int
    if v == none
        return 0
    return v + 1  # narrowed
""",
    "after `if x == none` whose block continues, in a loop": """
fn c(xs: list<int?>) -> int
    let mut total = 0
    for v in xs
        if v == none
            continue
        total += v  # narrowed
    return total
""",
    "not after `if x == none` that falls through; in its elif and else": """
fn d(v: int?) -> int
    if v == none
        let k = v  # nullable
    elif v > 0  # narrowed
        return v  # narrowed
    else
        return v + 1  # narrowed
    let k = v  # nullable
    return 0
""",
    "after an exiting if and an exiting elif": """
fn e(v: int?, w: int?) -> int
    if v == none
        return 0
    elif w == none
        return 1
    return v + w  # narrowed
""",
    "not after an exiting if when a later branch assigns the name": """
fn f(start: int?, c: bool) -> int
    let mut v = start
    if v == none
        return 0
    elif c
        v = none
    let k = v  # nullable
    return 0
""",
    "the right of `and` after `!=`, of `or` after `==`, through `not`; not the others": """
fn g(v: int?) -> bool
    let a = v != none and v > 0  # narrowed
    let b = v == none or v > 0  # narrowed
    let c = not (v == none) and v > 0  # narrowed
    let d = v != none or v == 1  # nullable
    let e = v == none and v == 1  # nullable
    return a and b and c and d and e
""",
    "in a while body, until the name is assigned; the assignment's value still narrowed": """
fn h(start: int?) -> int
    let mut v = start
    while v != none
        v = step(v)  # narrowed
        let k = v  # nullable
    return 0
""",
    "ended before a statement that assigns the name in a nested block": """
fn i(start: int?) -> int
    let mut v = start
    if v != none
        let a = v + 1  # narrowed
        if a > 0
            let b = v  # nullable
            v = none
        let c = v  # nullable
    return 0
""",
    "a field read from a local, as a name": """
fn j(box: Box) -> int
    if box.size != none
        return box.size + 1  # narrowed
    let k = box.size  # nullable
    return 0
""",
    "not a lambda parameter or a let of the same name inside": """
fn k(v: int?) -> int
    if v != none
        let f = fn(v: int?) => v  # nullable
        let w = v  # narrowed
        if w > 0
            let v: int? = none
            let x = v  # nullable
    return 0
""",
}
PRELUDE = "module Narrowing\n\ntype Box\n    size: int?\n\nfn step(n: int) -> int?\n    return n - 1\n"


def reads(module: n.Module) -> list[n.Expr]:
    """The names and field reads of the module, but each none-test's own subject (tested as declared) and what an
    assignment assigns."""
    nodes = list(n.descendants(module))
    subjects = {id(test[0]) for node in nodes if (test := none_test(node)) is not None}
    subjects |= {id(node.target) for node in nodes if isinstance(node, n.Assign)}
    return [node for node in nodes if isinstance(node, (n.Name, n.Member)) and id(node) not in subjects]


def declared_nullable(module: n.Module) -> dict[int, n.Expr]:
    """The reads whose declared type (the local's, the field's) is nullable: the ones narrowing can change."""
    facts = gather(module)
    by_name = {id(name): binding.type for name, binding in facts.resolved if binding is not None}
    fields = {(record.name, f.name): f.type for record in facts.records.values() for f in record.fields}
    by_member = {id(member): fields.get((owner.name, member.name)) for member, owner in facts.members if owner is not None}
    found = {}
    for node in reads(module):
        declared = by_name.get(id(node)) if isinstance(node, n.Name) else by_member.get(id(node))
        if declared is not None and declared.nullable:
            found[id(node)] = node
    return found


def analyzer_narrowed(module: n.Module) -> dict[int, bool]:
    types = {id(e): t for e, t in gather(module).types}
    return {key: not types[key].nullable for key in declared_nullable(module) if types.get(key) is not None}


class _Recording(csharp._Writer):
    """Codegen, noting for each name and field read whether it wrote a none-test's pattern variable for it."""

    def __init__(self, *args):
        super().__init__(*args)
        self.narrowed: dict[int, bool] = {}

    def expression_text(self, e, typed):
        if isinstance(e, n.Name):
            self.narrowed[id(e)] = self.lookup(e.name) in self.narrowings
        elif isinstance(e, n.Member):
            self.narrowed[id(e)] = self.narrowed_path(e) is not None
        return super().expression_text(e, typed)


def codegen_narrowed(module: n.Module, path: str) -> dict[int, bool]:
    writer = _Recording(module, path, csharp.UnitSymbols.of([module], [path]), 0)
    writer.write(False)
    nullable = declared_nullable(module)
    return {key: narrowed for key, narrowed in writer.narrowed.items() if key in nullable}


def parsed(text: str, path: str = "narrowing.kite") -> n.Module:
    module = read_syntax(SourceFile(path, text)).module
    assert module is not None
    return module


@pytest.mark.parametrize("form", list(CASES))
def test_each_form_narrows_where_the_table_says_in_the_type_pass_and_in_codegen(form):
    text = PRELUDE + CASES[form]
    module = parsed(text)
    lines = text.split("\n")
    expected = {key: lines[node.line - 1].endswith("# narrowed") for key, node in declared_nullable(module).items()
                if lines[node.line - 1].endswith(("# narrowed", "# nullable"))}
    assert expected, form
    by_analyzer, by_codegen = analyzer_narrowed(module), codegen_narrowed(module, "narrowing.kite")
    assert {key: by_analyzer.get(key) for key in expected} == expected
    assert {key: by_codegen.get(key) for key in expected} == expected


def test_the_type_pass_and_codegen_narrow_the_same_reads_in_every_kite_file():
    compared = narrowed = 0
    for path in sorted(p for folder in ("samples", "tests", "docs") for p in (ROOT / folder).rglob("*.kite")):
        try:
            module = read_syntax(SourceFile(str(path), path.read_text())).module
        except Exception:  # a fixture that is not UTF-8 or not text
            continue
        if module is None:
            continue
        by_analyzer, by_codegen = analyzer_narrowed(module), codegen_narrowed(module, str(path))
        both = by_analyzer.keys() & by_codegen.keys()
        assert {k: by_analyzer[k] for k in both} == {k: by_codegen[k] for k in both}, path
        compared += len(both)
        narrowed += sum(by_codegen[k] for k in both)
    assert narrowed > 50 and compared > narrowed  # both answers, many times over


def test_hover_and_inlay_hints_show_the_narrowed_type():
    text = ('module M\n\nfn f() -> int\n    let parsed = parse_int("42")\n    if parsed != none\n        let next = parsed + 1\n'
            '        return next\n    let again = parsed\n    return 0\n')
    state = Parsed.of("m.kite", text)
    lines = text.split("\n")

    def shown(line: int, word: str, offset: int = 0) -> str:
        return hover(state, line, lines[line].index(word) + offset) or ""
    assert shown(5, "parsed").startswith("```kite\nparsed: int\n```")
    assert "parsed + 1: int" in shown(5, "+")
    assert shown(4, "parsed").startswith("```kite\nparsed: int?\n```")  # what the test tests
    assert shown(7, "parsed").startswith("```kite\nparsed: int?\n```")  # after the block
    assert inlay_hints(state, range(10)) == [(3, 14, ": int?"), (5, 16, ": int"), (7, 13, ": int?")]
