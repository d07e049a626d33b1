"""The optional C loop of the LALR driver (compiler/syntax/_lalr.c); everything else is in pyproject.toml. Without a
C compiler or Python's headers the build skips it and kite.syntax.lalr runs its Python loop."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("kite.syntax._lalr", ["compiler/syntax/_lalr.c"], optional=True)])
