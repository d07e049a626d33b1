"""The optional C parts of the front end: the LALR driver's loop (compiler/syntax/_lalr.c) and the AST nodes' __init__
(compiler/syntax/_nodes.c); everything else is in pyproject.toml. Without a C compiler or Python's headers the build
skips them: kite.syntax.lalr runs its Python loop and the nodes keep their dataclasses' __init__."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("kite.syntax._lalr", ["compiler/syntax/_lalr.c"], optional=True),
                   Extension("kite.syntax._nodes", ["compiler/syntax/_nodes.c"], optional=True)])
