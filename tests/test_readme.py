"""README's two commands are the ones CI runs, so they cannot drift apart."""

import re

from conftest import REPO


def test_ci_runs_the_readme_commands_verbatim():
    readme = (REPO / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```\n(.+?)\n```", quick_start)
    assert len(commands) == 2, "the quick start has exactly two commands: install-and-run, and test"
    ci_lines = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()]
    assert ci_lines[-2:] == commands, "the last two lines of .ci/run must be README's two commands"
