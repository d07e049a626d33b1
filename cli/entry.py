"""The `kite` executable. A command the warm server runs is sent there before the whole CLI (click, the session,
every command's modules: about 0.3 s of imports) is loaded; everything else goes to `kite.cli.main`."""

from __future__ import annotations

import sys


def entry() -> None:
    from kite.cli.warm_server import run_through_server, wanted

    if wanted(sys.argv[1:]):
        try:
            code = run_through_server(sys.argv[1:])
        except KeyboardInterrupt:
            print("kite: interrupted", file=sys.stderr)
            sys.exit(130)
        if code is not None:
            sys.exit(code)
    from kite.cli.main import main

    main(prog_name="kite")
