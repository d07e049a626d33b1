"""The stages of a check as functions over plain data: finding units, Kite's layer, C# generation, merging layers.

kite.session runs them; nothing here holds state."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kite import analyze, diagnostics as diag, standard_library
from kite.codegen.csharp import UnitSymbols, csharp_path, generate, line_path
from kite.csharp_words import COUNTING, MIXED_LIST, NOT_ITERABLE, UNTYPED_LIST, in_kite_words
from kite.diagnostics import Diagnostic
from kite.errors import UnusableInput
from kite.rules import ALL_RULES, check_module, kt000_syntax, kt015_name_declared_twice
from kite.source import SourceFile, read
from kite.syntax import leaks, nodes as n
from kite.syntax.frontend import (
    ItemCache as ItemCache,  # re-exported: the session keeps one, below the syntax layer
    SyntaxResult,
    read_syntax,
)
from kite.syntax.nodes import Module

TEST_SUFFIX = ".test.kite"
# What recovery of a leaked line could cause on that line (recovered `var` is `let mut`, maybe never changed).
CASCADES_FROM_LEAKS = frozenset({"KT000", "KT002"})
# What keeps a unit from the C# layers, and how the JSON report says it.
# What stops the C# layers. A constant cycle (KT009) too: its constants' types cannot be told, and the compiler's
# words about them (object + int) would be a second diagnostic for the one mistake.
NOT_COMPILED = {"KT000": "the unit has syntax errors (KT000)", "KT010": "lambdas nested too deep to compile (KT010)",
                "KT009": "module constants read each other in a cycle (KT009)"}


@dataclass(frozen=True)
class Unit:
    """What compiles together: a program and the test files of its module."""

    program: SourceFile
    tests: tuple[SourceFile, ...] = ()

    @property
    def sources(self) -> tuple[SourceFile, ...]:
        return (self.program, *self.tests)


@dataclass(frozen=True)
class CheckResult:
    diagnostics: tuple[Diagnostic, ...]
    layers_run: tuple[diag.Layer, ...]  # honest: which layers actually ran
    skipped: tuple[str, ...] = field(default=())  # layers that could not run, and why

    @property
    def verdict(self) -> diag.Verdict:
        return diag.verdict(self.diagnostics)


@dataclass(frozen=True)
class UnitSource:
    """Where a unit's files are, before anything is read: reading is each unit's own business in a batch."""

    program: str
    tests: tuple[str, ...] = ()
    found_in_folder: bool = False  # named through a folder, not by the user
    problem: str = ""  # why the path cannot be a unit (a folder with no .kite file, or one that cannot be read)

    def read(self) -> Unit:
        if self.problem:
            raise UnusableInput(self.problem)
        return Unit(read(self.program), tuple(read(test) for test in self.tests))


def kite_files(paths, problems: list[UnitSource] | None = None) -> list[Path]:
    """Files as named, and folders as the *.kite files below them (sorted). A folder that holds none, or one that
    cannot be read (a subfolder too), is unusable input: raised, or with `problems` each kept there as a unit of its
    own (read() says what is wrong) while the other paths are still found."""
    files: list[Path] = []

    def unusable(message: str, path: str) -> None:
        if problems is None:
            raise UnusableInput(message)
        problems.append(UnitSource(path, problem=message))

    for raw in paths:
        path = Path(raw)
        # os.path's tests say False where pathlib's raise (a name too long, a folder that cannot be searched), so one
        # such path is its unit's one line (read() says why) and the batch goes on.
        if not os.path.isdir(path):
            files.append(path)
            continue
        found: list[Path] = []
        unreadable: list[OSError] = []
        for folder, _subfolders, names in os.walk(path, onerror=unreadable.append):
            found.extend(Path(folder, name) for name in names if name.endswith(".kite"))
        for error in unreadable:
            unusable(f"{error.filename}: cannot read this folder ({error.strerror})", str(error.filename))
        if not found and not unreadable:
            unusable(f"{raw}: no .kite files in this folder", str(raw))
        files.extend(sorted(found))
    return files


def find_units(paths: list[str]) -> list[UnitSource]:
    """Files and folders to units; NAME.test.kite and NAME.kite beside it always go together, and a test file with no
    NAME.kite goes with the one program of its folder when there is one. Nothing is read."""
    named = {str(Path(raw)) for raw in paths if not os.path.isdir(raw)}
    problems: list[UnitSource] = []
    files = kite_files(paths, problems)
    programs = [p for p in files if not p.name.endswith(TEST_SUFFIX)]
    tests = [p for p in files if p.name.endswith(TEST_SUFFIX)]
    units = []
    for program in dict.fromkeys(programs):
        companion = program.with_name(program.name.removesuffix(".kite") + TEST_SUFFIX)
        own_tests = (str(companion),) if os.path.exists(companion) else ()
        units.append(UnitSource(str(program), own_tests, str(program) not in named))
    claimed = {test for unit in units for test in unit.tests}
    for test in dict.fromkeys(tests):
        if str(test) not in claimed:
            program = test.with_name(test.name.removesuffix(TEST_SUFFIX) + ".kite")
            beside = [index for index, unit in enumerate(units) if Path(unit.program).parent == test.parent]
            if not os.path.exists(program) and len(beside) == 1:  # the folder's one program (a task's augmented.test.kite)
                units[beside[0]] = dataclasses.replace(units[beside[0]], tests=(*units[beside[0]].tests, str(test)))
                continue
            unit = UnitSource(str(program), (str(test),)) if os.path.exists(program) else UnitSource(str(test))
            units.append(dataclasses.replace(unit, found_in_folder=str(test) not in named))
    return units + problems


def kite_layer(source: SourceFile, items: ItemCache | None = None) -> tuple[SyntaxResult, list[Diagnostic]]:
    syntax = read_syntax(source, items)
    found = list(syntax.diagnostics)
    if syntax.module is not None:
        for d in check_module(syntax.module, source.path):
            if d.line in syntax.replaced_lines:
                continue  # recovery wrote that line, not the user
            if d.line in syntax.leaked_lines and d.id in CASCADES_FROM_LEAKS:
                continue
            found.append(d)
    return syntax, found


SAME_PROBLEM = {rule.RULE.id: rule.RULE.same_as for rule in ALL_RULES}
# C# ids that only restate another C# diagnostic on the same line: an int? used as int is CS0266, and CS8629
# ("nullable value type may be null") about the same conversion adds nothing.
RESTATES = {"CS8629": frozenset({"CS0266"})}
# A name declared twice (KT015) makes the compiler speak wherever the other declaration or a call of it is, often in
# a hidden test file: those words for the same cause go too, in every file of the unit, when they name that name
# (LANGUAGE.md section 12: a diagnostic never points into a hidden test file for a cause that lies in the answer).
ANYWHERE = {"KT015": frozenset({"CS0111", "CS0121", "CS0102"})}
QUOTED_NAME = re.compile(r"'([^']+)'")


def names_the_same(d: Diagnostic, names: set[str]) -> bool:
    """CS0102/CS0111 quote the member ('price_of'); CS0121 quotes its signatures ('Shop.close_to(int, int)')."""
    return any(quoted.split("(")[0].rsplit(".", 1)[-1] in names for quoted in QUOTED_NAME.findall(d.message))


def merge(kite: list[Diagnostic], csharp: list[Diagnostic], syntax: dict[str, SyntaxResult]) -> list[Diagnostic]:
    """One diagnostic per problem: Kite's line wins over the compiler's word for the same thing, a C# id that restates
    another on its line goes, and one message on one line is said once (CA1851 comes once per enumeration).

    Linear in the number of diagnostics: the ids Kite already reports are looked up by (file, line)."""
    csharp = on_method_lines(csharp, syntax)
    covered: dict[tuple[str, int], set[str]] = {}
    anywhere: dict[str, set[str]] = {}  # C# id -> the names a Kite diagnostic reports in every file
    for k in kite:
        if SAME_PROBLEM.get(k.id):
            covered.setdefault((k.file, k.line), set()).update(SAME_PROBLEM[k.id])
        quoted = QUOTED_NAME.search(k.message) if k.id in ANYWHERE else None
        if quoted is not None:
            for code in ANYWHERE[k.id]:
                anywhere.setdefault(code, set()).add(quoted.group(1))
    ids_on_line: dict[tuple[str, int], set[str]] = {}
    for d in csharp:
        ids_on_line.setdefault((d.file, d.line), set()).add(d.id)
    said: set[tuple[str, int, str, str]] = set()
    kept = list(kite)
    for d in map(delegates_in_kite_words, map(in_kite_words, csharp)):  # as Kite spells names: `helper__t` is `helper`
        if RESTATES.get(d.id, frozenset()) & ids_on_line[(d.file, d.line)] or (d.file, d.line, d.id, d.message) in said:
            continue
        said.add((d.file, d.line, d.id, d.message))
        result = syntax.get(d.file)
        if result is not None and (d.line in result.leaked_lines or d.line in result.replaced_lines):
            continue  # recovery's guess at a leaked line is not the user's code
        if d.id in covered.get((d.file, d.line), ()) or (d.id in anywhere and names_the_same(d, anywhere[d.id])):
            continue
        if d.id == "CS0411" and result is not None and result.module is not None:
            d = untyped_in_kite_terms(d, result.module)
        kept.append(d)
    return diag.ordered(kept)


DELEGATE = re.compile(r"(?:System\.)?((?:Func|Action)<)")
NAMESPACE = re.compile(r"\bSystem\.(?:Collections\.Generic\.)?")
# A .NET method Kite writes as a standard-library function: `xs.len()` is len(xs) (CS1061 names the member).
NO_MEMBER = re.compile(r"does not contain a definition for '(\w+)'")


def delegates_in_kite_words(d: Diagnostic) -> Diagnostic:
    """A C# message about a function type names Kite's spelling (`System.Func<int, int>` is `fn(int) -> int`, a
    named function is no "method group"), and `xs.len()` says len is a function (LANGUAGE.md section 12)."""
    message = d.message
    if d.id == "CS1061":
        member = NO_MEMBER.search(message)
        if member is not None and member.group(1) in standard_library.FUNCTIONS:
            said = message.split(" and no accessible")[0]
            return dataclasses.replace(d, message=f"{said}: {member.group(1)} is a function: write {member.group(1)}(x), not x.{member.group(1)}()")
    if "Func<" not in message and "Action<" not in message:
        return d
    for start in reversed([m.start(1) for m in DELEGATE.finditer(message)]):  # innermost last: outer spans stay put
        depth, end = 0, start
        for end in range(message.index("<", start), len(message)):
            depth += {"<": 1, ">": -1}.get(message[end], 0) if message[end - 1:end] != "-" else 0
            if depth == 0:
                break
        prefix = message[:start].removesuffix("System.")
        message = prefix + leaks.function_type(NAMESPACE.sub("", message[start:end + 1])) + message[end + 1:]
    message = message.replace("'method group'", "a named function").replace("Delegate '", "A function of type '")
    return dataclasses.replace(d, message=message)


def on_method_lines(csharp: list[Diagnostic], syntax: dict[str, SyntaxResult]) -> list[Diagnostic]:
    """A diagnostic about a call continued over lines (`xs` / `.Count()`) on the line and span of the method's name.

    Roslyn reports an invocation where it starts, which is its receiver's text, and maps its span from there as if
    the C# line were the Kite one; so of the receiver and the calls chained on it from that place, the diagnostic
    is about the one whose text, joined onto one line, is as long as its span. The receiver's own (an unknown `xs`)
    stays (docs/language.md, "Where a diagnostic is")."""
    calls: dict[str, dict[tuple[int, int], list[n.Call]]] = {}
    for file, result in syntax.items():
        if result.module is not None and any(d.file == file for d in csharp):
            starts = calls.setdefault(file, {})
            for node in n.descendants(result.module):
                if isinstance(node, n.Call) and isinstance(node.func, n.Member) and node.func.end_line > node.func.target.end_line:
                    starts.setdefault((node.line, node.column), []).append(node)
    moved = []
    for d in csharp:
        chain = calls.get(d.file, {}).get((d.line, d.column))
        if chain and d.end_line == d.line and syntax[d.file].parsed_lines:
            lines = syntax[d.file].parsed_lines
            innermost = chain[-1].func  # descendants walks a chain's outer calls first
            assert isinstance(innermost, n.Member)
            receiver = innermost.target
            length = d.end_column - d.column
            about = min([receiver, *chain], key=lambda node: abs(_joined_length(node, lines) - length))
            if isinstance(about, n.Call) and isinstance(about.func, n.Member):
                member = about.func
                d = dataclasses.replace(d, line=member.end_line, column=member.end_column - len(member.name),
                                        end_line=about.end_line, end_column=about.end_column)
        moved.append(d)
    return moved


def _joined_length(node: n.Node, lines: Sequence[str]) -> int:
    """How long the node's text is with its line breaks and the indentation after them taken out."""
    if node.end_line == node.line:
        return node.end_column - node.column
    middle = sum(len(lines[i - 1].strip()) for i in range(node.line + 1, node.end_line))
    last = lines[node.end_line - 1][:node.end_column - 1].lstrip()
    return len(lines[node.line - 1]) - (node.column - 1) + middle + len(last)


