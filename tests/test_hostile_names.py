"""Property over a list of hostile names (tests/hostile/names.txt): whatever a program calls its module and its types,
among the namespaces and types the generated C# and the test host name, the framework's assemblies, C# keywords and
the standard library's names, check, test and build never give KT900 or crash, and where Kite accepts the names, the
tests pass and the built program prints what they expect."""

from __future__ import annotations

import subprocess

import pytest

from conftest import REPO
from kite.diagnostics import Severity
from kite.session import Session
from kite.source import SourceFile
from kite.units import Unit

# .NET types the program below calls itself: a type of the program with one of these names is what its own call
# constructs (the program's choice, LANGUAGE.md section 3), so they take only the module's role.
USED_BY_THE_PROGRAM = {"StringBuilder"}
NAMES = [line for line in (REPO / "tests" / "hostile" / "names.txt").read_text().splitlines() if line and not line.startswith("#")]


def program(module: str, record: str) -> str:
    return f"""module {module}

use System.Text

type {record}
    name: str
    price: dec

fn total(items: list<{record}>) -> dec
    let mut sum_so_far = 0.0
    for item in items
        sum_so_far += item.price
    return sum_so_far

fn shout(words: list<str>) -> str
    let seen = set<str>()
    let counts = map<str, int>()
    let text = StringBuilder()
    for word in words.Where(fn(w) => len(w) > 0)
        seen.Add(word)
        counts[word] = len(word)
        text.Append(word.ToUpper())
    return f"{{text}} {{len(seen)}} {{len(counts)}}"

fn main()
    print(total([{record}("pen", 1.5), {record}("ink", 0.25)]))
    print(shout(["a", "", "bc"]))

test "the names are the program's"
    expect total([{record}("pen", 1.5), {record}("ink", 0.25)]) == 1.75
    expect shout(["a", "", "bc"]) == "ABC 2 2"
"""


@pytest.fixture(scope="module")
def session():
    with Session() as shared:
        yield shared


@pytest.mark.parametrize("position", range(len(NAMES)), ids=lambda position: NAMES[position])
def test_a_hostile_name_as_the_module_and_as_a_type(session, tmp_path, position):
    module, record = NAMES[position], next(name for name in NAMES[position + 1:] + NAMES if name not in USED_BY_THE_PROGRAM)
    unit = Unit(SourceFile(f"{module}.kite", program(module, record)))
    diagnostics = session.check(unit).diagnostics
    assert [d.render() for d in diagnostics if d.id == "KT900"] == []
    if any(d.severity is Severity.ERROR and d.id.startswith("KT") for d in diagnostics):
        return  # Kite refused a name (a keyword, a standard-library name): an honest answer, checked by its rule
    assert [d.render() for d in diagnostics if d.severity is Severity.ERROR] == []
    report = session.test(unit)
    assert [(o.status, o.message) for o in report.outcomes] == [("pass", "")]
    built = session.build(unit, tmp_path / "out")
    assert built.assembly is not None
    ran = subprocess.run(["dotnet", str(built.assembly)], check=False, capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "1.75\nABC 2 2\n", "")
