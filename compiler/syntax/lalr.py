"""A tight LALR driver over Lark's own tables: the same AST as Lark's parse and KiteTransformer, in about half
the time (docs/graph.md, "Speed").

Lark stays the source of everything: the grammar, the LALR tables, each state's contextual lexer (its compiled
regular expressions and keyword callbacks), which children each rule keeps and where its `[optional]` placeholders go.
What is ours is only the loop: one function with its locals bound, the Indenter inline, no generic per-token
machinery, the transformer's methods called straight from each reduction (no Tree). It answers only when the whole
text parses and transforms: on anything else (a syntax error, a KiteSyntaxError from a callback, an input Lark's
lexer would treat in a way this loop does not model) it gives None and the caller parses with Lark, so messages and
recovery stay exactly Lark's. tests/test_lalr.py parses every .kite file of the repository, and mutations of them,
both ways and compares.
"""

from __future__ import annotations

import functools
import operator
import os
import re

# The regex engine's own parser and compiler (no stubs; sre_parse, their public name, warns it is deprecated): what
# FirstCharacter reads a terminal's first characters with. A change in them makes every character a first one.
import re._compiler as re_compiler  # type: ignore[import-not-found]
import re._constants as re_constants  # type: ignore[import-not-found]
import re._parser as re_parser  # type: ignore[import-not-found]
from collections.abc import Callable
from typing import Any

from lark import Lark, Token
from lark.lexer import UnlessCallback
from lark.parsers.lalr_analysis import Shift

try:  # the same loop in C (compiler/syntax/_lalr.c), built by `pip install` when a C compiler is there
    from kite.syntax import _lalr as _c_loop  # type: ignore[attr-defined]
except ImportError:
    _c_loop = None
if os.environ.get("KITE_PYTHON_LOOP_ONLY"):  # to measure or rule out the C loop (benchmarks/parse_stages.py)
    _c_loop = None

_new_text = str.__new__

# How a reduction takes its children from the values of its rule's symbols (see _rule_recipe).
PASS_ONE = 0  # an inlined rule (`?rule`) left with one child: that child's value, unchanged
TAKE_ALL = 1  # every symbol's value, in order
TAKE_ONE = 2  # one symbol's value, in a list
TAKE_SOME = 3  # some symbols' values (an itemgetter), in a list
LAYOUT = 4  # placeholders for missing `[optional]`s, or a `_rule`'s children spliced in: as Lark's ChildFilterLALR

# What it then makes of them.
CALL = 0  # the transformer's method
SPLICE = 1  # the list itself: a `_rule`, whose children its parent takes in
INLINE = 2  # an inlined rule's only child, or else the transformer's method (or its __default__ Tree)


# Tables.token_kinds's bits (compiler/syntax/_lalr.c has the same)
IGNORED, NEWLINE, KEPT, OPENING, CLOSING = 1, 2, 4, 8, 16


