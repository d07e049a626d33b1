"""The format key: the whole answer must be that kind of text, nothing around it."""

import pytest

from kite.scoring.formats import check_format


@pytest.fixture(scope="module")
def session():
    from kite.session import Session

    with Session() as opened:
        yield opened


VALID = [
    ("json", '{"a": [1, 2.5, "x", null]}\n'),
    ("python", "def f(x):\n    return x + 1\n"),
    ("regex", r"^(?<year>\d{4})-\d{2}$"),  # .NET's named group spelling
    ("csharp", "public static class Answer\n{\n    public static int Twice(int x) => 2 * x;\n}\n"),
]
INVALID = [
    ("json", '{"a": NaN}', "NaN is not JSON"),
    ("json", '{"a": 1} trailing words', "not JSON"),
    ("json", "Here you go:\n{\"a\": 1}", "not JSON"),
    ("python", "Sure! Here is the code:\ndef f(): pass", "not Python"),
    ("python", "   \n", "empty"),
    ("python", "```python\nx = 1\n```", "fenced"),
    ("regex", "(unclosed", "not a .NET regex"),
    ("regex", "The regex is:\n^a+$", "more than one line"),
    ("regex", "~~~\n^a+$\n~~~", "fenced"),
    ("csharp", "Here is the class: public class A {}", "does not compile as C#"),
]


@pytest.mark.parametrize(("fmt", "text"), VALID)
def test_exactly_the_format_is_valid(session, fmt, text):
    assert check_format(session, fmt, text).reason == ""


@pytest.mark.parametrize(("fmt", "text", "why"), INVALID)
def test_prose_a_fence_or_a_syntax_error_fails(session, fmt, text, why):
    assert why in check_format(session, fmt, text).reason


def test_the_regex_flavor_decides_what_compiles(session):
    dotnet_only = r"(?<year>\d{4})"  # Python spells a named group (?P<year>...)
    assert check_format(session, "regex", dotnet_only, "dotnet").valid
    assert not check_format(session, "regex", dotnet_only, "python").valid
    assert check_format(session, "regex", r"(?P<year>\d{4})", "python").valid


def test_csharp_answers_get_the_analyzers_too(session):
    verdict = check_format(session, "csharp", "public class A\n{\n    public void F() { int unused = 1; }\n}\n")
    assert verdict.valid and any(d.id == "CS0219" for d in verdict.diagnostics)
