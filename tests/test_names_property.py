"""Property: names are the program's. Whatever a program calls its functions, parameters, locals, loop variables,
lambda parameters, fields, constants, types and module (C# keywords, Kite keywords, the generator's own helper names,
standard-library names), it never gets KT900, and when Kite accepts it, its tests give the same results."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from lark.lexer import PatternStr

from kite import standard_library
from kite.codegen.types import CSHARP_KEYWORDS, GENERATED_MEMBERS
from kite.diagnostics import Severity
from kite.session import Session
from kite.source import SourceFile
from kite.syntax.parser import lark_parser
from kite.units import Unit

KITE_KEYWORDS = sorted(
    t.pattern.value for t in lark_parser().terminals if isinstance(t.pattern, PatternStr) and t.pattern.value.isalpha()
)
GENERATED = [
    "kite_test__0_1", "kite_test_0_1", "kite_test_1_1", "x__1", "n__1", "limit__2", "other__", "other", "value", "that",
    "kite__std", "kite__std__u", "main", "args", "_", "__", "___u", "v___u", "equals__u", "this", "base", "global",
]
SNAKE_NAMES = sorted(set(CSHARP_KEYWORDS) | set(KITE_KEYWORDS) | set(standard_library.FUNCTIONS) | set(GENERATED) | GENERATED_MEMBERS)
PASCAL_NAMES = [
    "Kite", "Std", "Runtime", "KiteProgram", "Test", "TestAttribute", "ExpectationFailed", "Main", "Equals", "ToString",
    "Object", "String", "List", "Dictionary", "HashSet", "Math", "Program", "EqualityContract", "Func", "Int32",
    "Decimal", "Enumerable", "Console", "Kite__std", "T__1",
]
ROLES = ("function", "param", "maybe", "local", "loop", "lambda", "field", "count", "constant")


def program(names: dict[str, str], module: str, record: str) -> str:
    r = names
    return f"""module {module}

let {r['constant']}: int = 2

type {record}
    {r['field']}: list<int>
    {r['count']}: int

fn {r['function']}({r['param']}: int, {r['maybe']}: int?) -> int
    let {r['local']} = {r['param']} + 1
    let mut total = 0
    for {r['loop']} in range({r['local']})
        total += {r['loop']}
    if {r['maybe']} != none
        total += {r['maybe']}
    return total + [1, 2].Select(fn({r['lambda']}: int) => {r['lambda']} * 2).Sum() + {r['constant']}

test "the names are the program's"
    expect {r['function']}(3, 4) == 18
    expect {record}([1], 2) == {record}([1], 2)
    expect {record}([1], 2).{r['field']} == [1]
    expect {record}([5], 2).{r['count']} == 2
"""


@pytest.fixture(scope="module")
def session():
    with Session() as shared:
        yield shared


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    snake=st.lists(st.sampled_from(SNAKE_NAMES), min_size=len(ROLES), max_size=len(ROLES), unique=True),
    pascal=st.tuples(st.sampled_from(PASCAL_NAMES), st.sampled_from(PASCAL_NAMES)),  # the module and the type, maybe one name
)
def test_any_names_give_no_internal_error_and_the_same_results(session, snake, pascal):
    assume(not set(snake) & set(pascal))  # a function and a type of one name: Kite's own ambiguity, not the generator's
    names = dict(zip(ROLES, snake))
    text = program(names, *pascal)
    report = session_report(session, text)
    if report is None:
        return
    check, outcomes = report
    assert [d.render() for d in check.diagnostics if d.id == "KT900"] == []
    kite_errors = [d for d in check.diagnostics if d.severity is Severity.ERROR and d.id.startswith("KT")]
    if kite_errors:
        return  # Kite refused a name (a keyword, a leak, a standard-library function): an honest answer
    assert [d.render() for d in check.diagnostics if d.severity is Severity.ERROR] == [], text
    assert [(o.status, o.message) for o in outcomes] == [("pass", "")], text


def session_report(session, text: str):
    from kite.errors import UnusableInput

    try:
        report = session.test(Unit(SourceFile("names.kite", text)))
    except UnusableInput:
        return None  # no test blocks survived parsing: nothing to run
    return report.check, report.outcomes


HARD_NAMES = ["_", "__", "value", "__makeref", "kite__std", "Equals", "x__1", "other__", "await"]


@pytest.mark.parametrize("shift", range(len(ROLES)))
def test_the_hardest_names_in_every_role(session, shift):
    """The names most likely to meet generated code; over the shifts, each of them takes each role once."""
    names = {role: HARD_NAMES[(position + shift) % len(HARD_NAMES)] for position, role in enumerate(ROLES)}
    check, outcomes = session_report(session, program(names, "Names", "Holder"))
    assert [d.render() for d in check.diagnostics if d.severity is Severity.ERROR] == []
    assert [(o.status, o.message) for o in outcomes] == [("pass", "")], names
