"""KT007: graded code that binds to anything outside Kite's own code, the standard library and the .NET allowlist.

Implemented as a Roslyn analyzer (compiler/dotnet/KiteSandbox.cs) because it needs the compiler's symbols, fed
the allowlist (compiler/dotnet/allowlist.toml); this file is its id, severity and documentation.
"""

from kite.diagnostics import Rule, Severity, Stage
from kite.rules.applicability import nodes_of
from kite.syntax import nodes as n

RULE = Rule(
    id="KT007",
    severity=Severity.ERROR,
    summary="a .NET type or member outside the allowlist: Kite code binds only to its own code, the stdlib and the allowed .NET",
    rationale=(
        "Answers are written by a model and graded on a shared machine, so every answer is hostile. A denylist loses: "
        "dynamic, reflection through GetType(), XML readers given a path and timer events all slipped past one. So KT007 "
        "is an allowlist (compiler/dotnet/allowlist.toml, a reason per entry): strings, chars, numbers, the collections, "
        "LINQ, Math, StringBuilder and a few more. Every type, method, property, field, constructor, operator, "
        "conversion and event a line binds to is checked before any code runs; dynamic is refused and cannot compile, "
        "and use accepts only namespaces with something allowed in them."
    ),
    example='let reader = System.Xml.XmlReader.Create("/etc/passwd")',
    fix="Compute the result from the function's inputs with Kite, the stdlib and the allowed .NET and return it; print() for output.",
    reported_by=frozenset({Stage.ANALYZER}),
)

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = True


def applies(module):
    """Code that names .NET: a use line, or a member of something PascalCase (Console.WriteLine, File.ReadAllText)."""
    return any(
        isinstance(node, n.Use) or (isinstance(node, n.Member) and isinstance(node.target, n.Name) and node.target.name[:1].isupper())
        for node in nodes_of(module)
    )
