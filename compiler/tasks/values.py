"""Kite values as Python data, for the inputs `kite tasks` makes and the results it reads back: each value's type
(from the reference solution's declarations), its Kite source text, how a report shows it, and how a probe's
structured result (kite.tasks.probe) is read back into one.

Equality is Kite's, as Python's `==` on these forms: an int is an int, a dec a Decimal (so 0.00 == 0.0), a str a
str, a list a tuple, a set or a map its items in one canonical order, a record its type and fields, none None. Two
values are never compared through their printed text."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from kite.syntax import nodes as n

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
SCALARS = ("int", "dec", "str", "char", "bool")
COLLECTIONS = {"list": 1, "set": 1, "map": 2}
KITE_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}  # all a str literal can spell (LANGUAGE.md §3)
CHAR_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t"}


@dataclass(frozen=True)
class KiteType:
    kind: str  # one of SCALARS, a collection ("list", "set", "map"), "record" or "enum"
    name: str = ""  # a record's or an enum's name
    args: tuple[KiteType, ...] = ()  # a collection's item types (a map's key, then value)
    nullable: bool = False

    def text(self) -> str:
        """As Kite writes it: `list<int>`, `map<str, Item>`, `int?`."""
        base = self.name or self.kind
        if self.args:
            base += "<" + ", ".join(arg.text() for arg in self.args) + ">"
        return base + ("?" if self.nullable else "")

    def inner(self) -> KiteType:
        """The type without its `?`."""
        return KiteType(self.kind, self.name, self.args)


@dataclass(frozen=True)
class Char:
    text: str  # one character


@dataclass(frozen=True)
class Record:
    type: str
    fields: tuple[tuple[str, object], ...]  # (name, value) in declaration order


@dataclass(frozen=True)
class EnumValue:
    type: str
    member: str


@dataclass(frozen=True)
class SetValue:
    items: tuple  # in canonical order (key()), so equal sets are equal tuples


@dataclass(frozen=True)
class MapValue:
    pairs: tuple[tuple[object, object], ...]  # (key, value), in canonical order of the keys


def make_set(items) -> SetValue:
    return SetValue(tuple(_unique(sorted(items, key=key))))


def make_map(pairs) -> MapValue:
    kept: dict[str, tuple] = {}
    for pair in pairs:
        kept.setdefault(key(pair[0]), pair)  # the first value of a repeated key
    return MapValue(tuple(kept[k] for k in sorted(kept)))


def _unique(ordered):
    last = object()
    for item in ordered:
        if item != last:
            yield item
        last = item


def key(value) -> str:
    """A text that two values share exactly when Kite's == holds between them: how they are shown, each dec by its
    normalized value. The order of sets and maps, never depending on Python's hash seed."""
    return shown(value, normalized=True)


class Declarations:
    """The records and enums of a module: what a parameter's type may name."""

    def __init__(self, module: n.Module):
        self.records: dict[str, tuple[tuple[str, KiteType | None], ...]] = {}
        self.enums: dict[str, tuple[str, ...]] = {}
        declared = [item for item in module.items if isinstance(item, (n.TypeDecl, n.EnumDecl))]
        self._names = {item.name: type(item) for item in declared}
        for item in declared:
            if isinstance(item, n.EnumDecl):
                self.enums[item.name] = tuple(member.name for member in item.members)
            else:
                self.records[item.name] = tuple((field.name, self.type_of(field.type)) for field in item.fields)

    def type_of(self, ref: n.TypeRef | None) -> KiteType | None:
        """The type a TypeRef names, or None when kite cannot make values of it (a .NET type, a function type)."""
        if ref is None:
            return None
        found = [self.type_of(arg) for arg in ref.args]
        args = tuple(arg for arg in found if arg is not None)
        if len(args) != len(found):
            return None
        if ref.name in SCALARS and not args:
            return KiteType(ref.name, nullable=ref.nullable)
        if COLLECTIONS.get(ref.name) == len(args) and args:
            return KiteType(ref.name, args=args, nullable=ref.nullable)
        declared = self._names.get(ref.name)
        kind = "record" if declared is n.TypeDecl else "enum" if declared is n.EnumDecl else None
        if kind is not None and not args:
            return KiteType(kind, ref.name, nullable=ref.nullable)
        return None

    def fields(self, record: KiteType) -> tuple[tuple[str, KiteType], ...]:
        """The fields of a makeable record: values are made, written and read only of makeable types."""
        fields = self.known_fields(record)
        if fields is None:
            raise TypeError(f"record {record.name} has a field of a type kite cannot make values of")
        return fields

    def known_fields(self, record: KiteType) -> tuple[tuple[str, KiteType], ...] | None:
        """The record's fields, or None when kite cannot make values of some field's type."""
        known = tuple((name, t) for name, t in self.records[record.name] if t is not None)
        return known if len(known) == len(self.records[record.name]) else None

    def makeable(self, kite_type: KiteType, seen: frozenset[str] = frozenset()) -> bool:
        """Whether every value of the type can be written: a record's fields all of types kite knows."""
        if kite_type.kind == "record":
            if kite_type.name in seen:
                return True
            fields = self.records[kite_type.name]
            return all(t is not None and self.makeable(t, seen | {kite_type.name}) for _, t in fields)
        return all(self.makeable(arg, seen) for arg in kite_type.args)


