"""Real editors: headless Neovim (Debian's 0.7, as .ci/run installs it) reads `kite lsp`'s diagnostics."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ARTICLE, REPO


@pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is not installed (.ci/run installs it)")
def test_headless_neovim_shows_kite_diagnostics(tmp_path):
    shutil.copy(ARTICLE / "mistakes.kite", tmp_path / "mistakes.kite")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",  # this venv's kite
        "KITE_NVIM_CONFIG": str(REPO / "editors" / "neovim" / "kite.lua"),
        "KITE_NVIM_FILE": str(tmp_path / "mistakes.kite"),
        "KITE_NVIM_OUT": str(tmp_path / "out.json"),
    }
    done = subprocess.run(["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {REPO / 'tests' / 'editors_neovim_check.lua'}"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    result = json.loads((tmp_path / "out.json").read_text())
    assert result["waited"], done.stderr
    kite = {(d["code"], d["lnum"], d["col"], d["source"]) for d in result["diagnostics"]}
    assert ("KT001", 4, 4, "kite") in kite and ("KT002", 5, 12, "kite") in kite


VSCODE = REPO / "editors" / "vscode"
GRAMMAR = VSCODE / "syntaxes" / "kite.tmLanguage.json"


def grammar_keywords() -> set[str]:
    """The words of the TextMate grammar's keyword rules (`\\b(if|elif|...)\\b`)."""
    import re

    rules = json.loads(GRAMMAR.read_text())["repository"]["keyword"]["patterns"]
    return {word for rule in rules for word in re.fullmatch(r"\\b\((.*)\)\\b", rule["match"]).group(1).split("|")}


def test_the_textmate_grammar_knows_exactly_kites_keywords():
    from kite.syntax.parser import kite_keywords

    assert grammar_keywords() == set(kite_keywords())


@pytest.mark.skipif(not (VSCODE / "node_modules").is_dir() or shutil.which("node") is None,
                    reason="editors/vscode/node_modules missing (.ci/run runs npm ci there)")
def test_textmate_grammar_scopes_every_keyword_of_every_sample():
    from kite.syntax.parser import kite_keywords

    samples = sorted(str(path) for path in (REPO / "samples").rglob("*.kite"))
    done = subprocess.run(["node", str(VSCODE / "test" / "tokenize.js"), json.dumps(sorted(kite_keywords())), *samples],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["keywords_seen"] > 100 and result["unscoped"] == []
