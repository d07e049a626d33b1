"""Mutants of a reference solution: small wrong versions made from its AST, each written back as source text by
editing the original at the node's position (kite.tasks.positions), so a mutant is a program like any answer.

Which mutants exist is a pure function of the text; `sample` picks a bounded, seeded subset in source order."""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from kite.syntax import nodes as n
from kite.syntax.frontend import SyntaxResult
from kite.tasks.inputs import preconditions
from kite.tasks.positions import Positions, Span, edited

ARITHMETIC = {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"}
COMPARISON = {"==": "!=", "!=": "==", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
LOGICAL = {"and": "or", "or": "and"}
ASSIGNMENT = {"+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}
REMOVABLE = (n.Assign, n.ExprStmt, n.Break, n.Continue)
# What a function's result is replaced by, per declared return type ({value} is the value as written).
RETURN_REPLACEMENTS = {"int": "0", "dec": "0.0", "str": '""', "bool": "not ({value})", "list": "[]"}
# Kinds of mutant, as the report names them.
KINDS = ("arithmetic", "comparison", "boundary", "logical", "constant", "negation", "removal", "return")


@dataclass(frozen=True)
class Mutant:
    kind: str  # one of KINDS
    line: int  # where the edit starts, 1-based
    description: str  # what changed, e.g. "'<' -> '<='"
    text: str  # the whole mutated program


def mutants(text: str, syntax: SyntaxResult) -> list[Mutant]:
    """Every mutant of the module's functions and constants (`syntax` is the text read by the front end), in source
    order, each distinct from the original and from each other. A precondition (`f_requires`) is not mutated: it
    says which inputs the task is defined for, and no hidden test calls it."""
    module = syntax.module
    assert module is not None, "mutants are made of a reference solution that parses"
    maker = _Maker(text, syntax)
    contract = preconditions(module)
    for item in module.items:
        if isinstance(item, n.Let):
            maker.expression(item.value)
        elif isinstance(item, n.FnDecl) and item.name not in contract:
            for statement in n.walk_statements(item.body):
                maker.statement(statement, item.returns)
                for expression in n.statement_expressions(statement):
                    maker.expression(expression)
    seen = {text}
    made = []
    for _, _, mutant in sorted(maker.made, key=lambda made: made[:2]):
        if mutant.text not in seen:
            seen.add(mutant.text)
            made.append(mutant)
    return made


def sample(found: list[Mutant], limit: int, seed: str) -> list[Mutant]:
    """At most `limit` of them, chosen by `seed` (the same every run), kept in source order."""
    if len(found) <= limit:
        return found
    chosen = set(random.Random(seed).sample(range(len(found)), limit))
    return [mutant for index, mutant in enumerate(found) if index in chosen]


class _Maker:
    def __init__(self, text: str, syntax: SyntaxResult):
        self.text = text
        self.positions = Positions(text, syntax)
        self.made: list[tuple[int, int, Mutant]] = []  # (offset, kind order, mutant)

    def add(self, kind: str, span: Span | None, replacement: str, description: str) -> None:
        if span is None:
            return  # the token is not where the node says: no mutant rather than a wrong one
        line = self.text.count("\n", 0, span.start) + 1
        mutant = Mutant(kind, line, description, edited(self.text, span, replacement))
        self.made.append((span.start, KINDS.index(kind), mutant))

    def statement(self, statement, returns: n.TypeRef | None) -> None:
        where = self.positions
        if isinstance(statement, REMOVABLE):
            span = where.span(statement)
            if span is not None:
                self.add("removal", span, "pass", f"'{self.text[span.start:span.end]}' removed")
        if isinstance(statement, n.Assign) and statement.op in ASSIGNMENT:
            self.swap("arithmetic", where.operator(statement), statement.op, ASSIGNMENT[statement.op])
        if isinstance(statement, n.If):
            for condition, _ in statement.branches:
                self.negate(where.span(condition))
        if isinstance(statement, n.While):
            self.negate(where.span(statement.condition))
        if isinstance(statement, n.Return) and returns is not None and not isinstance(statement.value, (n.Literal, type(None))):
            replacement = "none" if returns.nullable else RETURN_REPLACEMENTS.get(returns.name)
            span = where.span(statement.value)
            if replacement is not None and span is not None:
                value = self.text[span.start:span.end]
                self.add("return", span, replacement.format(value=value), f"returns {replacement.format(value='...')} instead")

    def expression(self, root) -> None:
        where = self.positions
        for node in n.expression_nodes(root):
            if isinstance(node, n.Binary):
                span = where.operator(node)
                for kind, table in (("arithmetic", ARITHMETIC), ("comparison", COMPARISON), ("boundary", BOUNDARY), ("logical", LOGICAL)):
                    if node.op in table:
                        self.swap(kind, span, node.op, table[node.op])
            elif isinstance(node, n.Unary) and node.op == "not":
                whole, operand = where.span(node), where.span(node.operand)
                if whole is not None and operand is not None:
                    self.add("negation", Span(whole.start, operand.start), "", "'not' removed")
            elif isinstance(node, n.Literal):
                self.literal(node)

    def swap(self, kind: str, span: Span | None, old: str, new: str) -> None:
        self.add(kind, span, new, f"'{old}' -> '{new}'")

    def negate(self, span: Span | None) -> None:
        if span is not None:
            condition = self.text[span.start:span.end]
            self.add("negation", span, f"not ({condition})", f"condition '{condition}' negated")

    def literal(self, node: n.Literal) -> None:
        span = self.positions.span(node)
        if node.kind == "int":
            value = node.int_value()
            if value is None:
                return
            for near in (value + 1, value - 1):
                self.add("boundary", span, str(near), f"{node.text} -> {near}")
        elif node.kind == "dec":
            try:
                bigger = Decimal(node.text.replace("_", "")) + 1
            except InvalidOperation:
                return
            self.add("constant", span, str(bigger), f"{node.text} -> {bigger}")
        elif node.kind == "bool":
            changed = "false" if node.text == "true" else "true"
            self.add("constant", span, changed, f"{node.text} -> {changed}")
        elif node.kind == "str":
            changed = '""' if node.text != '""' else '"x"'
            self.add("constant", span, changed, f"{node.text} -> {changed}")