# ---- Kite source text


def writable(value) -> bool:
    """Whether Kite source can spell the value: a str literal has no escape for other control characters, and no
    UTF-8 file holds a lone surrogate (a reversed emoji)."""
    if isinstance(value, str):
        return all(c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cs", "Zl", "Zp") for c in value)
    if isinstance(value, Char):
        return writable(value.text)
    if isinstance(value, tuple):
        return all(writable(item) for item in value)
    if isinstance(value, SetValue):
        return all(writable(item) for item in value.items)
    if isinstance(value, MapValue):
        return all(writable(k) and writable(v) for k, v in value.pairs)
    if isinstance(value, Record):
        return all(writable(v) for _, v in value.fields)
    return True


class Writer:
    """Values as Kite source for one block: expressions, and before them the statements that build what has no
    literal (a map, a set), each in a fresh local `<prefix>_1`, `<prefix>_2`, ..."""

    def __init__(self, declarations: Declarations, prefix: str):
        self.declarations = declarations
        self.prefix = prefix
        self.setup: list[str] = []

    def fresh(self) -> str:
        return f"{self.prefix}_{sum(line.startswith('let ') for line in self.setup) + 1}"

    def expression(self, value, kite_type: KiteType) -> str:
        if value is None:
            return "none"
        kind = kite_type.kind
        if kind in ("list", "record", "set", "map"):
            return self._composite(value, kite_type)
        return shown(value)

    def _composite(self, value, kite_type: KiteType) -> str:
        if kite_type.kind == "list":
            return "[" + ", ".join(self.expression(item, kite_type.args[0]) for item in value) + "]"
        if kite_type.kind == "record":
            fields = self.declarations.fields(kite_type)
            return f"{value.type}(" + ", ".join(self.expression(v, t) for (_, v), (_, t) in zip(value.fields, fields)) + ")"
        built = self.fresh()
        self.setup.append(f"let {built} = {kite_type.inner().text()}()")
        if kite_type.kind == "set":
            for item in value.items:
                item_text = self.expression(item, kite_type.args[0])
                self.setup.append(f"{built}.Add({item_text})")
        else:
            for k, v in value.pairs:
                key_text = self.expression(k, kite_type.args[0])
                value_text = self.expression(v, kite_type.args[1])
                self.setup.append(f"{built}[{key_text}] = {value_text}")
        return built


def dec_text(value: Decimal) -> str:
    """A dec as a literal: with its scale (`1.50`), and always a point (a literal without one is an int)."""
    text = f"{value:f}"
    return text if "." in text else text + ".0"


def shown(value, normalized: bool = False) -> str:
    """How a report shows a value: as Kite writes it, a map and a set in braces. `normalized`: each dec by its value
    (1.50 as 1.5, -0.0 as 0.0), so that values equal by Kite's == are shown alike (key())."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return dec_text((value.normalize() if value else Decimal(0)) if normalized else value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + "".join(KITE_ESCAPES.get(c, c) for c in value) + '"'
    if isinstance(value, Char):
        return "'" + CHAR_ESCAPES.get(value.text, value.text) + "'"
    if isinstance(value, EnumValue):
        return f"{value.type}.{value.member}"
    if isinstance(value, tuple):
        return "[" + ", ".join(shown(item, normalized) for item in value) + "]"
    if isinstance(value, SetValue):
        return "{" + ", ".join(shown(item, normalized) for item in value.items) + "}"
    if isinstance(value, MapValue):
        return "{" + ", ".join(f"{shown(k, normalized)}: {shown(v, normalized)}" for k, v in value.pairs) + "}"
    if isinstance(value, Record):
        return f"{value.type}(" + ", ".join(f"{name}: {shown(v, normalized)}" for name, v in value.fields) + ")"
    raise TypeError(f"not a Kite value: {value!r}")


def traits(value, kite_type: KiteType, declarations: Declarations, at: str = "") -> set[str]:
    """What kind of value it is, as words a wrong answer tends to trip on (empty, negative, one item, repeated items,
    unsorted, upper case, white space, ...), its parts' traits named by where they are (`item.neg`): inputs chosen
    to have traits no other has are diverse in the ways that matter."""
    if value is None:
        return {at + "none"}
    kind = kite_type.kind
    found: set[str] = set()
    if kind in ("int", "dec"):
        found = {"zero" if value == 0 else "neg" if value < 0 else "pos"} | ({"big"} if abs(value) >= 1000 else set())
        found |= {SMALL[value]} if value in SMALL else set()  # 1 leaves a product alone, 2 makes x + x == x * x
        if kind == "dec" and value != value.to_integral_value():
            found.add("fraction")
    elif kind == "bool":
        found = {str(value).lower()}
    elif kind in ("str", "char"):
        text = value if kind == "str" else value.text
        found = {name for name, test in _TEXT_TRAITS if test(text)}
    elif kind == "enum":
        found = {value.member}
    elif kind == "record":
        fields = declarations.fields(kite_type)
        return set().union(*(traits(v, t, declarations, f"{at}{name}.") for (name, v), (_, t) in zip(value.fields, fields)))
    else:
        items = list(value.items) if kind == "set" else [k for k, _ in value.pairs] if kind == "map" else list(value)
        found = {"empty" if not items else "one" if len(items) == 1 else "many" if len(items) >= 3 else "two"}
        keys = [key(item) for item in items]
        if len(set(keys)) < len(keys):
            found.add("repeated")
            found |= {"thrice"} if any(keys.count(k) >= 3 for k in keys) else set()
        # Where a list first breaks its order, or first repeats, past its first two items: code that looks only at
        # the first pair, or the ends, misses it.
        if kind == "list" and kite_type.args[0].kind in ("int", "dec", "str") and not kite_type.args[0].nullable:
            breaks = [i for i in range(1, len(items)) if items[i - 1] > items[i]]
            found |= ({"unsorted"} | ({"unsorted-late"} if breaks[0] >= 2 else set())) if breaks else set()
        if kind == "list" and any(keys[i] in keys[:i] for i in range(2, len(keys))):
            found.add("repeated-late")
        item_type = kite_type.args[0]
        for item in items:
            found |= traits(item, item_type, declarations, "item.")
        if kind == "map":
            for _, v in value.pairs:
                found |= traits(v, kite_type.args[1], declarations, "value.")
    return {at + trait for trait in found}


SMALL = {1: "one", 2: "two", -1: "minus-one"}
_TEXT_TRAITS = (
    ("empty", lambda text: not text), ("space", lambda text: any(c.isspace() for c in text)),
    ("upper", lambda text: any(c.isupper() for c in text)), ("lower", lambda text: any(c.islower() for c in text)),
    ("digit", lambda text: any(c.isdigit() for c in text)), ("non-ascii", lambda text: any(ord(c) > 127 for c in text)),
    ("repeated", lambda text: len(set(text)) < len(text)), ("long", lambda text: len(text) >= 8),
)


# ---- reading values back


class NotAValue(ValueError):
    """A probe's result that is not a value of the type it should be (the program printed over it, or it was cut)."""


def decoded(data, kite_type: KiteType, declarations: Declarations):
    """The value a probe's JSON (kite.tasks.probe's encoders) stands for, read by its static type."""
    if data is None:
        if kite_type.nullable:
            return None
        raise NotAValue("none where the type has no none")
    kind = kite_type.kind
    if kind == "bool" and isinstance(data, bool):
        return data
    if kind == "int" and isinstance(data, int) and not isinstance(data, bool):
        return data
    if kind == "dec" and isinstance(data, (int, Decimal)) and not isinstance(data, bool):
        return Decimal(data)
    if kind == "str" and isinstance(data, str):
        return data
    if kind == "char" and isinstance(data, str) and len(data) == 1:
        return Char(data)
    if kind == "enum" and isinstance(data, str) and data in declarations.enums[kite_type.name]:
        return EnumValue(kite_type.name, data)
    if isinstance(data, list):
        if kind == "list":
            return tuple(decoded(item, kite_type.args[0], declarations) for item in data)
        if kind == "set":
            return make_set(decoded(item, kite_type.args[0], declarations) for item in data)
        if kind == "map" and all(isinstance(pair, list) and len(pair) == 2 for pair in data):
            return make_map((decoded(k, kite_type.args[0], declarations), decoded(v, kite_type.args[1], declarations)) for k, v in data)
        if kind == "record":
            fields = declarations.fields(kite_type)
            if len(fields) == len(data):
                return Record(kite_type.name, tuple((name, decoded(item, t, declarations)) for (name, t), item in zip(fields, data)))
    raise NotAValue(f"not a {kite_type.text()}: {str(data)[:80]}")


# ---- reading values written in tests


def literal_value(expression, kite_type: KiteType, declarations: Declarations, bound: dict):
    """The value a test's argument stands for when it is written as literals (names bound to literals allowed):
    the seeds of kite.tasks.inputs. Raises NotAValue for anything else (a call, arithmetic)."""
    if isinstance(expression, n.Name) and expression.name in bound:
        return literal_value(bound[expression.name], kite_type, declarations, {})
    if isinstance(expression, n.Literal) and expression.kind == "none":
        if kite_type.nullable:
            return None
        raise NotAValue("none")
    kind = kite_type.kind
    negative = isinstance(expression, n.Unary) and expression.op == "-"
    written = expression.operand if negative else expression
    if isinstance(written, n.Literal):
        text = written.text.replace("_", "") if written.kind in ("int", "dec") else written.text
        if kind == "int" and written.kind == "int":
            value = -int(text) if negative else int(text)
            if INT_MIN <= value <= INT_MAX:
                return value
        elif kind == "dec" and written.kind in ("dec", "int"):
            try:
                return -Decimal(text) if negative else Decimal(text)
            except InvalidOperation:
                pass
        elif negative:
            pass
        elif kind == "bool" and written.kind == "bool":
            return written.text == "true"
        elif kind == "str" and written.kind == "str":
            return _unescaped(text[1:-1])
        elif kind == "char" and written.kind == "char":
            letter = _unescaped(text[1:-1])
            if len(letter) == 1:
                return Char(letter)
        raise NotAValue(expression.__class__.__name__)
    if kind == "list" and isinstance(expression, n.ListLiteral):
        return tuple(literal_value(item, kite_type.args[0], declarations, bound) for item in expression.items)
    if kind in ("set", "map") and isinstance(expression, n.TypeCall) and not expression.args:
        return make_set(()) if kind == "set" else make_map(())
    if kind == "record" and isinstance(expression, n.Call) and isinstance(expression.func, n.Name) and expression.func.name == kite_type.name:
        fields = declarations.known_fields(kite_type)
        if fields is not None and len(fields) == len(expression.args):
            return Record(kite_type.name, tuple((name, literal_value(arg, t, declarations, bound))
                                                for (name, t), arg in zip(fields, expression.args)))
    if (kind == "enum" and isinstance(expression, n.Member) and isinstance(expression.target, n.Name)
            and expression.target.name == kite_type.name and expression.name in declarations.enums[kite_type.name]):
        return EnumValue(kite_type.name, expression.name)
    raise NotAValue(expression.__class__.__name__)


def _unescaped(text: str) -> str:
    out, index = [], 0
    while index < len(text):
        if text[index] == "\\" and index + 1 < len(text):
            escape = text[index + 1]
            if escape not in 'nt\\"\'':
                raise NotAValue(f"the escape \\{escape}")
            out.append({"n": "\n", "t": "\t"}.get(escape, escape))
            index += 2
        else:
            out.append(text[index])
            index += 1
    return "".join(out)
