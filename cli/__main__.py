"""`python -m kite.cli ARGS` is `kite ARGS`."""

from kite.cli.entry import entry

entry()
