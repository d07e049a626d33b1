"""The static layers are bounded: diagnostics merge in linear time, input has a size limit, Roslyn has a budget."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kite.diagnostics import Diagnostic, Layer, Severity, ordered
from kite.pipeline import SAME_PROBLEM, merge
from kite.syntax.frontend import SyntaxResult

FILES = ("a.kite", "a.test.kite")
KITE_IDS = sorted(SAME_PROBLEM)
CSHARP_IDS = sorted({same for ids in SAME_PROBLEM.values() for same in ids} | {"CS0029", "CS0103", "CA1829"})


def diagnostics(ids, layer):
    return st.builds(
        Diagnostic, st.sampled_from(FILES), st.integers(1, 6), st.integers(0, 3), st.sampled_from(list(Severity)),
        st.sampled_from(ids), st.sampled_from(["m", "n"]), st.just(layer),
    )


def merged_by_definition(kite, csharp, syntax):
    """The merge as the rule states it, one comparison per pair: what the linear merge must still keep."""
    kept = list(kite)
    for d in csharp:
        result = syntax.get(d.file)
        if result is not None and (d.line in result.leaked_lines or d.line in result.replaced_lines):
            continue
        if any(k.file == d.file and k.line == d.line and d.id in SAME_PROBLEM.get(k.id, ()) for k in kite):
            continue
        kept.append(d)
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


def test_merge_drops_the_compilers_word_for_a_problem_kite_reports_on_that_line_only():
    def at(line, rule_id, layer):
        return Diagnostic("a.kite", line, 1, Severity.ERROR, rule_id, "m", layer)

    kite = [at(3, "KT001", Layer.KITE)]
    csharp = [at(3, "CS0191", Layer.COMPILER), at(4, "CS0191", Layer.COMPILER), at(3, "CS0029", Layer.COMPILER)]
    assert merge(kite, csharp, {}) == [kite[0], csharp[2], csharp[1]]