def untyped_in_kite_terms(d: Diagnostic, module: Module) -> Diagnostic:
    """CS0411 on a list or a for loop, explained from what the code is, not from every way it can happen: a list of
    two types names them, on the line of the first element that differs; a for over an int or another value that is
    not a collection says so; only an empty [] or a bare none is "no type of its own"."""
    at = next((node for node in n.descendants(module) if isinstance(node, (n.ListLiteral, n.For))
               and (node.line, node.column) == (d.line, d.column)), None)
    if at is None:
        return d
    types = {id(e): t for e, t in analyze.gather(module).types}
    if isinstance(at, n.For):
        found = types.get(id(at.iterable))
        if found is None or found.name in ("list", "set", "map", "str", "none", "?"):
            return d
        advice = COUNTING if found.name == "int" else ""
        return dataclasses.replace(d, message=NOT_ITERABLE.format(what=f"{_kite_words(found)}", advice=advice))
    known: list[tuple[n.Node, n.TypeRef]] = []
    for item in at.items:
        t = types.get(id(item))
        if t is not None and t.name not in ("none", "?") and not (t.name == "list" and not t.args):
            known.append((item, t))
    if not known:
        return dataclasses.replace(d, message=UNTYPED_LIST)
    first = known[0][1]
    differing = next(((item, t) for item, t in known if not _same_type(t, first)), None)
    if differing is None:
        return d
    element, other = differing
    names = f" ({first.name} and {other.name})" if not first.args and not other.args else ""
    return dataclasses.replace(d, message=MIXED_LIST.format(types=names), line=element.line, column=element.column,
                               end_line=element.end_line, end_column=element.end_column)


