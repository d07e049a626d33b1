"""Kite: a small indentation-based language that compiles to C#, and the grader that checks it."""

__version__ = "0.1.0"
