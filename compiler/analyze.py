"""Scopes and symbols of one module, gathered into plain facts that the rules read (kite.rules.check_module)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

from kite import standard_library
from kite.callee import constructs
from kite.narrowing import always_exits, field_path, none_test, through, unchanged
from kite.syntax import nodes as n

IMMUTABLE_KINDS = {"let", "const", "param", "loop", "lambda"}
# A scope holds a narrowing (kite.narrowing) of a name or field path under the key NARROWED + it, which no name can
# be: resolve() and the facts never see it, and a name declared in an inner scope hides it as C# would.
NARROWED = "!"
LOGICAL = frozenset(("and", "or", "not"))


@dataclass(slots=True)
class Binding:
    name: str
    kind: str  # let, mut, const, param, loop, lambda
    line: int
    column: int
    type: n.TypeRef | None = None
    changed: bool = False
    value: n.Expr | None = None  # what a let was given: a lambda makes the name callable

    @property
    def span(self) -> n.Span:
        return n.Span.of_name(self.line, self.column, self.name)


@dataclass(frozen=True)
class Declaration:
    name: str
    kind: str  # module, type, enum, member, field, fn, param, let, const, loop, lambda
    line: int
    column: int

    @property
    def span(self) -> n.Span:
        return n.Span.of_name(self.line, self.column, self.name)


@dataclass(frozen=True)
class IllegalAssignment:
    name: str
    kind: str  # what was assigned: let, const, param, loop, lambda, field
    owner: str | None  # the record type, for a field
    target: n.Expr  # what was assigned, as written: where the diagnostic goes


@dataclass(frozen=True)
class Discarded:
    """An expression statement: its value, if it has one, is thrown away."""

    expr: n.Expr
    callee: Binding | None = None  # the local or constant a called name is, where it is one


@dataclass(frozen=True)
class Facts:
    declarations: tuple[Declaration, ...]
    bindings: tuple[Binding, ...]
    illegal_assignments: tuple[IllegalAssignment, ...]
    discarded: tuple[Discarded, ...]
    functions: dict  # name -> FnDecl
    records: dict  # name -> TypeDecl
    misplaced: tuple[tuple[n.Node, str], ...] = field(default=())  # KT000 found by the analyzer: where, and why
    lambdas: tuple[tuple[n.Lambda, int], ...] = field(default=())  # each lambda and how many lambdas it is inside, plus one
    redeclared: tuple[tuple[Binding, Binding], ...] = field(default=())  # (declaration, the one in scope it meets)
    # Every name read or assigned, with the local or constant it means there (None: a function, type, the standard
    # library, or nothing declared); and every member access with its target's type where declarations tell it.
    resolved: tuple[tuple[n.Name, Binding | None], ...] = field(default=())
    members: tuple[tuple[n.Member, n.TypeRef | None], ...] = field(default=())
    # The one type pass: every expression's Kite type where declarations, literals and the standard library tell it
    # (None where they do not: .NET members, an unknown name). A lambda's is TypeRef("fn", params, returns=result), as a function type is written.
    types: tuple[tuple[n.Expr, n.TypeRef | None], ...] = field(default=())


class _Walker:
    def __init__(self, module: n.Module, shared=(), every_type: bool = True):
        self.module = module
        self.shared = shared
        self.every_type = every_type
        known = (*shared, *module.items)  # the module's own declarations win over its other files'
        self.functions = {item.name: item for item in known if isinstance(item, n.FnDecl)}
        self.records = {item.name: item for item in known if isinstance(item, n.TypeDecl)}
        self.declarations: list[Declaration] = []
        self.bindings: list[Binding] = []
        self.illegal: list[IllegalAssignment] = []
        self.discarded: list[Discarded] = []
        self.misplaced: list[tuple[n.Node, str]] = []
        self.scopes: list[dict[str, Binding]] = [{}]
        self.in_test = False
        self.lambdas: list[tuple[n.Lambda, int]] = []
        self.lambda_depth = 0
        self.redeclared: list[tuple[Binding, Binding]] = []
        self.resolved: list[tuple[n.Name, Binding | None]] = []
        self.members: list[tuple[n.Member, n.TypeRef | None]] = []
        self.enums = {item.name for item in known if isinstance(item, n.EnumDecl)}
        self.types: list[tuple[n.Expr, n.TypeRef | None]] = []
        self.typed: dict[int, n.TypeRef | None] = {}  # id(expression) -> its type, as the walk leaves it
        self.narrowing = False  # a narrowing was made in this function or test: its blocks look for where it ends

    # ---- scopes

    def declare(self, name: str, kind: str, line: int, column: int, type_=None, value=None) -> None:
        binding = Binding(name, kind, line, column, type_, value=value)
        if kind != "lambda":  # a lambda parameter may hide a local
            for scope in self.scopes[:0:-1]:  # a local still in scope, not a module constant (a local may hide one)
                if name in scope:
                    self.redeclared.append((binding, scope[name]))
                    break
        self.scopes[-1][name] = binding
        if self.narrowing:
            self.scopes[-1].pop(NARROWED + name, None)  # the new binding is not the one narrowed
        self.bindings.append(binding)
        self.declarations.append(Declaration(name, kind if kind != "mut" else "let", line, column))

    def resolve(self, name: str) -> Binding | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def in_scope(self, body, *, before=(), narrowed=None):
        """`before`: the declare() arguments of each local the new scope holds before the body (parameters, a loop's)."""
        self.scopes.append(_narrowing(narrowed) if narrowed else {})
        for declared in before:
            self.declare(*declared)
        self.block(body)
        self.scopes.pop()

    # ---- module

    def run(self) -> Facts:
        module = self.module
        if module.name:
            self.declarations.append(Declaration(module.name, "module", module.line, module.column))
        for item in self.shared:  # the other files' constants, in scope under this file's own (not its bindings)
            if isinstance(item, n.Let) and item.name not in standard_library.FUNCTIONS:  # a bare stdlib name is the stdlib's
                self.scopes[0][item.name] = Binding(item.name, "const", item.line, item.column, item.type or self.type_of(item.value))
        for item in module.items:
            if isinstance(item, n.Let):
                self.expr(item.value, item.type)
                self.declare(item.name, "const", item.line, item.column, item.type or self.type_of(item.value), item.value)
            elif isinstance(item, n.TypeDecl):
                self.declarations.append(Declaration(item.name, "type", item.line, item.column))
                for record_field in item.fields:
                    self.declarations.append(Declaration(record_field.name, "field", record_field.line, record_field.column))
            elif isinstance(item, n.EnumDecl):
                self.declarations.append(Declaration(item.name, "enum", item.line, item.column))
                for member in item.members:
                    self.declarations.append(Declaration(member.name, "member", member.line, member.column))
            elif isinstance(item, n.FnDecl):
                self.declarations.append(Declaration(item.name, "fn", item.line, item.column))
            elif not isinstance(item, (n.Use, n.TestDecl)):
                raise TypeError(f"the analyzer does not know the item {type(item).__name__}")
        for item in module.items:
            if isinstance(item, n.FnDecl):
                for param in item.params:
                    if param.type is None:
                        self.misplaced.append((param, f"parameter '{param.name}' needs a type: {param.name}: int"))
                self.narrowing = False
                self.in_scope(item.body, before=[(p.name, "param", p.line, p.column, p.type) for p in item.params])
            elif isinstance(item, n.TestDecl):
                self.in_test = True
                self.narrowing = False
                self.in_scope(item.body)
                self.in_test = False
        return Facts(
            tuple(self.declarations), tuple(self.bindings), tuple(self.illegal), tuple(self.discarded),
            self.functions, self.records, tuple(self.misplaced), tuple(self.lambdas), tuple(self.redeclared),
            tuple(self.resolved), tuple(self.members), tuple(self.types),
        )

    # ---- statements

    def block(self, body) -> None:
        scope = self.scopes[-1]
        for statement in body:
            if not self.narrowing:
                self.statement(statement)
            else:  # a narrowing holds until the name is assigned
                through(statement, {key[1:]: key for key in scope if key[0] == NARROWED}, scope, self.statement)

    def statement(self, s) -> None:
        kind = type(s)  # as expr(): node classes have no subclasses, so one `is` each, the commonest first
        if kind is n.Return:
            if s.value is not None:
                self.expr(s.value)
        elif kind is n.Let:
            self.expr(s.value, s.type)
            value_type = s.type or self.type_of(s.value)
            self.declare(s.name, "mut" if s.mutable else "let", s.line, s.column, value_type, s.value)
        elif kind is n.If:
            self.if_statement(s)
        elif kind is n.Assign:
            self.assign(s)
        elif kind is n.ExprStmt:
            self.expr(s.expr)
            called = s.expr.func if type(s.expr) is n.Call else None
            callee = self.resolve(called.name) if type(called) is n.Name else None
            self.discarded.append(Discarded(s.expr, callee))
        elif kind is n.For:
            self.expr(s.iterable)
            element = _element_type(self, s.iterable)
            self.in_scope(s.body, before=[(s.name, "loop", s.line, s.name_column, element)])
        elif kind is n.While:
            when_true, _ = self.condition(s.condition)
            self.in_scope(s.body, narrowed=when_true)
        elif kind is n.Expect:
            if not self.in_test:
                self.misplaced.append((s, "'expect' belongs in a test block"))
            self.expr(s.expr)
        elif kind is not n.Break and kind is not n.Continue and kind is not n.Pass:
            raise TypeError(f"the analyzer does not know the statement {type(s).__name__}")

    def if_statement(self, s: n.If) -> None:
        """As codegen's: a none-test narrows every later condition and branch (they run only when it was false), and
        the rest of the block once it and every branch before it exit, but for the names a later branch assigns."""
        known_false: dict[str, Binding] = {}  # narrowed because every condition so far was false
        exits = True
        for position, (condition, body) in enumerate(s.branches):
            self.scopes.append(_narrowing(known_false))
            when_true, when_false = self.condition(condition)
            self.scopes.pop()
            self.in_scope(body, narrowed={**known_false, **when_true})
            known_false.update(when_false)
            exits = exits and always_exits(body)
            if exits and known_false:  # nothing narrowed: no walk of the later branches for what they assign
                later = [statement for _, other in s.branches[position + 1:] for statement in other] + list(s.orelse or ())
                self.scopes[-1].update(_narrowing(unchanged(known_false, later)))
        if s.orelse is not None:
            self.in_scope(s.orelse, narrowed=known_false)

    def condition(self, e) -> tuple[dict[str, Binding], dict[str, Binding]]:
        """Walks a condition (any `and`, `or` or `not`, wherever it is) as expr() does, and gives what it narrows when
        true and when false, as codegen's condition(): each term of a chain sees what the terms before it narrowed."""
        if isinstance(e, n.Binary) and e.op in ("and", "or"):
            operations = n.chain(e)
            when_true, when_false = self.condition(operations[0].left)
            carried = when_true if e.op == "and" else when_false
            for operation in operations:
                self.scopes.append(_narrowing(carried))
                when_true, when_false = self.condition(operation.right)
                self.scopes.pop()
                carried = {**carried, **(when_true if e.op == "and" else when_false)}
                self.typed_as(operation)
            return (carried, {}) if e.op == "and" else ({}, carried)
        if isinstance(e, n.Unary) and e.op == "not":
            when_true, when_false = self.condition(e.operand)
            self.typed_as(e)
            return when_false, when_true
        self.expr(e)
        test = none_test(e)
        if test is None:
            return {}, {}
        subject, not_none = test
        found = self.narrowable(subject)
        self.narrowing = self.narrowing or bool(found)
        return (found, {}) if not_none else ({}, found)

    def narrowable(self, subject) -> dict[str, Binding]:
        """What a none-test of `subject` narrows: a name, or a field path (kite.narrowing), with the binding it reads;
        nothing for any other expression."""
        if isinstance(subject, n.Name):
            binding = self.resolve(subject.name)
            return {subject.name: binding} if binding is not None else {}
        path = field_path(subject, self.fields, self.is_local)
        root = self.resolve(path.split(".")[0]) if path is not None else None
        return {path: root} if path is not None and root is not None else {}

    def is_local(self, name: str) -> bool:
        """A name codegen reads as a local: declared in a function or test, or a constant narrowed there."""
        binding = self.resolve(name)
        return binding is not None and (binding.kind != "const" or self.narrowed_here(name))

    @cached_property
    def fields(self) -> frozenset[str]:
        """The record fields and enum members of the module and its other files, which codegen's field paths read."""
        known = (*self.shared, *self.module.items)
        return frozenset([*(f.name for item in known if isinstance(item, n.TypeDecl) for f in item.fields),
                          *(m.name for item in known if isinstance(item, n.EnumDecl) for m in item.members)])

    def narrowed_here(self, key: str) -> bool:
        """Whether a name or field path is narrowed where the walk is: a declaration of its name in a scope nearer than
        the narrowing hides it."""
        root = key.split(".")[0]
        for scope in reversed(self.scopes):
            if NARROWED + key in scope:
                return True
            if root in scope:
                return False
        return False

    def narrowed_type(self, e, found: n.TypeRef | None) -> n.TypeRef | None:
        """`found`, the type of a name or a field read, without its `?` where a none-test narrowed it."""
        if found is None or not found.nullable or not self.narrowing:
            return found
        key = e.name if isinstance(e, n.Name) else field_path(e, self.fields, self.is_local)
        return replace(found, nullable=False) if key is not None and self.narrowed_here(key) else found

    def assign(self, s: n.Assign) -> None:
        self.expr(s.value)
        target = s.target
        if isinstance(target, n.Name):
            binding = self.resolve(target.name)
            self.resolved.append((target, binding))
            if binding is None:
                return
            if binding.kind in IMMUTABLE_KINDS:
                self.illegal.append(IllegalAssignment(target.name, binding.kind, None, target))
            else:
                binding.changed = True
        elif isinstance(target, n.Member):
            self.expr(target.target)
            self.members.append((target, self.type_of(target.target)))
            owner = _record_of(self, target.target)
            if owner is not None and any(f.name == target.name for f in self.records[owner].fields):
                self.illegal.append(IllegalAssignment(target.name, "field", owner, target))
        else:
            self.expr(target)

    def type_of(self, e) -> n.TypeRef | None:
        """The Kite type of an expression the walk has been through (kite.analyze's one type pass)."""
        if id(e) in self.typed:
            return self.typed[id(e)]
        if self.every_type:
            return self.infer(e)
        # Only the types asked for, when asked: right after the walk of `e`, in its scope, as the walk would have.
        found = self.typed[id(e)] = self.infer(e)
        return found

    def infer(self, e) -> n.TypeRef | None:
        """The type of an expression from its children's (already walked) and the declarations in scope: enough to
        know a record's field is assigned however the record was reached (`items[0].price`, `find().price`, a loop
        over a call), and to show every expression's type in an editor."""
        at = (e.line, e.column)
        kind = type(e)  # as expr()
        if kind is n.Name:
            binding = self.resolve(e.name)
            if binding is not None:
                return self.narrowed_type(e, binding.type)
            if e.name in self.functions:
                return _function_type(self.functions[e.name])
            return n.TypeRef(*at, e.name) if e.name in self.records or e.name in self.enums else None
        if kind is n.Literal:
            return n.TypeRef(*at, e.kind)
        if kind is n.FString or kind is n.Formatted:
            return n.TypeRef(*at, "str")
        if kind is n.ListLiteral:
            items = [self.type_of(item) for item in e.items]
            element = _common(items)
            return n.TypeRef(*at, "list", (element,) if element is not None else ())
        if kind is n.Unary:
            return n.TypeRef(*at, "bool") if e.op == "not" else self.type_of(e.operand)
        if kind is n.Binary:
            if e.op in ("and", "or", "==", "!=", "<", "<=", ">", ">=", "in"):
                return n.TypeRef(*at, "bool")
            return _common([self.type_of(e.left), self.type_of(e.right)])
        if kind is n.Call:
            return self._call_type(e)
        if kind is n.TypeCall:
            return e.type
        if kind is n.Index:
            container = self.type_of(e.target)
            if container is not None and container.name in ("list", "map") and container.args:
                return container.args[-1]  # a list's element, a map's value
            return n.TypeRef(*at, "char") if container is not None and container.name == "str" else None
        if kind is n.Member:
            target = e.target
            if isinstance(target, n.Name) and target.name in self.enums and self.resolve(target.name) is None:
                return n.TypeRef(*at, target.name)
            owner = self.type_of(target)
            record = self.records.get(owner.name) if owner is not None else None
            found = next((f.type for f in record.fields if f.name == e.name), None) if record is not None else None
            return self.narrowed_type(e, found)
        if kind is n.Lambda:
            return n.TypeRef(*at, "fn", tuple(p.type or n.TypeRef(*at, "?") for p in e.params), returns=self.type_of(e.body) or n.TypeRef(*at, "?"))
        return None

    def _call_type(self, e: n.Call) -> n.TypeRef | None:
        if not isinstance(e.func, n.Name):
            return None
        name = e.func.name
        std = standard_library.FUNCTIONS.get(name)
        if std is not None:
            return _std_result(std, [self.type_of(arg) for arg in e.args], (e.line, e.column))
        binding = self.resolve(name)
        if constructs(name, is_value=binding is not None, functions=self.functions, types=self.records):
            return n.TypeRef(e.line, e.column, name)
        if binding is not None:
            called = binding.type
            return called.returns if called is not None and called.name == "fn" and called.returns is not None and called.returns.name != "?" else None
        function = self.functions.get(name)
        return function.returns if function is not None else None

    # ---- expressions: only lambdas declare anything

    def expr(self, e, expected: n.TypeRef | None = None) -> None:
        """`expected`: the type the place of `e` declares (a typed let, a parameter, a field, a list's element),
        from which a lambda without parameter types takes them, as C# does."""
        kind = type(e)  # node classes have no subclasses: one `is` each, not isinstance down the list (the hot walk)
        if kind is n.Name:  # the commonest first
            self.resolved.append((e, self.resolve(e.name)))
        elif kind is n.Literal:
            pass
        elif kind is n.Call:
            self.expr(e.func)
            places = self._parameter_types(e)
            for index, arg in enumerate(e.args):
                self.expr(arg, places[index] if index < len(places) else None)
        elif kind is n.Binary:
            if e.op in LOGICAL:
                self.condition(e)  # a term of `and` or `or` sees what the terms before it narrowed, in any expression
                return
            operations = n.chain(e)
            self.expr(operations[0].left)
            for operation in operations:
                self.expr(operation.right)
                self.typed_as(operation)
            return
        elif kind is n.Lambda:
            self.lambda_(e, expected)
            return
        elif kind is n.Unary and e.op in LOGICAL:
            self.condition(e)
            return
        elif kind is n.ListLiteral:
            element = expected.args[0] if expected is not None and expected.name == "list" and expected.args else None
            for item in e.items:
                self.expr(item, element)
        else:
            for child in n.children(e):
                self.expr(child)
            if kind is n.Member:
                self.members.append((e, self.type_of(e.target)))
        if self.every_type:
            self.typed_as(e)

    def lambda_(self, e: n.Lambda, expected: n.TypeRef | None) -> None:
        self.lambda_depth += 1
        self.lambdas.append((e, self.lambda_depth))
        self.scopes.append({})
        target = expected if expected is not None and expected.name == "fn" and len(expected.args) == len(e.params) else None
        params = tuple(p.type or (target.args[i] if target is not None else None) for i, p in enumerate(e.params))
        for param, declared in zip(e.params, params):
            self.declare(param.name, "lambda", param.line, param.column, declared)
        self.expr(e.body)
        at = (e.line, e.column)
        returns = self.type_of(e.body) or n.TypeRef(*at, "?") if target is None or target.returns is not None else None
        found = self.typed[id(e)] = n.TypeRef(*at, "fn", tuple(t or n.TypeRef(*at, "?") for t in params), returns=returns)
        if self.every_type:
            self.types.append((e, found))  # with its parameters in scope
        self.scopes.pop()
        self.lambda_depth -= 1

    def _parameter_types(self, e: n.Call) -> tuple[n.TypeRef | None, ...]:
        """What a call's arguments are declared as: a module function's parameters, a function-typed local's, a record's
        fields; () where Kite does not declare them (.NET members, the standard library)."""
        if not isinstance(e.func, n.Name):
            return ()
        name = e.func.name
        binding = self.resolve(name)
        if binding is not None:
            return binding.type.args if binding.type is not None and binding.type.name == "fn" else ()
        if name in self.records and name not in self.functions:
            return tuple(f.type for f in self.records[name].fields)
        function = self.functions.get(name)
        return tuple(p.type for p in function.params) if function is not None and name not in standard_library.FUNCTIONS else ()

    def typed_as(self, e) -> None:
        if isinstance(e, n.TypeRef) or not self.every_type:
            return  # a type written in a call (`map<str, int>()`) is not an expression
        found = self.typed[id(e)] = self.infer(e)
        self.types.append((e, found))


def _narrowing(narrowed: dict[str, Binding]) -> dict[str, Binding]:
    """A scope's entries for these narrowings (of names and field paths, kite.narrowing)."""
    return {NARROWED + key: binding for key, binding in narrowed.items()} if narrowed else {}  # most are none


def _function_type(fn: n.FnDecl) -> n.TypeRef:
    at = (fn.line, fn.column)
    return n.TypeRef(*at, "fn", tuple(p.type or n.TypeRef(*at, "?") for p in fn.params), returns=fn.returns)


def _common(found: list) -> n.TypeRef | None:
    """The one type of several values (a list's items, an operation's sides): an int among decs is a dec."""
    known = [t for t in found if t is not None and t.name != "none"]
    if not known or len(known) < len(found) - sum(1 for t in found if t is not None and t.name == "none"):
        return None
    names = {t.name for t in known}
    if names == {"int", "dec"}:
        return next(t for t in known if t.name == "dec")
    first = known[0]
    return first if all(_same(t, first) for t in known) else None


def _same(a: n.TypeRef, b: n.TypeRef) -> bool:
    """The same type, wherever each is written (a node's equality compares its position too)."""
    same_result = a.returns is b.returns is None or (a.returns is not None and b.returns is not None and _same(a.returns, b.returns))
    return a.name == b.name and a.nullable == b.nullable and len(a.args) == len(b.args) and all(map(_same, a.args, b.args)) and same_result


def _std_result(std, args: list, at: tuple[int, int]) -> n.TypeRef | None:
    """A standard-library call's type, from the table's `returns` and its arguments' types."""
    spec = std.returns
    first = args[0] if args else None
    if spec is None:
        return None
    if spec == "$arg" or (spec == "$element" and len(args) == 2):
        return first
    if not spec.startswith("$"):
        return _type_from_text(spec, at)
    if first is None:
        return None
    element = first.args[0] if first.args and first.name in ("list", "set", "map") else (n.TypeRef(*at, "char") if first.name == "str" else None)
    if spec == "$element":
        return element
    if spec == "$list":
        return n.TypeRef(*at, "list", (element,)) if element is not None else None
    if spec == "$values":
        return n.TypeRef(*at, "list", (first.args[1],)) if first.name == "map" and len(first.args) == 2 else None
    raise ValueError(f"the standard library's table has an unknown result {spec!r}")


def _type_from_text(text: str, at: tuple[int, int]) -> n.TypeRef:
    """`int`, `dec?`, `list<str>`: the result types the standard library's table spells."""
    nullable = text.endswith("?")
    text = text.removesuffix("?")
    if "<" in text:
        name, inner = text[:-1].split("<", 1)
        return n.TypeRef(*at, name, (_type_from_text(inner, at),), nullable)
    return n.TypeRef(*at, text, (), nullable)


def _record_of(walker: _Walker, e) -> str | None:
    found = walker.type_of(e)
    return found.name if found is not None and found.name in walker.records else None


def _element_type(walker: _Walker, iterable) -> n.TypeRef | None:
    found = walker.type_of(iterable)
    if found is not None and found.name in ("list", "set") and found.args:
        return found.args[0]
    return None


def gather(module: n.Module, shared=(), every_type: bool = True) -> Facts:
    """The module's facts. `shared`: declarations of the module's other files (a program's, for its test file) that
    its expressions may name: only the language server passes them, for the types it shows (the rules read one file
    at a time, as each file's own diagnostics are its own). `every_type=False`: `types` left empty, and an
    expression's type inferred only where a fact needs it (a binding's, a member's target's), as the index needs."""
    return _Walker(module, shared, every_type).run()
