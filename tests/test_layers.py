"""Layers only point down: every import in compiler/ and cli/ is one docs/architecture.md's table allows.

The imports are read with `ast` (nothing is imported), at any depth: a function's lazy import is as much an edge as
a module's. The table is parsed from the document, so the map and the check cannot disagree."""

from __future__ import annotations

import ast
import re
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from conftest import REPO

ARCHITECTURE = REPO / "docs" / "architecture.md"
ANY = "any unit"
BASE = "base"
PACKAGE_DIRS = {"kite": REPO / "compiler", "kite.cli": REPO / "cli"}


def import_table(text: str) -> tuple[dict[str, set[str] | None], set[str]]:
    """(unit -> the units it may import, None for any), and the modules that make up base."""
    start, end = text.index("<!-- import table"), text.index("<!-- end of import table -->")
    allowed: dict[str, set[str] | None] = {}
    base: set[str] = set()
    for row in text[start:end].splitlines():
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("package", "---"):
            continue
        unit = cells[0].strip("`")
        if unit == BASE:
            base = set(re.findall(r"`([\w.]+)`", cells[1]))
            continue
        allowed[unit] = None if cells[2] == ANY else set(re.findall(r"`([\w.]+)`", cells[2]))
    return allowed, base


def module_files() -> dict[str, Path]:
    """Every kite module by its import name."""
    found = {}
    for package, root in PACKAGE_DIRS.items():
        for path in root.rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


def imports_in(source: str, package: str) -> set[str]:
    """The kite names a module of `package` imports, anywhere in it; relative imports resolved."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found |= {f"{base}.{alias.name}" for alias in node.names} | {base}
    return {name for name in found if name == "kite" or name.startswith("kite.")}


def unit_of(module: str, base: set[str]) -> str:
    """kite.cli.* is cli, kite.X.* is X, and the modules the base row names are base."""
    parts = module.split(".")
    name = "kite" if len(parts) == 1 else "cli" if parts[1] == "cli" else parts[1]
    return BASE if name in base else name


def unit_edges(base: set[str]) -> dict[tuple[str, str], list[str]]:
    """(importing unit, imported unit) -> where: every import between two units, with the modules that make it."""
    files = module_files()
    edges: dict[tuple[str, str], list[str]] = {}
    for module, path in sorted(files.items()):
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for imported in sorted(imports_in(path.read_text(), package)):
            while imported not in files and "." in imported:  # `from kite.x import name`: name is no module
                imported = imported.rpartition(".")[0]
            edge = (unit_of(module, base), unit_of(imported, base))
            if edge[0] != edge[1]:
                edges.setdefault(edge, []).append(f"{module} -> {imported}")
    return edges


def violations(edges, allowed: dict[str, set[str] | None]) -> list[str]:
    found = []
    for (importer, imported), where in sorted(edges.items()):
        if importer not in allowed and importer != BASE:
            found.append(f"{importer} is not in docs/architecture.md's import table ({where[0]})")
        elif importer == BASE:
            found.append(f"base imports {imported}, above it: {', '.join(where)}")
        elif allowed[importer] is not None and imported != BASE and imported not in allowed[importer]:
            found.append(f"{importer} may not import {imported}: {', '.join(where)}")
    return found


TABLE, BASE_MODULES = import_table(ARCHITECTURE.read_text())


def test_every_import_is_one_the_architecture_allows():
    assert violations(unit_edges(BASE_MODULES), TABLE) == []


def test_the_table_places_every_package_and_names_nothing_that_is_gone():
    units = {unit_of(module, BASE_MODULES) for module in module_files()}
    assert units == set(TABLE) | {BASE}
    for unit, may in TABLE.items():
        assert may is None or may <= set(TABLE), f"{unit}'s row names what is not a row: {may - set(TABLE)}"


def test_the_table_points_only_down():
    graph = {unit: may for unit, may in TABLE.items() if may is not None}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as cycle:
        pytest.fail(f"the import table has a cycle: {cycle.args[1]}")
    top = {unit for unit, may in TABLE.items() if may is None}
    assert not any(top & may for may in graph.values()), "a unit that may import any unit is imported itself"
    assert set(order) >= set(graph)


def test_an_edge_the_table_does_not_allow_is_named_with_its_modules():
    """The check itself: a syntax module that imports a rule, as frontend.py once did, is caught."""
    edges = {("syntax", "rules"): ["kite.syntax.frontend -> kite.rules.kt000_syntax"], ("rules", "syntax"): ["kite.rules.x -> kite.syntax.nodes"],
             ("debugger", "session"): ["kite.debugger.run -> kite.session"], (BASE, "syntax"): ["kite.diagnostics -> kite.syntax.nodes"]}
    assert violations(edges, TABLE) == [
        "base imports syntax, above it: kite.diagnostics -> kite.syntax.nodes",
        "debugger is not in docs/architecture.md's import table (kite.debugger.run -> kite.session)",
        "syntax may not import rules: kite.syntax.frontend -> kite.rules.kt000_syntax",
    ]
    lazy = "import json\n\ndef f():\n    from kite.session import Session\n    import kite.cli.main\n    from . import nodes\n"
    assert imports_in(lazy, "kite.syntax") == {"kite.session", "kite.session.Session", "kite.cli.main", "kite.syntax", "kite.syntax.nodes"}


def test_reading_syntax_loads_nothing_above_it():
    """What the import table says, as the interpreter does it: kite.syntax.frontend once loaded every rule and codegen."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import sys, kite.syntax.frontend; print(*sorted(sys.modules))"],
                          capture_output=True, text=True, check=True)
    loaded = {unit_of(name, BASE_MODULES) for name in done.stdout.split() if name == "kite" or name.startswith("kite.")}
    assert loaded == {"syntax", BASE}
