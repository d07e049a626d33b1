"""Prose and code apart: every block found the way CommonMark reads it, every position pointing into the answer."""

from __future__ import annotations

import re

from hypothesis import given, settings, strategies as st

from kite.scoring.answer import extract

# What may stay in the prose between a block's start and end: a quote's or a list's markers on its later lines.
CONTAINER_MARKERS = " \t\r\n>-*+.)0123456789"


def assert_well_formed(answer: str) -> None:
    """What holds for any answer: the prose is the answer with code blanked in place, and spans point into it."""
    extraction = extract(answer)
    prose = extraction.prose
    assert len(prose) == len(answer)
    for index, (written, kept) in enumerate(zip(answer, prose)):
        assert kept == written or (kept == " " and written not in "\r\n"), index
    previous_end = 0
    for block in extraction.blocks:
        assert previous_end <= block.start <= block.end <= len(answer)
        assert not prose[block.start:block.end].strip(CONTAINER_MARKERS), "code left in the prose"
        if block.text[:1] not in ("", " ", "\t", "\n"):
            assert answer[block.start].replace("\0", "\ufffd") == block.text[0]
        previous_end = block.end


def only_block(answer: str):
    [block] = extract(answer).blocks
    return block


def test_a_tagged_block_is_found_with_its_exact_span_and_its_fences_blanked():
    answer = "Here it is:\n\n```kite\nmodule Shop\n\nfn add(a: int, b: int) -> int\n    return a + b\n```\nDone.\n"
    block = only_block(answer)
    assert (block.language, block.fence, block.is_kite) == ("kite", "```", True)
    assert block.text == "module Shop\n\nfn add(a: int, b: int) -> int\n    return a + b"
    assert answer[block.start:block.end] == block.text
    prose = extract(answer).prose
    assert "```" not in prose and "kite" not in prose and prose.startswith("Here it is:") and prose.endswith("Done.\n")


def test_tilde_fences_and_indented_blocks_are_code():
    tilde = only_block("~~~kite\nfn f()\n    pass\n~~~\n")
    indented = only_block("Text.\n\n    fn f()\n        pass\n\nMore text.\n")
    assert (tilde.fence, tilde.text) == ("~~~", "fn f()\n    pass")
    assert (indented.fence, indented.language, indented.text, indented.is_kite) == ("indented", "", "fn f()\n    pass", True)


def test_the_info_string_gives_the_language_lower_case_first_word():
    answer = "```Kite title=\"shop\"\nfn f()\n    pass\n```\n```CSharp\nvar x = 1;\n```\n```\nfn g()\n    pass\n```\n"
    assert [(b.language, b.is_kite) for b in extract(answer).blocks] == [("kite", True), ("csharp", False), ("", True)]
    for info in ("{.kite}", "{.kite .numberLines}", "kite,linenums", " kite"):
        assert only_block(f"```{info}\nfn f()\n    pass\n```\n").language == "kite", info


def test_a_block_tagged_with_another_language_is_never_graded_as_kite_even_when_it_parses():
    assert not only_block("```python\nprint(x)\n```\n").is_kite
    assert not only_block("```text\nfn f()\n    pass\n```\n").is_kite


def test_untagged_blocks_are_kite_only_when_they_read_as_kite():
    kite = ["module Shop\nfn f()\n    pass", "fn add(a: int) -> int\n    return a", "let mut total = 0\ntotal += 1\nprint(total)",
            "let x = 1;\nprint(x)\nprint(x + 1)", "print(add(1, 2))", "total += 1"]
    not_kite = ["def f(x):\n    return x", "42", "[1, 2, 3]", "true", "{\"a\": 1}", "$ kite check shop.kite",
                "hello world", "Total: 12.0", "PASS counts words\n1 passed, 0 failed", ""]
    for code in kite:
        assert only_block(f"```\n{code}\n```\n").is_kite, code
    for code in not_kite:
        assert not only_block(f"```\n{code}\n```\n").is_kite, code


