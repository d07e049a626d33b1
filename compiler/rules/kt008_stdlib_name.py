"""KT008: a function or type that takes a standard-library name."""

from kite import standard_library
from kite.diagnostics import Rule, Severity, Stage
from kite.rules.applicability import has
from kite.syntax import nodes as n

RULE = Rule(
    id="KT008",
    severity=Severity.ERROR,
    summary="a function or type that takes the name of a standard-library function",
    rationale=(
        "Tests call len, sorted, contains ... and mean the standard library. An answer's own len() returning a constant "
        "would make every test that calls it agree with the answer; the name stays the standard library's."
    ),
    example="fn len(text: str) -> int\n    return 3",
    fix="fn word_length(text: str) -> int\n    return len(text)",
    # The compiler's word for a type whose name is a local (lower-case) name; Kite's line says why.
    reported_by=frozenset({Stage.AST}),
    same_as=frozenset({"CS8981"}),
)

KINDS = ((n.FnDecl, "function"), (n.TypeDecl, "type"), (n.EnumDecl, "enum"))


def check(module, facts, file):
    for item in module.items:
        for node_type, kind in KINDS:
            if isinstance(item, node_type) and item.name in standard_library.FUNCTIONS:
                yield RULE.on(
                    file, n.Span.of_name(item.line, item.column, item.name),
                    f"{kind} '{item.name}' takes the name of the standard library's {item.name}(): choose another name",
                )


judges_fragments = True


def applies(module):
    """Code that declares a function, a type or an enum: only a declaration can take a standard-library name."""
    return has(module, n.FnDecl) or has(module, n.TypeDecl) or has(module, n.EnumDecl)