class Tables:
    """Lark's parse table and contextual lexer for one grammar, as flat lookups for the loop."""

    def __init__(self, lark: Lark, indenter: Any, transformer_class: type):
        frontend = lark.parser
        parser = frontend.parser.parser
        table = parser.parse_table
        contextual = frontend.lexer.lexer
        self.start_states = dict(table.start_states)
        self.end_states = dict(table.end_states)
        self.rules: list[tuple] = []
        rule_numbers: dict[Any, int] = {}
        self.actions: dict[int, dict[str, int]] = {}  # state -> symbol -> next state, or ~rule number to reduce
        for state, actions in table.states.items():
            row = {}
            for symbol, (action, argument) in actions.items():
                if action is Shift:
                    row[symbol] = argument
                else:
                    if argument not in rule_numbers:
                        rule_numbers[argument] = len(self.rules)
                        self.rules.append(_rule_recipe(argument, lark.options.maybe_placeholders, transformer_class))
                    row[symbol] = ~rule_numbers[argument]
            self.actions[state] = row
        self.kept_terminals = frozenset(
            symbol.name for rule in lark.rules for symbol in rule.expansion if symbol.is_term and not getattr(symbol, "filter_out", False)
        )
        ignored = {lexer.ignore_types for lexer in contextual.lexers.values()}
        if len(ignored) != 1:
            raise Unsupported(ignored)
        self.ignored = ignored.pop()
        self.newline_types = frozenset().union(*(lexer.newline_types for lexer in contextual.lexers.values()))
        self.lexers: dict[int, tuple] = {}
        by_lexer: dict[int, tuple] = {}
        compiled: dict[str, Callable] = {}
        for state, lexer in contextual.lexers.items():
            if id(lexer) not in by_lexer:
                by_lexer[id(lexer)] = _lexer_recipe(lexer, compiled)
            self.lexers[state] = by_lexer[id(lexer)]
        self.chains: dict[tuple[int, int, str], int] = {}  # see _after_chain
        # The C loop's view: rows by state number (Lark numbers them 0..n-1), the end states as one set.
        count = len(self.actions)
        dense = set(self.actions) == set(range(count)) and set(self.lexers) == set(range(count))
        self.action_rows = [self.actions[state] for state in range(count)] if dense else None
        self.lexer_rows = [self.lexers[state] for state in range(count)] if dense else None
        self.end_state_set = frozenset(self.end_states.values())
        self.indenter = (indenter.NL_type, frozenset(indenter.OPEN_PAREN_types), frozenset(indenter.CLOSE_PAREN_types),
                         indenter.INDENT_type, indenter.DEDENT_type, indenter.tab_len)
        # The C loop asks one dict what a terminal is, where the Python loop asks these five sets.
        kinds = ((IGNORED, self.ignored), (NEWLINE, self.newline_types), (KEPT, self.kept_terminals),
                 (OPENING, self.indenter[1]), (CLOSING, self.indenter[2]))
        self.token_kinds = {name: sum(bit for bit, names in kinds if name in names) for _, names in kinds for name in names}


class Unsupported(Exception):
    """Lark's configuration holds something this loop does not model: parse with Lark alone."""


def _rule_recipe(rule, placeholders: bool, transformer_class: type) -> tuple:
    """(symbols popped, the symbol to go to, PASS_ONE and the child's index, or BUILD and the rule's child layout and
    callback): as lark.parse_tree_builder's ChildFilterLALR, ExpandSingleChild and create_callback would build it."""
    options = rule.options
    if options.keep_all_tokens or rule.options.template_source:
        raise Unsupported(rule)
    empty = options.empty_indices if placeholders else ()
    if empty:
        counts = [len(ones) for ones in "".join(str(int(b)) for b in empty).split("0")]
    else:
        counts = [0] * (len(rule.expansion) + 1)
    layout: list[tuple[int, bool, int]] = []  # (index in the expansion, spliced, placeholders before it)
    pending = 0
    for index, symbol in enumerate(rule.expansion):
        pending += counts[index]
        if not (symbol.is_term and symbol.filter_out):
            layout.append((index, not symbol.is_term and symbol.name.startswith("_"), pending))
            pending = 0
    trailing = pending + counts[len(rule.expansion)]
    name = rule.alias or rule.origin.name
    expand_one = bool(options.expand1 and not rule.alias)
    size = len(rule.expansion)
    plain = not trailing and not any(spliced or placeholders for _, spliced, placeholders in layout)
    if expand_one and plain and len(layout) == 1:
        return (size, rule.origin.name, PASS_ONE, layout[0][0] - size)
    taken: Any
    if plain and size and len(layout) == size:
        take, taken = TAKE_ALL, None
    elif plain and len(layout) == 1:
        take, taken = TAKE_ONE, layout[0][0] - size
    elif plain and len(layout) > 1:
        take, taken = TAKE_SOME, operator.itemgetter(*(index - size for index, _, _ in layout))
    else:
        take, taken = LAYOUT, (tuple(layout), trailing)
    if name.startswith("_"):
        if expand_one:
            raise Unsupported(rule)
        return (size, rule.origin.name, take, taken, SPLICE, None, name)
    callback = getattr(transformer_class, name, None)
    if callback is not None and getattr(callback, "visit_wrapper", None) is not None:
        raise Unsupported(rule)
    if callback is not None and not expand_one:
        return (size, rule.origin.name, take, taken, CALL, callback, name)
    return (size, rule.origin.name, take, taken, INLINE, callback, name)