def _same_type(a: n.TypeRef, b: n.TypeRef) -> bool:
    """The same Kite type, an int among decs included (a list of both is a list of dec)."""
    numbers = {"int", "dec"}
    return (a.name in numbers and b.name in numbers) or (a.name == b.name and len(a.args) == len(b.args)
                                                            and all(_same_type(x, y) for x, y in zip(a.args, b.args)))


def _kite_words(t: n.TypeRef) -> str:
    """A value of type t, in a message: `an int`, `a dec`, `a Point`."""
    return ("an " if t.name[:1] in "aeiouAEIOU" else "a ") + t.name


@dataclass(frozen=True)
class Generated:
    """A unit's C#: (C# path, text) per file, and the modules it came from."""

    sources: tuple[tuple[str, str], ...]
    module_name: str


def generate_unit(unit: Unit, modules: list[Module], *, entry_point: bool = False, running: bool = False) -> Generated:
    """`running`: C# to run, whose arithmetic is checked and names itself (codegen.csharp.generate)."""
    symbols = UnitSymbols.of(modules, [source.path for source in unit.sources])
    sources = tuple(
        (csharp_path(source.path), generate(module, source.path, symbols, file_index=index, entry_point=entry_point and index == 0,
                                            running=source.text if running else None))
        for index, (source, module) in enumerate(zip(unit.sources, modules))
    )
    return Generated(sources, modules[0].name)


