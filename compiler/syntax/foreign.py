"""Other languages' statement words, in one place: the layout pass and the parser's messages read them from here.
(C#'s own words that leak into Kite are in leaks.py, with how recovery reads each; C#'s reserved words, which a
Kite name is escaped from, in codegen/types.py.)"""

from __future__ import annotations

import re

# Statements of other languages that open a block of their own: the deeper lines after one are its body, so only
# the statement is reported (by the parser), not an "unexpected indent".
BLOCK_STATEMENTS = frozenset({
    "switch", "try", "catch", "finally", "do", "match", "loop", "def", "with", "case", "default", "repeat", "unless",
    "until", "struct", "interface", "class", "function", "func",
})
# Statements Kite does not have: a line starting with one is "'switch' is not a Kite statement". `class` is not here:
# it is C# leaking in (KT004, leaks.py).
NOT_KITE_STATEMENTS = (BLOCK_STATEMENTS - {"class"}) | {
    "throw", "goto", "import", "from", "lambda", "const", "elseif", "elsif", "end", "then", "yield", "async", "await",
    "del", "global",
}
# Those with a Kite spelling of their own: the fix writes it (and drops the ':' its header may end with).
KITE_SPELLINGS = {"def": "fn", "elsif": "elif", "elseif": "elif", "const": "let"}
BLOCK_STATEMENT = re.compile(r"(?:" + "|".join(sorted(BLOCK_STATEMENTS)) + r")\b")