def _lexer_recipe(lexer, compiled: dict) -> tuple:
    """(the match of the scanner's one compiled expression, the keyword callbacks by type, and by the first character
    of the text left, for ASCII, the match of an expression holding only the terminals that can start with it, or a
    run to scan (FirstCharacter): made on first use, in `compiled` by pattern for every lexer).

    The regex engine tries a state's terminals one after another at every token, so a name behind thirty failing
    alternatives cost thirty tries; the terminals left keep their order, so the first that matches is the same."""
    scanner = lexer.scanner  # built on first use: this builds lexer.callback too
    if len(scanner._mres) != 1:
        raise Unsupported(lexer)
    keywords: dict[str, tuple[Callable, dict]] = {}
    for type_, callback in lexer.callback.items():
        if not isinstance(callback, UnlessCallback):
            raise Unsupported(type_)
        keywords[type_] = (callback.scanner.fullmatch, {})
    by_first: list = [None] * ASCII
    return scanner._mres[0].match, keywords, by_first, FirstCharacter(scanner, by_first, compiled)


ASCII = 128


class FirstCharacter:
    """Makes a lexer's match for texts starting with one ASCII character: the terminals a match can start with it, in
    their order, or the whole expression where that is all of them (or none: it fails there as it would). A
    terminal's first characters come from the regex parser's tree of its pattern; anything that tree holds that is
    not read here (a back reference, a flag set inside) counts as every character, so a terminal is only ever kept
    in without need, never left out.

    Where the only terminal is a run of ASCII characters (`[\t ]+` between tokens, `[A-Za-z_][A-Za-z0-9_]*` for a
    name, `(` alone), it makes (its type, the run's first characters, the characters after them) instead: the loops
    scan the run without a match, which is the regex's work twice over for the commonest tokens."""

    def __init__(self, scanner, by_first: list, compiled: dict):
        self._scanner, self._by_first, self._compiled = scanner, by_first, compiled
        self._firsts: list[frozenset[int]] | None = None

    def __call__(self, code: int):
        scanner = self._scanner
        if self._firsts is None:
            self._firsts = [_first_characters(t.pattern.to_regexp(), scanner.g_regex_flags) for t in scanner.terminals]
        terminals = [t for t, first in zip(scanner.terminals, self._firsts) if code in first]
        run = _run_of(terminals[0].pattern.to_regexp(), scanner.g_regex_flags) if len(terminals) == 1 else None
        if run is not None and chr(code) in run[0]:
            self._by_first[code] = (terminals[0].name, *run)
            return self._by_first[code]
        match = scanner._mres[0].match
        if terminals and len(terminals) < len(scanner.terminals):
            pattern = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals)
            if pattern not in self._compiled:
                self._compiled[pattern] = scanner.re_.compile(pattern, scanner.g_regex_flags).match
            match = self._compiled[pattern]
        self._by_first[code] = match
        return match


EVERY_CHARACTER = frozenset(range(ASCII))


@functools.cache  # the states' lexers share their terminals: each pattern is read once
def _first_characters(pattern: str, flags: int) -> frozenset[int]:
    """The ASCII characters a match of `pattern` can start with (every one where it can match the empty text)."""
    try:
        first, empty = _first_of(re_parser.parse(pattern, flags), flags)
    except Exception:  # a pattern this reading does not know: any character may start it
        return EVERY_CHARACTER
    return EVERY_CHARACTER if empty else frozenset(first)


