"""Inputs for a task's functions, made by type (docs/tasks.md, "Inputs"): for each function the hidden tests call,
its parameter types come from the reference solution, the seeds are the arguments the tests pass it, and each seed is
mutated by type (an int one up and down, 0, negated, larger, int's bounds; a str emptied, cased, spaced, repeated,
made non-ASCII; a list emptied, cut, reversed, sorted, its items mutated; a record field by field; none for a `T?`).
The reference's own constants, and one either side, are tried too: a boundary lives there.

Seeded by a string (the same inputs, in the same order, every run: nothing depends on Python's hash seed) and
bounded per function. `kite tasks augment` and `kite tasks mutate` both take their inputs from here."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, replace
from decimal import Decimal

from kite.syntax import nodes as n
from kite.tasks import DEFAULT_MAX_INPUTS
from kite.tasks.values import (
    INT_MAX,
    INT_MIN,
    Char,
    Declarations,
    EnumValue,
    KiteType,
    MapValue,
    NotAValue,
    Record,
    literal_value,
    make_map,
    make_set,
    shown,
    writable,
)

MAX_ITEMS = 10  # a made list, set or map holds no more: inputs stay readable
MAX_TEXT = 40  # a made str is no longer
NESTING = 2  # how deep made values nest (a list of lists of ...; a record holding itself)
UNKNOWN = object()  # a test's argument that is not written as literals: a made value takes its place
PRECONDITION = "_requires"  # `fn find_requires(...) -> bool` in the solution: the inputs `find` is defined for


@dataclass(frozen=True)
class Signature:
    name: str
    params: tuple[tuple[str, KiteType], ...]
    returns: KiteType
    requires: str = ""  # the solution's precondition for it (`<name>_requires`, same parameters, -> bool), if any


@dataclass(frozen=True)
class Input:
    function: Signature
    args: tuple

    @property
    def key(self) -> str:
        """What tells two inputs apart: their text, so `1.5` and `1.50` are two (Kite's == holds, to_str differs)."""
        return self.shown()

    def shown(self) -> str:
        return f"{self.function.name}(" + ", ".join(shown(arg) for arg in self.args) + ")"


@dataclass(frozen=True)
class TaskInputs:
    declarations: Declarations
    functions: tuple[Signature, ...]  # the functions the hidden tests call that take and give values kite can make
    inputs: tuple[Input, ...]  # each function's in turn, in the order they were chosen
    skipped: tuple[str, ...] = ()  # a function the tests call that gets no inputs, and why
    tested: tuple[Input, ...] = ()  # the calls the hidden tests make, where their arguments are written as literals


def task_inputs(solution: n.Module, tests: list[n.Module], seed: str, max_inputs: int = DEFAULT_MAX_INPUTS) -> TaskInputs:
    """Inputs for every function of `solution` that `tests` call, `max_inputs` at most each, chosen by `seed`."""
    declarations = Declarations(solution)
    functions = {item.name: item for item in solution.items if isinstance(item, n.FnDecl)}
    constants = {item.name: item.value for item in solution.items if isinstance(item, n.Let)}
    calls = _calls(tests, functions, constants)
    made = _Maker(declarations, _literals(solution))
    signatures, inputs, skipped, tested = [], [], [], []
    for name, function in functions.items():
        if name not in calls:
            continue
        signature, why = _signature(function, declarations)
        if signature is None:
            skipped.append(f"{name}: {why}")
            continue
        signature, why = _with_precondition(signature, functions.get(name + PRECONDITION), declarations)
        if why:
            skipped.append(why)
        signatures.append(signature)
        seeds = []
        for args, bound in calls[name]:
            seeds.append(tuple(_seed_value(arg, t, declarations, bound) for arg, (_, t) in zip(args, signature.params)))
        tested += [Input(signature, args) for args in seeds if UNKNOWN not in args]
        inputs += made.inputs(signature, seeds, random.Random(f"{seed}:{name}"), max_inputs)
    return TaskInputs(declarations, tuple(signatures), tuple(inputs), tuple(skipped), tuple(tested))


def _signature(function: n.FnDecl, declarations: Declarations) -> tuple[Signature | None, str]:
    returns = declarations.type_of(function.returns)
    if function.returns is None:
        return None, "it returns nothing, so there is no value to compare"
    if returns is None or not declarations.makeable(returns):
        return None, f"kite cannot read back a value of its return type {_written(function.returns)}"
    params = []
    for param in function.params:
        found = declarations.type_of(param.type)
        if found is None or not declarations.makeable(found):
            return None, f"kite cannot make values of type {_written(param.type)} (parameter '{param.name}')"
        params.append((param.name, found))
    return Signature(function.name, tuple(params), returns), ""


def preconditions(module: n.Module) -> set[str]:
    """The names of the module's preconditions: `f_requires` beside a function `f`. They are the task's contract, not
    its solution: never mutated."""
    names = {item.name for item in module.items if isinstance(item, n.FnDecl)}
    return {name for name in names if name.endswith(PRECONDITION) and name.removesuffix(PRECONDITION) in names}


def _with_precondition(signature: Signature, found: n.FnDecl | None, declarations: Declarations) -> tuple[Signature, str]:
    """The signature with its precondition, when the solution declares one that takes the same parameters."""
    if found is None:
        return signature, ""
    params = tuple(declarations.type_of(param.type) for param in found.params)
    if params != tuple(t for _, t in signature.params) or declarations.type_of(found.returns) != KiteType("bool"):
        wanted = ", ".join(f"{name}: {t.text()}" for name, t in signature.params)
        return signature, f"{found.name} is not a precondition of {signature.name} (it should be fn {found.name}({wanted}) -> bool): left out"
    return replace(signature, requires=found.name), ""


def _written(ref: n.TypeRef | None) -> str:
    if ref is None:
        return "(none)"
    return ref.name + ("<" + ", ".join(_written(arg) for arg in ref.args) + ">" if ref.args else "") + ("?" if ref.nullable else "")


def _calls(tests: list[n.Module], functions: dict, constants: dict) -> dict[str, list[tuple[tuple, dict]]]:
    """Per function, every call the tests make with the right number of arguments, and the names each call's test
    binds to a value (`let values = [1, 3]`; a `let mut` may change, so it is left out)."""
    found: dict[str, list] = {}
    for module in tests:
        for item in module.items:
            if not isinstance(item, n.TestDecl):
                continue
            bound = dict(constants)
            changed = _changed_in_place(item)
            for statement in n.walk_statements(item.body):
                if isinstance(statement, n.Let):
                    if statement.mutable or statement.name in changed:
                        bound.pop(statement.name, None)
                    else:
                        bound[statement.name] = statement.value
                for expression in n.statement_expressions(statement):
                    for node in n.expression_nodes(expression):
                        if (isinstance(node, n.Call) and isinstance(node.func, n.Name) and node.func.name in functions
                                and len(node.args) == len(functions[node.func.name].params)):
                            found.setdefault(node.func.name, []).append((node.args, dict(bound)))
    return found


def _changed_in_place(test: n.TestDecl) -> set[str]:
    """Names whose value a statement of the test changes without assigning them: `counts["a"] = 1`, `seen.Add(3)`."""
    changed = set()
    for statement in n.walk_statements(test.body):
        if isinstance(statement, n.Assign) and isinstance(statement.target, (n.Index, n.Member)):
            changed |= {node.name for node in n.descendants(statement.target) if isinstance(node, n.Name)}
        for expression in n.statement_expressions(statement):
            for node in n.expression_nodes(expression):
                if isinstance(node, n.Call) and isinstance(node.func, n.Member) and isinstance(node.func.target, n.Name):
                    changed.add(node.func.target.name)
    return changed


def _seed_value(arg, kite_type: KiteType, declarations: Declarations, bound: dict):
    try:
        return literal_value(arg, kite_type, declarations, bound)
    except NotAValue:
        return UNKNOWN


def _literals(solution: n.Module) -> dict[str, list]:
    """The reference's own constants by kind, in source order: where its boundaries are."""
    found: dict[str, list] = {"int": [], "dec": [], "str": []}
    declarations = Declarations(solution)
    for item in solution.items:
        if isinstance(item, (n.FnDecl, n.Let)):
            for node in n.descendants(item):
                if isinstance(node, n.Literal) and node.kind in found:
                    try:
                        value = literal_value(node, KiteType(node.kind), declarations, {})
                    except NotAValue:
                        continue
                    if value not in found[node.kind]:
                        found[node.kind].append(value)
    return found


class _Maker:
    def __init__(self, declarations: Declarations, constants: dict[str, list]):
        self.declarations = declarations
        self.constants = constants

    def inputs(self, signature: Signature, seeds: list[tuple], rng: random.Random, limit: int) -> list[Input]:
        types = [t for _, t in signature.params]
        filled = [tuple(self.examples(t)[0] if arg is UNKNOWN else arg for arg, t in zip(seed, types)) for seed in seeds]
        if not filled:
            filled = [tuple(self.examples(t)[0] for t in types)]
        first = [changed for args in filled for changed in self.neighbours(args, types)]
        second = []
        for args in rng.sample(first, min(len(first), limit)):
            near = self.neighbours(args, types)
            second += rng.sample(near, min(2, len(near)))
        fresh = [tuple(rng.choice(self.examples(t)) for t in types) for _ in range(limit)]
        seen = {Input(signature, args).key for args in filled}
        chosen = []
        for group in (first, second, fresh):
            rng.shuffle(group)
            for args in group:
                made = Input(signature, args)
                if made.key not in seen and all(writable(arg) for arg in args):
                    seen.add(made.key)
                    chosen.append(made)
        return chosen[:limit]

    def neighbours(self, args: tuple, types: list[KiteType]) -> list[tuple]:
        """Every tuple one change away: one argument mutated by its type, or made equal to another of its type."""
        changed = []
        for index, (arg, kite_type) in enumerate(zip(args, types)):
            for variant in self.variants(arg, kite_type):
                changed.append((*args[:index], variant, *args[index + 1:]))
            for other, other_type in zip(args, types):
                if other_type == kite_type and other != arg:
                    near = [other - 1, other, other + 1] if kite_type.kind == "int" and other is not None else [other]
                    changed += [(*args[:index], value, *args[index + 1:]) for value in near if kite_type.kind != "int" or _in_range(value)]
        return changed

    # ---- by type

    def variants(self, value, kite_type: KiteType, depth: int = 0) -> list:
        """Values near `value`, of its type; never `value` itself."""
        if kite_type.nullable:
            if value is None:
                return self.examples(kite_type.inner(), depth)
            return [None, *self.variants(value, kite_type.inner(), depth)]
        kind = kite_type.kind
        if kind == "int":
            made = [value + 1, value - 1, 0, 1, -1, -value, 2 * value, 10 * value + 3, INT_MAX, INT_MIN]
            made += [near for c in self.constants["int"] for near in (c, c - 1, c + 1)]
            made = [v for v in made if _in_range(v)]
        elif kind == "dec":
            made = [value + 1, value - 1, -value, Decimal("0.0"), value * 10, value / 10, value + Decimal("0.01"),
                    value - Decimal("0.01"), value.quantize(Decimal("0.001")) if abs(value) < 10**9 else value, Decimal("0.5")]
            made += [near for c in self.constants["dec"] for near in (c, c - Decimal("0.01"), c + Decimal("0.01"))]
        elif kind == "str":
            made = self._text_variants(value)
        elif kind == "char":
            code = ord(value.text)
            near = [chr(code + 1) if code + 1 < 0xD800 else "a", chr(code - 1) if code > 32 else "b"]
            letters = [*near, value.text.upper(), value.text.lower(), " ", "a", "Z", "0", "é", *(s[0] for s in self.constants["str"] if s)]
            made = [Char(c) for c in letters if len(c) == 1]
        elif kind == "bool":
            made = [not value]
        elif kind == "enum":
            made = [EnumValue(kite_type.name, m) for m in self.declarations.enums[kite_type.name]]
        elif kind == "record":
            fields = self.declarations.fields(kite_type)
            per_field = [[Record(value.type, (*value.fields[:index], (name, variant), *value.fields[index + 1:]))
                          for variant in self.variants(field_value, field_type, depth + 1)[:4]]
                         for index, ((name, field_value), (_, field_type)) in enumerate(zip(value.fields, fields))]
            # Field by field in turn, so the first few variants change every field (a caller may keep only those).
            made = [record for round_ in itertools.zip_longest(*per_field) for record in round_ if record is not None]
        elif kind == "map":
            made = self._map_variants(value, kite_type, depth)
        else:
            items = list(value.items) if kind == "set" else list(value)
            made = [tuple(changed) for changed in self._list_variants(items, kite_type.args[0], depth)]
            if kind == "set":
                made = [make_set(items) for items in made]
        return _distinct(made, value)

    def _text_variants(self, text: str) -> list[str]:
        made = ["", " ", text[:1], text * 2 if len(text) <= MAX_TEXT // 2 else text, text.upper(), text.lower(), text.swapcase(),
                text.title(), f" {text} ", text + " ", text.replace(" ", "  "), text.replace(" ", "\t"), text[::-1], text[1:],
                text[:-1], text + "é", "Ünïcødé " + text, text + "\n"]
        made += [c for s in self.constants["str"] for c in (s, s[:1], s.upper())]
        return [s for s in made if len(s) <= MAX_TEXT]

    def _list_variants(self, items: list, item_type: KiteType, depth: int) -> list[list]:
        made = [[], items[:1], items[::-1], items[1:], items[:-1], items + items[-1:], [x for x in items for _ in (0, 1)]]
        if item_type.kind in ("int", "dec", "str", "bool") and not item_type.nullable:
            made.append(sorted(items))
        if depth < NESTING:
            examples = self.examples(item_type, depth + 1)
            made.append([*items, examples[min(len(items), len(examples) - 1)]])
            for index, item in enumerate(items[:3]):
                made += [[*items[:index], v, *items[index + 1:]] for v in self.variants(item, item_type, depth + 1)[:4]]
        return [m for m in made if len(m) <= MAX_ITEMS]

    def _map_variants(self, table: MapValue, kite_type: KiteType, depth: int) -> list[MapValue]:
        pairs = list(table.pairs)
        made = [[], pairs[:1], pairs[1:]]
        if pairs and depth < NESTING:
            first_key, first_value = pairs[0]
            made += [[(first_key, v), *pairs[1:]] for v in self.variants(first_value, kite_type.args[1], depth + 1)[:4]]
            made += [[*pairs, (k, first_value)] for k in self.variants(first_key, kite_type.args[0], depth + 1)[:3]]
        elif depth < NESTING:
            made += [[(k, v)] for k, v in zip(self.examples(kite_type.args[0], depth + 1), self.examples(kite_type.args[1], depth + 1))]
        return [make_map(m) for m in made if len(m) <= MAX_ITEMS]

    def examples(self, kite_type: KiteType, depth: int = 0) -> list:
        """A few values of a type made from nothing (no test passes one): small ones first."""
        if kite_type.nullable:
            return [*self.examples(kite_type.inner(), depth), None] if depth < NESTING else [None]
        kind = kite_type.kind
        if kind == "int":
            return [0, 1, -1, 2, 3, 5, 10, 100, -7, INT_MAX, INT_MIN, *self.constants["int"]]
        if kind == "dec":
            return [Decimal(text) for text in ("0.0", "1.0", "-1.5", "0.01", "2.5", "10.25", "100.0")] + self.constants["dec"]
        if kind == "str":
            return ["", "a", " ", "ab", "abc", "Hello World", "aaa", "a b", "é", "12", *self.constants["str"]]
        if kind == "char":
            return [Char(c) for c in "aZ 0é"]
        if kind == "bool":
            return [False, True]
        if kind == "enum":
            return [EnumValue(kite_type.name, m) for m in self.declarations.enums[kite_type.name]]
        if kind == "record":
            fields = self.declarations.fields(kite_type)
            first = [self.examples(t, depth + 1)[0] for _, t in fields]
            base = Record(kite_type.name, tuple((name, value) for (name, _), value in zip(fields, first)))
            made = [base]
            for index, (name, t) in enumerate(fields):
                for value in self.examples(t, depth + 1)[1:3] if depth < NESTING else ():
                    made.append(Record(base.type, (*base.fields[:index], (name, value), *base.fields[index + 1:])))
            return made
        items = self.examples(kite_type.args[0], depth + 1)[:3] if depth < NESTING else []
        if kind == "map":
            values = self.examples(kite_type.args[1], depth + 1)[:3] if depth < NESTING else []
            pairs = list(zip(items, values))
            return [make_map(pairs[:count]) for count in range(len(pairs) + 1)]
        lists = [(), tuple(items[:1]), tuple(items[:2]), tuple(items[1:2] + items[:1] + items[2:3])]
        return [make_set(items) for items in lists] if kind == "set" else lists


def _in_range(value) -> bool:
    return isinstance(value, int) and INT_MIN <= value <= INT_MAX


def _distinct(made: list, original) -> list:
    """In order, each once (as written: 1.5 and 1.50 are two), never the original."""
    seen = {shown(original)}
    kept = []
    for value in made:
        text = shown(value)
        if text not in seen:
            seen.add(text)
            kept.append(value)
    return kept
