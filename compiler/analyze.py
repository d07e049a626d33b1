"""Scopes and symbols of one module, gathered into plain facts that the rules read (kite.rules.check_module)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kite.callee import constructs
from kite.syntax import nodes as n

IMMUTABLE_KINDS = {"let", "const", "param", "loop", "lambda"}


@dataclass
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


class _Walker:
    def __init__(self, module: n.Module):
        self.module = module
        self.functions = {item.name: item for item in module.items if isinstance(item, n.FnDecl)}
        self.records = {item.name: item for item in module.items if isinstance(item, n.TypeDecl)}
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

    # ---- scopes

    def declare(self, name: str, kind: str, line: int, column: int, type_=None, value=None) -> None:
        binding = Binding(name, kind, line, column, type_, value=value)
        # A local still in scope (not a module constant, which a local may hide; a lambda parameter may hide one too).
        earlier = next((scope[name] for scope in reversed(self.scopes[1:]) if name in scope), None)
        if earlier is not None and kind != "lambda":
            self.redeclared.append((binding, earlier))
        self.scopes[-1][name] = binding
        self.bindings.append(binding)
        self.declarations.append(Declaration(name, kind if kind != "mut" else "let", line, column))

    def resolve(self, name: str) -> Binding | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def in_scope(self, body, *, before=()):
        self.scopes.append({})
        for declare in before:
            declare()
        self.block(body)
        self.scopes.pop()

    # ---- module

    def run(self) -> Facts:
        module = self.module
        if module.name:
            self.declarations.append(Declaration(module.name, "module", module.line, module.column))
        for item in module.items:
            if isinstance(item, n.Let):
                self.expr(item.value)
                self.declare(item.name, "const", item.line, item.column, item.type, item.value)
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
                self.in_scope(item.body, before=[lambda p=p: self.declare(p.name, "param", p.line, p.column, p.type) for p in item.params])
            elif isinstance(item, n.TestDecl):
                self.in_test = True
                self.in_scope(item.body)
                self.in_test = False
        return Facts(
            tuple(self.declarations), tuple(self.bindings), tuple(self.illegal), tuple(self.discarded),
            self.functions, self.records, tuple(self.misplaced), tuple(self.lambdas), tuple(self.redeclared),
            tuple(self.resolved), tuple(self.members),
        )

    # ---- statements

    def block(self, body) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, s) -> None:
        if isinstance(s, n.Let):
            self.expr(s.value)
            value_type = s.type or self.type_of(s.value)
            self.declare(s.name, "mut" if s.mutable else "let", s.line, s.column, value_type, s.value)
        elif isinstance(s, n.Assign):
            self.assign(s)
        elif isinstance(s, n.ExprStmt):
            self.expr(s.expr)
            called = s.expr.func if isinstance(s.expr, n.Call) else None
            callee = self.resolve(called.name) if isinstance(called, n.Name) else None
            self.discarded.append(Discarded(s.expr, callee))
        elif isinstance(s, n.Return):
            if s.value is not None:
                self.expr(s.value)
        elif isinstance(s, (n.Break, n.Continue, n.Pass)):
            pass
        elif isinstance(s, n.Expect):
            if not self.in_test:
                self.misplaced.append((s, "'expect' belongs in a test block"))
            self.expr(s.expr)
        elif isinstance(s, n.If):
            for condition, body in s.branches:
                self.expr(condition)
                self.in_scope(body)
            if s.orelse is not None:
                self.in_scope(s.orelse)
        elif isinstance(s, n.While):
            self.expr(s.condition)
            self.in_scope(s.body)
        elif isinstance(s, n.For):
            self.expr(s.iterable)
            element = _element_type(self, s.iterable)
            self.in_scope(s.body, before=[lambda: self.declare(s.name, "loop", s.line, s.name_column, element)])
        else:
            raise TypeError(f"the analyzer does not know the statement {type(s).__name__}")

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
        """The Kite type of an expression, where declarations tell it: enough to know a record's field is assigned
        however the record was reached (`items[0].price`, `find().price`, a loop over a call)."""
        if isinstance(e, n.Name):
            binding = self.resolve(e.name)
            return binding.type if binding is not None else None
        if isinstance(e, n.Call) and isinstance(e.func, n.Name):
            name = e.func.name
            if constructs(name, is_value=self.resolve(name) is not None, functions=self.functions, types=self.records):
                return n.TypeRef(e.line, e.column, name)
            function = self.functions.get(name) if self.resolve(name) is None else None
            return function.returns if function is not None else None
        if isinstance(e, n.TypeCall):
            return e.type
        if isinstance(e, n.Index):
            container = self.type_of(e.target)
            if container is not None and container.name in ("list", "map") and container.args:
                return container.args[-1]  # a list's element, a map's value
            return None
        if isinstance(e, n.Member):
            owner = self.type_of(e.target)
            record = self.records.get(owner.name) if owner is not None else None
            return next((f.type for f in record.fields if f.name == e.name), None) if record is not None else None
        return None

    # ---- expressions: only lambdas declare anything

    def expr(self, e) -> None:
        if isinstance(e, n.Lambda):
            self.lambda_depth += 1
            self.lambdas.append((e, self.lambda_depth))
            self.scopes.append({})
            for param in e.params:
                self.declare(param.name, "lambda", param.line, param.column, param.type)
            self.expr(e.body)
            self.scopes.pop()
            self.lambda_depth -= 1
            return
        if isinstance(e, n.Name):
            self.resolved.append((e, self.resolve(e.name)))
        elif isinstance(e, n.Member):
            self.members.append((e, self.type_of(e.target)))
        for child in n.children(e):
            self.expr(child)


def _record_of(walker: _Walker, e) -> str | None:
    found = walker.type_of(e)
    return found.name if found is not None and found.name in walker.records else None


def _element_type(walker: _Walker, iterable) -> n.TypeRef | None:
    found = walker.type_of(iterable)
    if found is not None and found.name in ("list", "set") and found.args:
        return found.args[0]
    return None


def gather(module: n.Module) -> Facts:
    return _Walker(module).run()