@functools.cache  # as _first_characters: every state's lexer with the terminal asks again
def _run_of(pattern: str, flags: int) -> tuple[str, str] | None:
    """(the first characters, the characters after them) of a pattern that is one run of ASCII characters: one of some
    characters and then as many of others as there are (`[A-Za-z_][A-Za-z0-9_]*`), one or more of the same
    (`[\t ]+`), or one character alone (`(`, `[*/%]`: nothing after it). None for any other pattern."""
    try:
        items = list(re_parser.parse(pattern, flags))
    except Exception:  # a pattern this reading does not know is not a run
        return None
    if flags & re.IGNORECASE:
        return None
    if len(items) == 1 and items[0][0] is not re_constants.MAX_REPEAT:
        head = _characters_of(*items[0])  # one character
        return (head, "") if head else None
    if len(items) == 1 and items[0][1][0] == 1:
        first, repeat = items[0][1][2], items[0]  # one or more
    elif len(items) == 2 and items[1][0] is re_constants.MAX_REPEAT and items[1][1][0] == 0:
        first, repeat = [items[0]], items[1]  # one, then any number
    else:
        return None
    _, high, repeated = repeat[1]
    if high is not re_constants.MAXREPEAT or len(first) != 1 or len(repeated) != 1:
        return None
    head, tail = _characters_of(*first[0]), _characters_of(*repeated[0])
    return (head, tail) if head and tail else None


def _characters_of(op, argument) -> str:
    """The characters one item of the regex parser's tree matches, where it is a literal or a set of literals and
    ranges, all ASCII; "" for any other item."""
    codes = _codes_of(op, argument)
    return "".join(map(chr, sorted(codes))) if codes and max(codes) < ASCII else ""


def _codes_of(op, argument) -> set[int] | None:
    """The character codes a literal or a set of literals and ranges matches (without IGNORECASE); None for any other
    item of the regex parser's tree."""
    if op is re_constants.LITERAL:
        return {argument}
    if op is re_constants.IN and all(item_op in (re_constants.LITERAL, re_constants.RANGE) for item_op, _ in argument):
        return {code for item_op, value in argument for code in ((value,) if item_op is re_constants.LITERAL else range(value[0], value[1] + 1))}
    return None


def _first_of(items, flags: int) -> tuple[set[int], bool]:
    """(the first characters of a sequence of the regex parser's items, whether it can match the empty text)."""
    first: set[int] = set()
    for op, argument in items:
        if op in ONE_CHARACTER:
            first |= _one_character(op, argument, flags)
            return first, False
        if op is re_constants.SUBPATTERN and not argument[1] and not argument[2]:  # a group, no flags of its own
            inner, empty = _first_of(argument[3], flags)
        elif op is re_constants.ATOMIC_GROUP:
            inner, empty = _first_of(argument, flags)
        elif op is re_constants.BRANCH:
            parts = [_first_of(branch, flags) for branch in argument[1]]
            inner, empty = set().union(*(part for part, _ in parts)), any(e for _, e in parts)
        elif op in REPEATS:
            inner, empty = _first_of(argument[2], flags)
            empty = empty or argument[0] == 0
        elif op in ZERO_WIDTH:  # an anchor or a lookaround only narrows where a match starts
            continue
        else:
            return set(EVERY_CHARACTER), True
        first |= inner
        if not empty:
            return first, False
    return first, True


def _one_character(op, argument, flags: int) -> set[int] | frozenset[int]:
    """The ASCII characters one item matches: read off a literal or a set of literals and ranges (most terminals),
    else the item compiled alone, with the pattern's flags, and asked about every ASCII character."""
    codes = None if flags & re.IGNORECASE else _codes_of(op, argument)
    if codes is not None:
        return {code for code in codes if code < ASCII}
    one = re_compiler.compile(re_parser.SubPattern(re_parser.State(), [(op, argument)]), flags).match
    return {code for code in range(ASCII) if one(chr(code))}


