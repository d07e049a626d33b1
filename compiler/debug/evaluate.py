"""`evaluate` in a stopped frame: a Kite expression read by Kite's own parser, over the frame's values as the engine
spells them. Names, fields, indexing, literals and operators (with Kite's semantics: `/` on two ints truncates,
`==` compares by value, `+` joins two strings only), and calls of the program's functions, which the debuggee runs
(`call`); anything else is refused with a Kite message."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, DivisionByZero, InvalidOperation, getcontext

from kite.source import SourceFile
from kite.syntax import nodes as n
from kite.syntax.frontend import read_syntax

Value = dict  # {"kind", "text", "ref", ...} as the engine sends it, or made here
DEC_DIGITS = 28  # C#'s decimal: 28-29 significant digits


class EvaluationError(Exception):
    """Why an expression cannot be evaluated here, in Kite's terms."""


def parse(expression: str) -> n.Node:
    """The expression's AST, through the parser every Kite file goes through."""
    if "\n" in expression or not expression.strip():
        raise EvaluationError("evaluate takes one Kite expression on one line")
    text = f"module Evaluate\n\nfn evaluate__()\n    let value__ = {expression}\n"
    result = read_syntax(SourceFile("<evaluate>", text))
    if result.module is None or not result.complete or result.diagnostics:
        said = result.diagnostics[0].message if result.diagnostics else "not a Kite expression"
        raise EvaluationError(f"not a Kite expression: {said}")
    [function] = [item for item in result.module.items if isinstance(item, n.FnDecl)]
    [statement] = function.body
    if not isinstance(statement, n.Let):
        raise EvaluationError("not a Kite expression")
    return statement.value


def made(kind: str, value) -> Value:
    """A value computed here, spelled as the engine spells one."""
    if kind == "bool":
        text = "true" if value else "false"
    elif kind == "str":
        text = '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'
        return {"kind": "str", "text": text, "ref": 0, "raw": value}
    elif kind == "none":
        text = "none"
    else:
        text = str(value)
    return {"kind": kind, "text": text, "ref": 0}


