"""The `kite` command: argument parsing, output formats and exit codes; the work is in the compiler core."""
