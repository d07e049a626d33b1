"""KT007 is an allowlist: whatever in the reference pack is not on it is refused, and honest code never is."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from conftest import ARTICLE, FIXTURES, REPO
from kite.dotnet.roslyn import WITHOUT_REFERENCES, Allowlist
from kite.session import Session
from kite.source import SourceFile
from kite.units import Unit, find_units

CORPUS_SEED = 20261130
CORPUS_MEMBERS = 300
CORPUS_TYPES = 100
LINES_PER_PROGRAM = 100
KITE_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*\Z")
# Overridden on most types; on a static class the name binds object's own (allowed) member instead.
OBJECT_MEMBERS = {"Equals", "GetHashCode", "ToString", "ReferenceEquals"}


@pytest.fixture(scope="module")
def checker():
    with Session() as session:
        yield session


@pytest.fixture(scope="module")
def allowlist():
    return Allowlist.load()


@pytest.fixture(scope="module")
def reference_pack(checker):
    """The reference assemblies Kite programs compile against, as one Roslyn compilation to look types up in."""
    packages = checker.roslyn.runtime.packages  # boots .NET before the imports below
    from Microsoft.CodeAnalysis import MetadataReference, SyntaxTree
    from Microsoft.CodeAnalysis.CSharp import CSharpCompilation
    from System.Collections.Generic import List

    references = List[MetadataReference]()
    for path in packages.reference_dlls:
        if Path(path).name not in WITHOUT_REFERENCES:
            references.Add(MetadataReference.CreateFromFile(path))
    return CSharpCompilation.Create("ReferencePack", List[SyntaxTree](), references, None)


def kt007_by_line(checker, name: str, text: str) -> dict[int, list[str]]:
    result = checker.check(Unit(SourceFile(f"{name}.kite", text)))
    found: dict[int, list[str]] = {}
    for d in result.diagnostics:
        if d.id == "KT007":
            found.setdefault(d.line, []).append(d.message)
    return found


def public_types(namespace):
    from Microsoft.CodeAnalysis import Accessibility

    for type_ in namespace.GetTypeMembers():
        if type_.DeclaredAccessibility == Accessibility.Public:
            yield type_
    for inner in namespace.GetNamespaceMembers():
        yield from public_types(inner)


def full_name(type_) -> str:
    return f"{type_.ContainingNamespace.ToDisplayString()}.{type_.MetadataName}"


def members_to_touch(type_) -> list[str]:
    """Public methods, properties, fields and events a Kite line can name after its type."""
    from Microsoft.CodeAnalysis import Accessibility, IMethodSymbol, IPropertySymbol, MethodKind, SymbolKind

    names = []
    for member in type_.GetMembers():
        if member.DeclaredAccessibility != Accessibility.Public or not KITE_NAME.match(member.Name) or member.Name in OBJECT_MEMBERS:
            continue
        if member.Kind == SymbolKind.Method and IMethodSymbol(member).MethodKind != MethodKind.Ordinary:
            continue
        if member.Kind == SymbolKind.Property and IPropertySymbol(member).IsIndexer:
            continue
        if member.Kind in (SymbolKind.Method, SymbolKind.Property, SymbolKind.Field, SymbolKind.Event):
            names.append(member.Name)
    return sorted(set(names))


def outside_the_allowlist(reference_pack, allowlist) -> list[tuple[str, str]]:
    """(Kite expression or type, the name KT007 must report): sampled from the reference pack, deterministically."""
    listed_types = set(allowlist.types) | {member.rsplit(".", 1)[0] for member in allowlist.members}
    types = []
    for type_ in public_types(reference_pack.GlobalNamespace):
        name = full_name(type_)
        if (
            type_.Arity == 0
            and name not in listed_types
            and reference_pack.GetTypeByMetadataName(name) is not None  # one definition: no ambiguity to bind through
            and all(KITE_NAME.match(part) for part in name.split("."))
        ):
            types.append(type_)
    types.sort(key=full_name)
    chosen = random.Random(CORPUS_SEED)
    touched = []
    for type_ in chosen.sample(types, CORPUS_MEMBERS):
        members = members_to_touch(type_)
        if members:
            member = chosen.choice(members)
            touched.append((f"{full_name(type_)}.{member}", f"{full_name(type_)}.{member}"))
    for type_ in chosen.sample(types, CORPUS_TYPES):
        touched.append((f"type {full_name(type_)}", full_name(type_)))
    # Allowed types, refused members: GetType on everything, and the [refused] table.
    touched.append(("System.String.GetType", "System.Object.GetType"))
    touched.extend((member, member) for member in allowlist.refused)
    return touched


def corpus_programs(touched):
    for start in range(0, len(touched), LINES_PER_PROGRAM):
        batch = touched[start:start + LINES_PER_PROGRAM]
        lines = ["module Corpus", "", "fn touch()"]
        expected = {}
        for number, (spelled, reported) in enumerate(batch, start=1):
            if spelled.startswith("type "):
                lines.append(f"    let value_{number}: {spelled.removeprefix('type ')}? = none")
            else:
                lines.append(f"    let value_{number} = {spelled}")
            expected[len(lines)] = reported
        yield start // LINES_PER_PROGRAM, "\n".join(lines) + "\n", expected


def test_a_corpus_of_members_outside_the_allowlist_each_get_kt007_naming_them(checker, reference_pack, allowlist):
    touched = outside_the_allowlist(reference_pack, allowlist)
    assert len(touched) >= CORPUS_MEMBERS
    missed = []
    for index, text, expected in corpus_programs(touched):
        found = kt007_by_line(checker, f"corpus_{index}", text)
        for line, name in expected.items():
            if not any(message.startswith(f"'{name}' is not allowed") for message in found.get(line, [])):
                missed.append(f"{name} (line {line}: {found.get(line)})")
    assert missed == []


def honest_units():
    units = find_units([str(REPO / "samples"), str(ARTICLE), str(REPO / "tests" / "golden")])
    fixtures = [path for path in FIXTURES.glob("KT*/*.kite") if path.parent.name != "KT007" or path.name.startswith("ok_")]
    return units + find_units([str(path) for path in sorted(fixtures)])


@pytest.mark.parametrize("unit", honest_units(), ids=lambda unit: unit.program.removeprefix(str(REPO) + "/"))
def test_every_sample_and_fixture_binds_only_to_allowed_code(checker, unit):
    assert [d.render() for d in checker.check(unit.read()).diagnostics if d.id == "KT007"] == []


def test_every_allowlist_entry_names_something_in_the_reference_pack_and_says_why(reference_pack, allowlist):
    for table in (allowlist.types, allowlist.members, allowlist.refused, allowlist.never):
        assert all(reason.strip() for reason in table.values())
    missing_types = [name for name in allowlist.types if reference_pack.GetTypeByMetadataName(name) is None]
    missing_members = []
    for member in [*allowlist.members, *allowlist.refused]:
        owner, name = member.rsplit(".", 1)
        type_ = reference_pack.GetTypeByMetadataName(owner)
        if type_ is None or type_.GetMembers(name).Length == 0:
            missing_members.append(member)
    assert (missing_types, missing_members) == ([], [])


def test_dynamic_cannot_compile_even_where_kt007_does_not_look(checker):
    """No reference binds `dynamic`: C# that uses it fails to emit, analyzers or not."""
    code = "public static class Raw\n{\n    public static object Length(dynamic value) => value.Length;\n}\n"
    emitted = checker.roslyn.emit("Raw", [("raw.cs", code)])
    assert emitted.image is None
    assert "CS0656" in {d.id for d in emitted.diagnostics}