class Evaluator:
    """Over one frame: `lookup(name)` gives a visible name's value or None, `children(ref)` an expandable value's."""

    def __init__(self, lookup: Callable[[str], Value | None], children: Callable[[int], list[Value]],
                 call: Callable[[str, list[Value]], Value] | None = None):
        self.lookup = lookup
        self.children = children
        self.call = call  # (function name, argument values) -> its result, run in the debuggee

    def evaluate(self, expression: str) -> Value:
        return self.value(parse(expression))

    def value(self, node: n.Node) -> Value:
        if isinstance(node, n.Name):
            found = self.lookup(node.name)
            if found is None:
                raise EvaluationError(f"'{node.name}' is not a parameter or a local this frame has bound yet")
            return found
        if isinstance(node, n.Literal):
            return self.literal(node)
        if isinstance(node, n.Member):
            target = self.value(node.target)
            if target["kind"] != "record":
                raise EvaluationError(f"{target['text']} has no fields: '.{node.name}' needs a record")
            return self.child(target, node.name, f"{target.get('type', 'the record')} has no field '{node.name}'")
        if isinstance(node, n.Index):
            return self.index(self.value(node.target), self.value(node.index))
        if isinstance(node, n.Unary):
            operand = self.value(node.operand)
            if node.op == "not":
                return made("bool", not self.truth(operand))
            number, kind = self.number(operand)
            return made(kind, -number)
        if isinstance(node, n.Binary):
            return self.binary(node)
        if isinstance(node, n.Call) and isinstance(node.func, n.Name) and self.call is not None:
            return self.call(node.func.name, [self.value(argument) for argument in node.args])
        if isinstance(node, (n.Call, n.TypeCall)):
            raise EvaluationError("evaluate calls functions of the program and the standard library by name: f(a, b)")
        raise EvaluationError("evaluate takes names, fields, indexing, literals and operators")

    def literal(self, node: n.Literal) -> Value:
        if node.kind == "int":
            value = node.int_value()
            if value is None:
                raise EvaluationError(f"{node.text[:40]}... is outside int's range")
            return made("int", value)
        if node.kind == "dec":
            return made("dec", Decimal(node.text.replace("_", "")))
        if node.kind == "bool":
            return made("bool", node.text == "true")
        if node.kind == "none":
            return made("none", None)
        if node.kind == "str":
            return made("str", _unescaped(node.text[1:-1]))
        if node.kind == "char":
            return {"kind": "char", "text": node.text, "ref": 0, "raw": _unescaped(node.text[1:-1])}
        raise EvaluationError(f"a {node.kind} literal cannot be evaluated here")

    def child(self, target: Value, name: str, missing: str) -> Value:
        for child in self.children(target["ref"]) if target.get("ref") else []:
            if child["name"] == name:
                return child
        raise EvaluationError(missing)

    def index(self, target: Value, index: Value) -> Value:
        kind = target["kind"]
        if kind == "list":
            position, index_kind = self.number(index)
            if index_kind != "int":
                raise EvaluationError("a list's index is an int")
            count = target.get("count", 0)
            if not 0 <= position < count:
                raise EvaluationError(f"index {position} is out of range for a list of {count}")
            return self.child(target, f"[{position}]", f"index {position} is out of range")
        if kind == "map":
            return self.child(target, index["text"], f"the map has no key {index['text']}")
        if kind == "str":
            position, _ = self.number(index)
            raw = target["raw"]
            if not 0 <= position < len(raw):
                raise EvaluationError(f"index {position} is out of range for a str of {len(raw)}")
            letter = raw[position]
            return {"kind": "char", "text": "'" + letter.replace("\\", "\\\\").replace("'", "\\'") + "'", "ref": 0}
        raise EvaluationError(f"{target['text']} cannot be indexed")

    def number(self, value: Value) -> tuple[int | Decimal, str]:
        if value["kind"] == "int":
            return int(value["text"]), "int"
        if value["kind"] == "dec":
            return Decimal(value["text"]), "dec"
        raise EvaluationError(f"{value['text']} is not a number")

    def truth(self, value: Value) -> bool:
        if value["kind"] != "bool":
            raise EvaluationError(f"{value['text']} is not a bool")
        return value["text"] == "true"

    def binary(self, node: n.Binary) -> Value:
        operations = n.chain(node)  # iteratively: a chain's left spine is as long as the chain
        value = self.value(operations[0].left)
        for operation in operations:
            value = self.operation(operation, value)
        return value

    def operation(self, node: n.Binary, left: Value) -> Value:
        """`node` applied to the value of its left side."""
        op = node.op
        if op in ("and", "or"):
            first = self.truth(left)
            if (op == "and" and not first) or (op == "or" and first):
                return made("bool", first)
            return made("bool", self.truth(self.value(node.right)))
        right = self.value(node.right)
        if op in ("==", "!="):
            # The engine spells every value one way, so equal spellings are Kite's equality by value, for
            # collections and records too (a set's order aside, which the engine shows as stored).
            same = left["text"] == right["text"] or self.numbers_equal(left, right)
            return made("bool", same if op == "==" else not same)
        if op == "in":
            if right["kind"] == "str" and left["kind"] in ("str", "char"):
                part = left.get("raw", left["text"][1:-1])
                return made("bool", part in right["raw"])
            if right["kind"] in ("list", "set", "map"):
                names = [child["name"] if right["kind"] == "map" else child["text"] for child in self.children(right["ref"])]
                return made("bool", left["text"] in names)
            raise EvaluationError(f"'in' needs a list, set, map or str on its right, not {right['text']}")
        if op == "+" and (left["kind"] == "str" or right["kind"] == "str"):
            if left["kind"] != "str" or right["kind"] != "str":
                raise EvaluationError("'+' joins two strs only: use an f-string or to_str")
            return made("str", left["raw"] + right["raw"])
        if op in ("<", "<=", ">", ">=") and left["kind"] == "str" and right["kind"] == "str":
            a, b = left["raw"].encode("utf-16-be"), right["raw"].encode("utf-16-be")  # ordinal, as Kite orders strs
            return made("bool", {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])
        a, a_kind = self.number(left)
        b, b_kind = self.number(right)
        kind = "dec" if "dec" in (a_kind, b_kind) else "int"
        if op in ("<", "<=", ">", ">="):
            return made("bool", {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])
        getcontext().prec = DEC_DIGITS
        try:
            if op == "+":
                result = a + b
            elif op == "-":
                result = a - b
            elif op == "*":
                result = a * b
            elif op == "/":
                if b == 0:
                    raise EvaluationError("division by zero")
                result = Decimal(a) / Decimal(b) if kind == "dec" else _truncated(int(a), int(b))
            elif op == "%":
                if b == 0:
                    raise EvaluationError("division by zero")
                result = Decimal(a) % Decimal(b) if kind == "dec" else int(a) - int(b) * _truncated(int(a), int(b))
            else:
                raise EvaluationError(f"'{op}' cannot be evaluated here")
        except (DivisionByZero, InvalidOperation):
            raise EvaluationError("division by zero") from None
        if kind == "int" and not -(2**31) <= int(result) < 2**31:
            raise EvaluationError(f"{result} is outside int's range: the program would overflow here")
        return made(kind, result)

    def numbers_equal(self, left: Value, right: Value) -> bool:
        if left["kind"] in ("int", "dec") and right["kind"] in ("int", "dec"):
            return Decimal(left["text"]) == Decimal(right["text"])
        return False


def _unescaped(body: str) -> str:
    """A str or char literal's text between its quotes, as the value it writes."""
    return body.replace("\\n", "\n").replace("\\t", "\t").replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\")


def _truncated(a: int, b: int) -> int:
    """C#'s integer division: towards zero."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient
