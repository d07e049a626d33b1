"""KT007: graded code that reaches outside its own computation (processes, files, network, exit, reflection).

Implemented as a Roslyn analyzer (compiler/dotnet/KiteSandbox.cs) because it needs the compiler's symbols;
this file is its id, severity and documentation.
"""

from kite.diagnostics import Severity
from kite.rules.applicability import nodes_of
from kite.rules.base import Rule
from kite.syntax import nodes as n

RULE = Rule(
    id="KT007",
    severity=Severity.ERROR,
    summary="a .NET API that reaches outside the program: processes, files, network, environment, exit, reflection, threads",
    rationale=(
        "Answers are written by a model and graded on a shared machine. Refusing these APIs before any code runs makes "
        "the grader deterministic and keeps an answer from exiting the test host, starting processes or touching files."
    ),
    example='System.Diagnostics.Process.Start("rm", "-rf /")',
    fix="Compute the result from the function's inputs and return it; print() for output.",
)

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = True


def applies(module):
    """Code that names .NET: a use line, or a member of something PascalCase (Console.WriteLine, File.ReadAllText)."""
    return any(
        isinstance(node, n.Use) or (isinstance(node, n.Member) and isinstance(node.target, n.Name) and node.target.name[:1].isupper())
        for node in nodes_of(module)
    )
