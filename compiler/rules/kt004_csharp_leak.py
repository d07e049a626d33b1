"""KT004: another language (C#, or Python's spellings of Kite's words) written into Kite.

The syntax stage reports it, while it reads the text: declared there (kite.syntax.rules)."""

from kite.syntax.rules import CSHARP_LEAK as RULE  # noqa: F401 -- the rule contract (kite.rules) reads RULE

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = True


def applies(module):
    return True  # any code at all can be written in C#
