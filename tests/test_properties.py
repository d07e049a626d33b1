"""Property tests: programs drawn from the grammar itself, and random bytes, never crash the front end."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from kite.errors import UnusableInput
from kite.pipeline import kite_layer
from kite.source import decode
from kite.syntax.parser import grammar_text

GRAMMAR_PROGRAMS = from_lark(
    Lark(grammar_text(), parser="lalr", start="start"),  # uncached: hypothesis reads the grammar object
    start="start",
    explicit={"_INDENT": st.just("    "), "_DEDENT": st.just(""), "_NL": st.sampled_from(["\n", "\n    ", "  # c\n"])},
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def front_end(data: bytes) -> None:
    try:
        source = decode("p.kite", data)
    except UnusableInput:
        return  # a one-line error is an allowed answer
    syntax, found = kite_layer(source)
    assert syntax.module is not None or any(d.id == "KT000" for d in found)


@SETTINGS
@given(GRAMMAR_PROGRAMS)
def test_programs_from_the_grammar_give_diagnostics_or_an_ast(program):
    front_end(program.encode())


@SETTINGS
@given(st.binary(max_size=400))
def test_random_bytes_give_diagnostics_or_a_clear_error(data):
    front_end(data)


@SETTINGS
@given(st.text(alphabet=st.sampled_from(list("module Afnlet=()[]{}:;\n    \t#\"'f$!&|+-*/<>?.,0123456789xy_")), max_size=300))
def test_kite_like_noise_gives_diagnostics(text):
    front_end(text.encode())
