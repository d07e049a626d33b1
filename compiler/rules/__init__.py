"""Kite's own rules, one module each. The order here is the order of the docs."""

from kite.rules import (
    kt000_syntax,
    kt001_let_changed,
    kt002_mut_never_changed,
    kt003_naming,
    kt004_csharp_leak,
    kt005_test_without_expect,
    kt006_result_unused,
    kt007_sandbox,
)

ALL_RULES = (
    kt000_syntax,
    kt001_let_changed,
    kt002_mut_never_changed,
    kt003_naming,
    kt004_csharp_leak,
    kt005_test_without_expect,
    kt006_result_unused,
    kt007_sandbox,
)
# The rules that read the AST; KT004 and most of KT000 come from the syntax stage.
AST_RULES = tuple(rule for rule in ALL_RULES if hasattr(rule, "check"))
