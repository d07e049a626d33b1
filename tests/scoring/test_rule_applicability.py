"""Each rule says where it applies (N/A is left out of its rate) and whether it judges fragments."""

import pytest

from kite.rules import ALL_RULES
from kite.source import SourceFile
from kite.syntax.frontend import read_syntax

RULES = {rule.RULE.id: rule for rule in ALL_RULES}
# Code with nothing any rule but KT000/KT003/KT004 judges: a module with one function returning a value.
BARE = "module Bare\n\nfn one() -> int\n    return 1\n"
HAS = {
    "KT001": "module M\n\nfn f(x: int) -> int\n    x = 2\n    return x\n",
    "KT002": "module M\n\nfn f() -> int\n    let mut n = 1\n    return n\n",
    "KT005": 'module M\n\ntest "t"\n    expect 1 == 1\n',
    "KT006": "module M\n\nfn f(name: str)\n    upper(name)\n",
    "KT007": "module M\n\nuse System.IO\n\nfn f() -> int\n    return 1\n",
    "KT009": "module M\n\nlet width = 3\n\nfn f() -> int\n    return width\n",
    "KT012": 'module M\n\nfn f(name: str) -> str\n    return "hi " + name\n',
    "KT014": "module M\n\nfn f(xs: list<int>) -> int\n    return xs.Count(fn(x) => x > 1)\n",
}
NESTED = {  # the construct deep inside other statements and expressions still counts
    "KT001": "module M\n\nfn f(xs: list<int>) -> int\n    let mut t = 0\n    for x in xs\n        if x > 0\n            t += x\n    return t\n",
    "KT002": "module M\n\nfn f(b: bool) -> int\n    while b\n        if b\n            let mut n = 1\n            return n\n    return 0\n",
    "KT007": 'module M\n\nfn f() -> int\n    let parts = [len(Console.ReadLine())]\n    return parts[0]\n',
}


def module_of(text: str):
    module = read_syntax(SourceFile("m.kite", text)).module
    assert module is not None
    return module


@pytest.mark.parametrize("rule_id", sorted(HAS))
def test_a_rule_applies_only_where_the_code_has_what_it_judges(rule_id):
    assert RULES[rule_id].applies(module_of(HAS[rule_id]))
    assert not RULES[rule_id].applies(module_of(BARE))


@pytest.mark.parametrize("rule_id", sorted(NESTED))
def test_what_a_rule_judges_is_found_however_deep(rule_id):
    assert RULES[rule_id].applies(module_of(NESTED[rule_id]))


def test_only_a_plus_can_join_text():
    others = "module M\n\nfn f(x: int) -> bool\n    let mut y = x * 2 - 1\n    y -= 1\n    return y > 1 and x % 2 == 0\n"
    assert not RULES["KT012"].applies(module_of(others))
    assert RULES["KT012"].applies(module_of(others.replace("y -= 1", "y += 1")))


def test_a_user_type_or_a_value_member_is_not_dotnet():
    record = 'module M\n\ntype Item\n    name: str\n\nfn f(item: Item) -> str\n    return item.name\n'
    assert not RULES["KT007"].applies(module_of(record))


@pytest.mark.parametrize("rule_id", ["KT000", "KT003", "KT004", "KT008", "KT010", "KT013"])
def test_rules_whose_subject_every_module_has_apply_to_the_bare_one(rule_id):
    assert RULES[rule_id].applies(module_of(BARE))


def test_every_rule_declares_whether_it_judges_fragments():
    flags = {rule_id: rule.judges_fragments for rule_id, rule in RULES.items()}
    assert all(isinstance(flag, bool) for flag in flags.values())
    # A snippet's let mut may be changed by code left out, and a bare call in a snippet shows a call.
    assert not flags["KT002"] and not flags["KT006"] and flags["KT004"]


# ---- applicability is judged on the answer's own code, never on what the reader added around a fragment

from kite.scoring.answer import extract  # noqa: E402
from kite.scoring.fragments import parsed  # noqa: E402
from kite.scoring.grading import applicability, program_of, rule_verdicts  # noqa: E402

ANY_CODE = {"KT000", "KT004", "KT010"}  # any code can break these: n/a only for an answer without Kite code
NOTHING_DECLARED = '```kite\nprint("hi")\n```\n'  # read as a function body: the reader adds a module line and a fn


def verdicts_of(answer: str) -> dict[str, str]:
    program = program_of(extract(answer), "Task")
    if program is None:
        return rule_verdicts(None, {}, frozenset())
    whole = parsed(program.source)  # the program as the session reads it
    assert whole is not None
    return rule_verdicts(program, applicability(whole, program.readings[0][1].how == "module"), frozenset())


def test_a_fragment_that_declares_nothing_is_not_judged_by_the_rules_of_declarations():
    verdicts = verdicts_of(NOTHING_DECLARED)
    assert {rule for rule, verdict in verdicts.items() if verdict != "n/a"} == ANY_CODE
    assert verdicts["KT003"] == verdicts["KT008"] == verdicts["KT011"] == verdicts["KT015"] == "n/a"


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_every_rule_can_be_not_applicable(rule_id):
    answer = "No code here, only words." if rule_id in ANY_CODE else NOTHING_DECLARED
    assert verdicts_of(answer)[rule_id] == "n/a"


def test_what_the_answer_declares_itself_still_makes_the_rules_apply():
    assert verdicts_of("```kite\nmodule Task\n\nfn one() -> int\n    return 1\n```\n")["KT003"] == "pass"  # its own module line
    assert verdicts_of("```kite\nfn one() -> int\n    return 1\n```\n")["KT003"] == "pass"  # items: its own fn
    body = verdicts_of('```kite\nlet total = 1\nprint(total)\n```\n')  # a body's let is a local, not a module constant
    assert body["KT003"] == body["KT011"] == "pass" and body["KT009"] == "n/a" and body["KT015"] == "n/a"


def test_applicability_per_block_of_several_ignores_the_wrappers_too():
    answer = NOTHING_DECLARED + '\nAnd:\n\n```kite\nprint("again")\n```\n'
    assert verdicts_of(answer)["KT003"] == "n/a"


def test_the_scoring_doc_lists_every_rule_with_whether_it_judges_fragments():
    import re
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "scoring.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\s*\| (KT\d{3}) \|[^|]*\| (yes|no) \|$", doc, re.MULTILINE))
    assert rows == {rule_id: "yes" if rule.judges_fragments else "no" for rule_id, rule in RULES.items()}
    last = max(RULES)
    assert f"`KT000`..`{last}`" in doc
