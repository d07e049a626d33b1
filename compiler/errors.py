"""The two ways the toolchain refuses to work; the CLI prints either as one line and exits 2."""


class UnusableInput(Exception):
    """Input the toolchain cannot work on at all: missing, empty, binary, not UTF-8."""


class ToolchainError(Exception):
    """The toolchain itself cannot run: no dotnet, a failed restore, a missing runtime."""


class NoTests(UnusableInput):
    """`kite test` on a program with no tests to run."""
