"""kite.debug.builds, without .NET: a kept debug build is found whole or not at all, its key changes with every input,
and only the newest DEBUG_BUILDS_KEPT are kept."""

from __future__ import annotations

import os
from pathlib import Path

from kite.debug import builds
from kite.defaults import DEBUG_BUILDS_KEPT


def made(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(exist_ok=True)
    (folder / "Orders.dll").write_bytes(b"dll")
    (folder / "Orders.pdb").write_bytes(b"pdb")
    return folder / "Orders.dll", folder / "Orders.pdb"


def test_a_kept_build_is_found_whole_with_its_symbols(tmp_path):
    cache = tmp_path / "cache"
    assert builds.kept(cache, "k", "Orders") is None
    builds.keep(cache, "k", *made(tmp_path / "build"), {"methods": []})
    found = builds.kept(cache, "k", "Orders")
    assert found is not None and found.assembly.read_bytes() == b"dll" and found.symbols() == {"methods": []}
    found.pdb.unlink()
    assert builds.kept(cache, "k", "Orders") is None  # half a build is none
    assert [p.name for p in cache.iterdir()] == ["k"]  # no staging folder left behind


def test_the_key_changes_with_a_files_text_its_path_and_the_standard_library():
    key = builds.build_key([("/w/Orders.cs", "class A {}")], b"std")
    assert key == builds.build_key([("/w/Orders.cs", "class A {}")], b"std")
    assert len({key, builds.build_key([("/w/Orders.cs", "class B {}")], b"std"),
                builds.build_key([("/v/Orders.cs", "class A {}")], b"std"),
                builds.build_key([("/w/Orders.cs", "class A {}")], b"std2")}) == 4


def test_only_the_newest_builds_are_kept(tmp_path):
    cache = tmp_path / "cache"
    dll, pdb = made(tmp_path / "build")
    for number in range(DEBUG_BUILDS_KEPT + 2):
        builds.keep(cache, f"k{number}", dll, pdb, {})
        os.utime(cache / f"k{number}", ns=(number * 10**9, number * 10**9))  # in the order kept, whatever the clock says
    builds.keep(cache, "last", dll, pdb, {})
    kept = {p.name for p in cache.iterdir()}
    assert len(kept) == DEBUG_BUILDS_KEPT and "last" in kept and "k0" not in kept and "k1" not in kept