ONE_CHARACTER = (re_constants.LITERAL, re_constants.NOT_LITERAL, re_constants.IN, re_constants.ANY, re_constants.CATEGORY)
REPEATS = (re_constants.MAX_REPEAT, re_constants.MIN_REPEAT, re_constants.POSSESSIVE_REPEAT)
ZERO_WIDTH = (re_constants.AT, re_constants.ASSERT, re_constants.ASSERT_NOT)


def tables_for(lark: Lark, transformer_class: type) -> Tables | None:
    """The driver's tables for this Lark parser and transformer; None when Lark's configuration holds something the
    driver does not model (then every parse is Lark's)."""
    try:
        return Tables(lark, lark.options.postlex, transformer_class)
    except Unsupported:
        return None


def parse(tables: Tables | None, text: str, start: str, transformer, line_offset: int = 0, column_offset: int = 0):
    """The transformer's result for `text` parsed from `start`, tokens moved `line_offset` lines down and, on the
    text's first line, `column_offset` columns right; None when this loop cannot answer (the caller asks Lark)."""
    if tables is None:
        return None
    try:
        if _c_loop is not None and tables.action_rows is not None:
            return _c_run(tables, text, start, transformer, line_offset, column_offset)
        return _run(tables, text, start, transformer, line_offset, column_offset)
    except Exception:  # any failure is Lark's to report, in its own words
        return None


def c_loop_in_use() -> bool:
    """Whether parse runs the C loop (compiler/syntax/_lalr.c built and importable)."""
    return _c_loop is not None


def _c_run(tables: Tables, text: str, start: str, transformer, line_offset: int, column_offset: int):
    """_run's answer from the C loop: the same tables, regular expressions, Tokens and callbacks."""
    assert _c_loop is not None
    return _c_loop.run(tables.action_rows, tables.rules, tables.lexer_rows, tables.chains, tables.token_kinds,
                       tables.indenter, tables.start_states[start],
                       tables.end_states[start], tables.end_state_set, tables.actions, _after_chain, Token,
                       text, transformer, line_offset, column_offset)


