"""The defaults that commands' options show: kept apart from the modules that apply them (the test worker, KT010,
concealment) so that `kite --help` and `kite check` import none of those. Those modules take their defaults from here,
so what --help shows is what runs."""

from __future__ import annotations

TEST_TIMEOUT_SECONDS = 5.0  # each test
ANSWER_BUDGET_SECONDS = 60.0  # each answer: all its tests, restarts included
COMPILE_TIMEOUT_SECONDS = 20.0  # each unit's pass through Roslyn (`--compile-timeout`, KT010); docs/cli.md says it
# MB of RAM the compile process may hold while it serves a request (`--compile-memory`; KT010 past it), .NET and
# Roslyn included (about 200 MB at rest): an honest unit needs a few hundred more.
COMPILE_MEMORY_MB = 2048
DEBUG_TTL_SECONDS = 600.0  # `kite dap`, `kite debug --ttl`: a debug session lives at most this long
REVEALS = ("tests", "names", "none")  # everything (the default); which test and why in general terms; not even names
DEBUG_BUILDS_KEPT = 32  # debug builds of unchanged programs kept for the next launch (kite.debug.builds)
