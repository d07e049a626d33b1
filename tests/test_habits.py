"""LANGUAGE.md section 12, messages that say what to write: every habit of another language in the table
(kite.syntax.rules.habits(), printed in docs/rules.md) has a fixture in tests/habits/ whose check says its message,
on the habit's line, and nothing cascades from it into another KT000."""

from __future__ import annotations

import pytest

from conftest import REPO, assert_snapshot
from kite.pipeline import kite_layer
from kite.source import decode
from kite.syntax.rules import habits

HABITS = REPO / "tests" / "habits"


def checked(path) -> str:
    _, found = kite_layer(decode(path.name, path.read_bytes()))
    return "".join(d.render() + "\n" for d in found)


@pytest.mark.parametrize("habit", habits(), ids=lambda h: h.slug)
def test_each_habit_has_a_fixture_whose_check_says_what_to_write(habit):
    fixture = HABITS / f"{habit.slug}.kite"
    assert fixture.exists(), f"no fixture tests/habits/{fixture.name} for {habit.written!r}"
    output = checked(fixture)
    assert_snapshot(output, fixture.with_suffix(".expected"))
    habit_line = next(number for number, line in enumerate(fixture.read_text().split("\n"), start=1)
                      if number > 3 and habit.written.split("<")[0].split("(")[0] in line)
    assert f"({habit_line}): error {habit.rule}: {habit.message}" in output
    assert output.count(" KT000: ") == (habit.rule == "KT000")


def test_every_fixture_is_a_habit_of_the_table():
    assert sorted(path.stem for path in HABITS.glob("*.kite")) == sorted(h.slug for h in habits())


def test_no_two_habits_share_a_fixture_and_every_habit_says_what_to_write():
    """C#'s words keep the seed's message ('var' is C#, not Kite); the table and the fix say what to write."""
    table = habits()
    assert len({h.slug for h in table}) == len(table)
    assert [h.written for h in table if not h.write or h.write == h.message] == []
    assert [h.written for h in table if h.language == "Python" and h.write not in h.message] == []


def test_only_a_question_mark_of_a_ternary_is_called_one(tmp_path):
    """C#'s `?.` is no ternary: it keeps the parser's message, and the ternary's advice is not given for it."""
    path = tmp_path / "member.kite"
    path.write_text("module Member\n\nfn f(s: str?) -> int\n    return s?.Length\n")
    output = checked(path)
    assert "KT000" in output and "ternary" not in output