def test_an_untagged_csharp_snippet_is_not_kite_but_kite_with_csharp_habits_is():
    csharp = ["using System;\nclass P { static void Main() { Console.WriteLine(1); } }", "var x = 1;\nx++;",
              "Console.WriteLine(total);"]
    kite_with_habits = ["fn add(a: int, b: int) -> int {\n    return a + b;\n}", "let mut n = 0;\nn++;",
                        "fn f()\n    var x = new List<int>();\n    x.Add(1);"]
    for code in csharp:
        assert not only_block(f"```\n{code}\n```\n").is_kite, code
    for code in kite_with_habits:
        assert only_block(f"```\n{code}\n```\n").is_kite, code


def test_untagged_kite_that_does_not_parse_is_still_graded_as_kite():
    broken = ["module Shop\nfn f(\n    pass", "fn add(a: int, b: int) -> int:\n    return a + b", "test \"adds\"\n  expect add(1, 2) == 3"]
    for code in broken:
        assert only_block(f"```\n{code}\n```\n").is_kite, code


def test_a_nested_fence_is_the_text_of_the_outer_block():
    answer = "````markdown\nSome doc:\n```kite\nfn f()\n    pass\n```\n````\n"
    block = only_block(answer)
    assert (block.language, block.is_kite) == ("markdown", False)
    assert "```kite" in block.text and not extract(answer).prose.strip()


def test_crlf_answers_keep_their_offsets_and_line_ends():
    answer = "Intro.\r\n\r\n```kite\r\nfn f()\r\n    pass\r\n```\r\nIt compiles.\r\n"
    extraction = extract(answer)
    [block] = extraction.blocks
    assert block.text == "fn f()\n    pass"  # CommonMark's lines, joined by LF
    assert answer[block.start:block.end] == "fn f()\r\n    pass"
    assert extraction.prose.count("\r\n") == answer.count("\r\n")
    assert extraction.prose.index("It compiles.") == answer.index("It compiles.")


def test_a_lone_cr_ends_a_line_as_it_does_for_markdown_it():
    answer = "Intro.\r```\rfn f()\r    pass\r```\rafter"
    block = only_block(answer)
    assert (block.text, answer[block.start:block.end]) == ("fn f()\n    pass", "fn f()\r    pass")
    assert extract(answer).prose.endswith("\rafter")


def test_tabs_in_code_are_kept_as_written():
    answer = "```kite\nfn f()\n\tpass\n```\n"
    block = only_block(answer)
    assert block.text == "fn f()\n\tpass" and answer[block.start:block.end] == block.text


def test_offsets_count_characters_not_bytes():
    answer = "Ça marche 🎉 — 日本語 e\u0301.\n\n```kite\nfn f()\n    print(\"🎉\")\n```\n🎉 fin"
    block = only_block(answer)
    assert answer[block.start:block.end] == block.text == "fn f()\n    print(\"🎉\")"
    assert extract(answer).prose.endswith("🎉 fin")


def test_an_unterminated_fence_runs_to_the_end_of_the_answer():
    answer = "Text.\n\n```kite\nfn f()\n    pass"
    block = only_block(answer)
    assert block.text == "fn f()\n    pass" and block.end == len(answer)
    assert extract(answer).prose.rstrip() == "Text."
    assert only_block("```kite\nfn f()\n    pass\n").text == "fn f()\n    pass"


def test_an_empty_fence_is_an_empty_block():
    block = only_block("a\n\n```kite\n```\nb")
    assert (block.text, block.start, block.end, block.is_kite) == ("", 11, 11, True)


def test_code_in_a_list_item_and_in_a_quote_points_at_the_code_not_the_markers():
    listed = "1. Write:\n\n   ```kite\n   fn f()\n       pass\n   ```\n2. Done\n"
    quoted = "> ```kite\n> fn f()\n>     pass\n> ```\n"
    for answer in (listed, quoted):
        extraction = extract(answer)
        [block] = extraction.blocks
        assert block.text == "fn f()\n    pass"
        assert answer[block.start:block.start + 6] == "fn f()"
        assert "fn" not in extraction.prose and "pass" not in extraction.prose
    assert extract(listed).prose.startswith("1. Write:") and "2. Done" in extract(listed).prose
    assert extract(quoted).prose.count(">") == 4  # the quote's markers are the quote's, not code