SHA256_CHECKSUM = "{8829d00f-11b8-4213-878b-770e8597ac16}"  # #pragma checksum's id of SHA-256


def generate_for_debugger(unit: Unit, modules: list[Module], *, entry_point: bool) -> Generated:
    """The C# of a debug build: every #line path absolute and normalized (a debugger matches a client's path against
    the PDB's documents), and a `#pragma checksum` of each Kite file's bytes on disk, so a client can tell a stale
    source. The grading build never goes through here."""
    def absolute(source: SourceFile) -> SourceFile:
        return dataclasses.replace(source, path=os.path.normpath(os.path.abspath(source.path)))

    absolute_unit = Unit(absolute(unit.program), tuple(map(absolute, unit.tests)))
    generated = generate_unit(absolute_unit, modules, entry_point=entry_point)
    sources = []
    for source, (path, text) in zip(absolute_unit.sources, generated.sources):
        digest = hashlib.sha256(Path(source.path).read_bytes()).hexdigest()
        sources.append((path, f'#pragma checksum "{line_path(source.path)}" "{SHA256_CHECKSUM}" "{digest}"\n{text}'))
    return Generated(tuple(sources), generated.module_name)


def test_file_layer(source: SourceFile) -> tuple[SyntaxResult, tuple[Diagnostic, ...]]:
    """kite_layer of a test file, fit to be kept (a session keeps it: `kite score` meets a task's hidden tests with
    each of its answers): its diagnostics a tuple, so no caller changes what the next one gets."""
    syntax, found = kite_layer(source)
    return syntax, tuple(found)