def _run(tables: Tables, text: str, start: str, transformer, line_offset: int, column_offset: int):
    actions, rules, lexers, chains = tables.actions, tables.rules, tables.lexers, tables.chains
    kept, newline_types, ignored = tables.kept_terminals, tables.newline_types, tables.ignored
    nl_type, opening, closing, indent_type, dedent_type, tab_len = tables.indenter
    end_state = tables.end_states[start]
    new_text, token_class = _new_text, Token
    state = tables.start_states[start]
    states: list[int] = [state]
    values: list = []
    levels = [0]
    depth = 0  # brackets open: the Indenter ignores line breaks inside them
    pos, length = 0, len(text)
    line, line_start = 1, 0
    token = None
    while True:
        if pos < length:
            match_at, keywords, by_first, first_character = lexers[state]
            code = ord(text[pos])
            if code < ASCII:
                match_at = by_first[code] or first_character(code)
            if match_at.__class__ is tuple:  # one terminal, a run of characters: scanned (FirstCharacter)
                type_, _, tail = match_at
                end = pos + 1
                while end < length and text[end] in tail:
                    end += 1
            else:
                match = match_at(text, pos)
                if match is None:
                    return None
                type_, end = match.lastgroup, match.end()
            if type_ in ignored and type_ not in newline_types:
                pos = end
                continue
            lexeme = text[pos:end]
            start_line, start_column = line, pos - line_start + 1
            if type_ in newline_types:
                breaks = lexeme.count("\n")
                if breaks:
                    line += breaks
                    line_start = pos + lexeme.rindex("\n") + 1
            token_start, pos = pos, end
            if type_ in ignored:
                continue
            if type_ in keywords:
                fullmatch, known = keywords[type_]
                retyped = known.get(lexeme)
                if retyped is None:
                    retyped = known[lexeme] = fullmatch(lexeme) or type_
                type_ = retyped
            if type_ in kept:
                token = new_text(token_class, lexeme)
                token.type, token.value, token.start_pos, token.end_pos = type_, lexeme, token_start, end
                token.line, token.end_line = start_line + line_offset, line + line_offset
                token.column = start_column + column_offset if start_line == 1 else start_column
                token.end_column = end - line_start + 1 + (column_offset if line == 1 else 0)
            else:
                token = None
            if type_ == nl_type:
                if depth:
                    continue
                indent_text = lexeme.rsplit("\n", 1)[1]
                indent = indent_text.count(" ") + indent_text.count("\t") * tab_len
                feed = [nl_type]
                if indent > levels[-1]:
                    levels.append(indent)
                    feed.append(indent_type)
                else:
                    while indent < levels[-1]:
                        levels.pop()
                        feed.append(dedent_type)
                    if indent != levels[-1]:
                        return None
            else:
                feed = [type_]
                if type_ in opening:
                    depth += 1
                elif type_ in closing:
                    depth -= 1
                    if depth < 0:
                        return None
        else:
            feed = [dedent_type] * (len(levels) - 1) + ["$END"]
            levels = [0]
            token = None
        for symbol in feed:
            while True:
                action = actions[state].get(symbol)
                if action is None:
                    return None
                if action >= 0:
                    state = action
                    states.append(state)
                    values.append(token)
                    break
                rule = rules[~action]
                size = rule[0]
                take = rule[2]
                if take == PASS_ONE:
                    if size == 1:
                        # A chain of these (atom to postfix to ... to expr) changes only the top state: remembered
                        chain = (states[-2], state, symbol)
                        state = chains.get(chain, -1)
                        if state < 0:
                            state = chains[chain] = _after_chain(actions, rules, chain, tables.end_states.values())
                        states[-1] = state
                        if symbol == "$END" and state == end_state:
                            return values[-1]
                        continue
                    value = values[rule[3]]
                else:
                    if take == TAKE_ALL:
                        children = values[-size:]
                    elif take == TAKE_ONE:
                        children = [values[rule[3]]]
                    elif take == TAKE_SOME:
                        children = list(rule[3](values))
                    else:
                        children = _laid_out(values[-size:] if size else [], *rule[3])
                    make = rule[4]
                    if make == CALL:
                        value = rule[5](transformer, children)
                    elif make == SPLICE:
                        value = children
                    elif len(children) == 1:
                        value = children[0]
                    elif rule[5] is None:
                        value = transformer.__default__(rule[6], children, None)
                    else:
                        value = rule[5](transformer, children)
                if size:
                    del states[-size:]
                    del values[-size:]
                state = actions[states[-1]][rule[1]]
                states.append(state)
                values.append(value)
                if symbol == "$END" and state == end_state:
                    return value
        if symbol == "$END":
            return None


def _after_chain(actions: dict, rules: list, chain: tuple[int, int, str], end_states) -> int:
    """The top state after every one-symbol reduction that passes its child on unchanged, in a row, from `state` over
    `under` with `symbol` next: each such reduction replaces the top state by the goto of the state under it. At the
    end of the text it stops at an end state, as Lark's parser does."""
    under, state, symbol = chain
    while True:
        action = actions[state].get(symbol)
        if action is None or action >= 0:
            return state
        rule = rules[~action]
        if rule[2] != PASS_ONE or rule[0] != 1:
            return state
        state = actions[under][rule[1]]
        if symbol == "$END" and state in end_states:
            return state


def _laid_out(values: list, layout: tuple, trailing: int) -> list:
    """A reduction's children, placeholders and spliced `_rule`s in, as Lark's ChildFilterLALR lays them out."""
    children: list = []
    for index, spliced, placeholders in layout:
        if placeholders:
            children += [None] * placeholders
        if spliced:
            if children:
                children += values[index]
            else:
                children = values[index]
        else:
            children.append(values[index])
    if trailing:
        children += [None] * trailing
    return children