def test_html_blocks_follow_commonmark():
    inside_pre = "<pre>\n```kite\nfn f()\n    pass\n```\n</pre>\n"
    after_details = "<details>\n\n```kite\nfn f()\n    pass\n```\n\n</details>\n"
    assert extract(inside_pre).blocks == () and extract(inside_pre).prose == inside_pre
    assert only_block(after_details).text == "fn f()\n    pass"


def test_inline_code_is_blanked_with_its_backticks():
    answer = "Use `let` here, ``a`b`` there, and `` `x` `` too; `it compiles` is code."
    prose = extract(answer).prose
    assert prose == re.sub(r"`` `x` ``|``a`b``|`[^`]*`", lambda m: " " * len(m.group()), answer)
    assert "compiles" not in prose and len(prose) == len(answer)


def test_backticks_that_open_no_code_span_stay_prose():
    answer = "An escaped \\` tick, then `code`, and a <a title=\"`\">link</a> and `more`."
    prose = extract(answer).prose
    assert "escaped \\` tick" in prose and 'title="`"' in prose
    assert "code" not in prose and "more" not in prose


def test_an_inline_span_across_lines_keeps_the_line_end():
    answer = "Call `split(\ntext)` now."
    assert extract(answer).prose == "Call " + " " * len("`split(") + "\n" + " " * len("text)`") + " now."


def test_fifty_blocks_are_all_found_in_order():
    answer = "".join(f"Step {i}:\n\n```kite\nfn step_{i}()\n    pass\n```\n\n" for i in range(50))
    blocks = extract(answer).blocks
    assert len(blocks) == 50
    for i, block in enumerate(blocks):
        assert answer[block.start:block.end] == block.text == f"fn step_{i}()\n    pass"
    assert_well_formed(answer)


def test_a_five_megabyte_answer_is_extracted():
    code = "fn f()\n    pass\n" * 50_000
    answer = "It compiles. " * 320_000 + "\n\n```kite\n" + code + "```\n" + "x `y` " * 50_000
    extraction = extract(answer)
    assert len(answer) > 5_000_000 and len(extraction.prose) == len(answer)
    [block] = extraction.blocks
    assert block.text == code.rstrip("\n") and answer[block.start:block.end] == block.text
    assert extraction.prose.count("y") == 0


def test_a_huge_untagged_block_is_not_probed_as_kite():
    assert not only_block("```\n" + "fn f()\n    pass\n" * 10_000 + "```\n").is_kite


def test_nul_and_control_characters_keep_their_places():
    answer = "a\0b `c\0` d\n\n```kite\nfn f()\n    print(\"\0\")\n```\n\x1b[31m"
    extraction = extract(answer)
    [block] = extraction.blocks
    assert extraction.prose.startswith("a\0b      d") and extraction.prose.endswith("\x1b[31m")
    assert answer[block.start:block.end] == "fn f()\n    print(\"\0\")" and "print" not in extraction.prose


def test_empty_and_blank_answers():
    assert extract("") == extract("")  # no crash, nothing found
    assert extract("").blocks == () and extract("").prose == ""
    assert extract(" \n\t\n").prose == " \n\t\n"


MARKDOWN_PIECES = st.sampled_from([
    "```", "~~~", "````", "```kite", "```csharp", "\n", "\r\n", "\r", "    ", "\t", "> ", "- ", "1. ", "`", "``", "\\",
    "fn f()", "    pass", "let x = 1", "It compiles.", "<pre>", "</pre>", "<div>", "# ", "é", "🎉", "\0", " ", "x",
    "\x0b", "\x0c", "\u2028", "\x85", "* ", "+ ", "  ", ">",
])


@settings(max_examples=500, deadline=None)
@given(st.lists(MARKDOWN_PIECES, max_size=40).map("".join))
def test_any_answer_gives_a_prose_of_the_same_shape(answer):
    assert_well_formed(answer)
