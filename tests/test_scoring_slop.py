"""Slop phrases: by category, code ignored, each hit's span exact; and `kite prose` on a file."""

from __future__ import annotations

import json

import pytest

from conftest import REPO, run_kite
from kite.scoring.answer import extract
from kite.scoring.matching import data
from kite.scoring.slop import CLEAN_MEANS, categories, phrase_pattern, slop

CONTRACT_CATEGORIES = ["filler opener", "fake importance", "hedging", "wrap-up", "rhythm trick"]


def hits(answer: str) -> list[tuple[str, str]]:
    found = slop(extract(answer).prose)
    for hit in found:
        assert answer[hit.start:hit.end] == hit.phrase
    return [(hit.category, hit.phrase) for hit in found]


@pytest.mark.parametrize(("answer", "expected"), [
    ("Certainly! Here is the code.", [("filler opener", "Certainly!")]),
    ("Great question. The loop walks the keys.", [("filler opener", "Great question")]),
    ("Sure.\n\nThe loop walks the keys.", [("filler opener", "Sure.")]),
    ("In short it is an elegant solution.", [("fake importance", "elegant solution")]),
    ("It's important to note that maps walk their keys.", [("fake importance", "It's important to note")]),
    ("This plays a crucial role in the design.", [("fake importance", "plays a crucial role")]),
    ("It could be argued that the loop is slow.", [("hedging", "It could be argued")]),
    ("In conclusion, maps walk keys.", [("wrap-up", "In conclusion")]),
    ("Let me know if you have any questions!", [("wrap-up", "Let me know if you have any")]),
    ("It's not just fast, it's correct.", [("rhythm trick", "It's not just fast, it's")]),
    ("No loops, no state, just a fold.", [("rhythm trick", "No loops, no state, just")]),
    ("The result? A clean module.", [("rhythm trick", "The result?")]),
])
def test_each_category_is_found(answer, expected):
    assert hits(answer) == expected


def test_an_opener_counts_only_where_a_sentence_starts():
    assert hits("Make sure, of course, that it runs.") == []
    assert hits("It runs.\n\n> **Sure!** Here it is.") == [("filler opener", "Sure!")]
    assert hits("It runs. Absolutely, it does.") == [("filler opener", "Absolutely,")]


def test_phrases_match_across_line_breaks_in_any_case_with_either_apostrophe():
    assert hits("IN\nCONCLUSION the map.") == [("wrap-up", "IN\nCONCLUSION")]
    assert hits("It’s worth noting that.") == [("fake importance", "It’s worth noting")]


def test_a_phrase_hidden_from_the_pattern_but_not_from_a_reader_is_found():
    assert hits("In con\u200bclusion, fine.") == [("wrap-up", "In con\u200bclusion")]
    assert hits("ｉｎ ｃｏｎｃｌｕｓｉｏｎ, fine.") == [("wrap-up", "ｉｎ ｃｏｎｃｌｕｓｉｏｎ")]
    assert hits("In cоnclusiоn, fine.") == [("wrap-up", "In cоnclusiоn")]


def test_a_phrase_inside_a_word_is_no_hit():
    assert hits("The probablyish thing; unoverall, remake.") == []
    assert hits("xarguably") == []


def test_code_is_ignored():
    answer = "```kite\n# In conclusion, it's worth noting this.\nfn f()\n    pass\n```\n    # hope this helps\n\nUse `in conclusion` here."
    assert hits(answer) == []


def test_one_stretch_of_words_is_one_hit():
    assert hits("I hope this helps!") == [("wrap-up", "I hope this helps")]


def test_a_clean_text_has_no_hits():
    assert hits("The map walks its keys in insertion order. The test checks two words.") == []


def test_every_phrase_finds_itself_and_the_categories_are_the_taxonomys():
    assert [category.name for category in categories()] == CONTRACT_CATEGORIES
    for entry in data("slop.toml")["category"]:
        for phrase in entry["phrases"]:
            text = f"Start. {phrase} end" if not entry["sentence_start"] else f"{phrase} end"
            assert any(hit.phrase.lower() == phrase.lower() for hit in slop(text)), phrase
            assert phrase_pattern(phrase)


def test_a_huge_prose_is_searched():
    prose = "In conclusion, it works. " * 100_000
    assert len(slop(prose)) == 100_000


def write(tmp_path, name: str, content: bytes):
    path = tmp_path / name
    path.write_bytes(content)
    return str(path)


def test_kite_prose_prints_each_hit_where_it_is(tmp_path):
    path = write(tmp_path, "answer.md", b"Certainly! The code:\r\n\r\n```kite\r\n# in conclusion\r\nfn f()\r\n    pass\r\n```\r\nIn conclusion, hope this helps.\r\n")
    result = run_kite(["prose", path], cwd=REPO)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f'{path}:1:1: filler opener: "Certainly!"',
        f'{path}:8:1: wrap-up: "In conclusion"',
        f'{path}:8:16: wrap-up: "hope this helps"',
        f"3 slop phrases (filler opener 1, wrap-up 2); {CLEAN_MEANS}",
    ]


def test_kite_prose_json_has_the_documented_shape(tmp_path):
    path = write(tmp_path, "answer.md", b"Sure! It works.\n\nOverall, fine.\n")
    result = run_kite(["prose", "--format", "json", path], cwd=REPO)
    document = json.loads(result.output)
    assert result.exit_code == 1 and document["count"] == 2 and document["note"] == CLEAN_MEANS
    assert document["by_category"] == {"filler opener": 1, "fake importance": 0, "hedging": 0, "wrap-up": 1, "rhythm trick": 0}
    assert document["hits"][1] == {"category": "wrap-up", "phrase": "Overall,", "start": 17, "end": 25, "line": 3, "column": 1}


def test_kite_prose_on_a_clean_file_says_what_clean_means(tmp_path):
    result = run_kite(["prose", write(tmp_path, "answer.md", b"The map walks its keys.\n")], cwd=REPO)
    assert result.exit_code == 0 and result.output == f"no known slop phrase; {CLEAN_MEANS}\n"


def test_a_phrase_with_control_characters_is_shown_escaped(tmp_path):
    result = run_kite(["prose", write(tmp_path, "answer.md", b"In\x0bconclusion, fine.\n")], cwd=REPO)
    assert result.exit_code == 1 and '"In\\x0bconclusion"' in result.output.splitlines()[0]


@pytest.mark.parametrize(("content", "message"), [
    (b"\xff\xfe bad", "not valid UTF-8"),
    (b"", "empty file"),
    (b"a\x00b", "binary file"),
])
def test_kite_prose_on_unusable_input_is_one_line_and_exit_2(tmp_path, content, message):
    result = run_kite(["prose", write(tmp_path, "answer.md", content)], cwd=REPO)
    assert result.exit_code == 2 and message in result.output and len(result.output.splitlines()) == 1


def test_kite_prose_has_help():
    result = run_kite(["prose", "--help"], cwd=REPO)
    assert result.exit_code == 0 and "not that the text has no slop" in result.output
