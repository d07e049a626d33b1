"""Kite's own rules, one module each (`ktNNN_name.py`), found by file name: adding a file adds the rule."""

import importlib
import pkgutil

ALL_RULES = tuple(
    importlib.import_module(f"{__name__}.{module.name}")
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda module: module.name)
    if module.name.startswith("kt")
)
# The rules that read the AST; KT004 and most of KT000 come from the syntax stage, KT007 from an analyzer.
AST_RULES = tuple(rule for rule in ALL_RULES if hasattr(rule, "check"))
