"""KT000: the text is not Kite: bad indentation, a statement Kite doesn't have, anything that does not parse.

Declared with the syntax stage (kite.syntax.rules), which reports most of it; here is what only the analyzer sees."""

from kite.codegen.types import constant_types
from kite.constants import order_constants
from kite.syntax import nodes as n
from kite.syntax.rules import SYNTAX as RULE

# Whether code read as a fragment (items, or a function body) is judged; a whole module always is.
judges_fragments = True


def check(module, facts, file):
    """What only the analyzer sees: a parameter without a type, expect outside a test, a constant of unknown type."""
    for where, message in facts.misplaced:
        yield RULE.on(file, where, message)
    constants = [item for item in module.items if isinstance(item, n.Let)]
    ordering = order_constants(constants, facts.functions)
    enums = {d.name for d in facts.declarations if d.kind == "enum"}
    spelled = constant_types(ordering.ordered, facts.functions, facts.records, enums)
    # A constant of a cycle is KT009's: a type written on it cannot fix a cycle (one mistake, one diagnostic).
    in_cycle = {step for cycle in ordering.cycles for step in cycle}
    for item in constants:
        if spelled[item.name] is None and item.name not in in_cycle:
            yield RULE.on(file, n.Span.of_name(item.line, item.column, item.name), f"cannot tell the type of '{item.name}': write let {item.name}: T = ...")


def applies(module):
    return True  # any code at all can fail to be Kite