def front_end(unit: Unit, test_layer: Callable[[SourceFile], tuple[SyntaxResult, Sequence[Diagnostic]]] = kite_layer,
              items: ItemCache | None = None) -> tuple[list[Diagnostic], dict[str, SyntaxResult], list[Module] | None]:
    """Kite's layer over every file; the modules, if the C# layer can run on them. `test_layer` reads the test files:
    a caller that meets the same hidden tests with every answer may keep what kite_layer made of them. `items`: the
    program's parses kept between checks of its changing text (kite.syntax.frontend.ItemCache)."""
    found: list[Diagnostic] = []
    syntax: dict[str, SyntaxResult] = {}
    for source in unit.sources:
        result, diagnostics = kite_layer(source, items) if source is unit.program else test_layer(source)
        syntax[source.path] = result
        found.extend(diagnostics)
    modules = [syntax[source.path].module for source in unit.sources]
    for source, module, message in module_mismatches(unit, modules):
        found.append(kt000_syntax.RULE.at(source.path, module.line, module.column, message))
    found.extend(kt015_name_declared_twice.across_files(unit.program.path, modules[0], [(t.path, m) for t, m in zip(unit.tests, modules[1:])]))
    complete = all(result.complete for result in syntax.values()) and not any(d.id in NOT_COMPILED for d in found)
    parsed = [module for module in modules if module is not None]  # all of them, when complete
    return found, syntax, (parsed if complete else None)


def module_mismatches(unit: Unit, modules: list[Module | None]):
    """Test files that declare another module than the program they are meant to test."""
    program = modules[0]
    for source, module in zip(unit.tests, modules[1:]):
        if program is not None and module is not None and module.name != program.name:
            yield source, module, f"this test file is for module '{module.name}', but {unit.program.path} is module '{program.name}'"


@dataclass(frozen=True)
class Analysis:
    result: CheckResult
    modules: tuple[Module | None, ...]  # per file, None where it did not parse
    generated: Generated | None  # the C# the check compiled; None when the C# layers did not run


@dataclass(frozen=True)
class Compiled:
    result: CheckResult  # the check, plus what emitting found
    image: bytes | None  # the assembly; None unless every layer passed
    assembly_name: str | None  # and its name (a built program's file is <assembly_name>.dll)


def has_entry_point(module: Module) -> bool:
    from kite.syntax import nodes as n

    return any(isinstance(item, n.FnDecl) and item.name == "main" and not item.params for item in module.items)
