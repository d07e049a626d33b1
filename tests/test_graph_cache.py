"""`kite graph --cache DIR`: each file's index kept as authenticated JSON, the same index a fresh read gives."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import shutil
from pathlib import Path

import pytest

from kite import spawn
from kite.graph import build as graph_build, index
from kite.graph.cache import INDEX_FILES, IndexCache
from kite.graph.index import Workspace
from kite.search.cache import toolchain_fingerprint
from kite.source import SourceFile, read
from tests.conftest import run_kite

ROOT = Path(__file__).resolve().parent.parent
KITE_FILES = sorted(str(p) for folder in ("samples", "tests") for p in (ROOT / folder).rglob("*.kite"))


def without_nodes(file):
    return dataclasses.replace(file, symbols=tuple(s._replace(node=None) for s in file.symbols))


def readable(path: str) -> SourceFile | None:
    try:
        return read(path)
    except Exception:  # a fixture that is not UTF-8 or not text: nothing to index
        return None


def test_a_cached_index_is_the_fresh_one_for_every_kite_file_of_the_repository(tmp_path):
    folder = str(tmp_path / "cache")
    sources = [s for s in map(readable, KITE_FILES) if s is not None]
    assert len(sources) > 50
    cold = graph_build.build([s.path for s in sources])
    filled = graph_build.build([s.path for s in sources], folder)
    warm = graph_build.build([s.path for s in sources], folder)
    cache = IndexCache(folder)
    for source in sources:
        fresh = without_nodes(graph_build.index_source(source))
        assert without_nodes(filled.workspace.files[source.path]) == fresh
        assert cache.lookup(source) == fresh, source.path  # read back: no parse, no index
        assert warm.workspace.references_in(source.path) == cold.workspace.references_in(source.path), source.path
    assert warm.workspace.edges() == cold.workspace.edges() and len(cold.workspace.edges()) > 100


def test_a_cached_files_names_locals_and_references_are_made_when_read_and_are_the_fresh_ones(tmp_path):
    (tmp_path / "a.kite").write_text("module A\n\nfn f(x: int) -> int\n    let y = x + 1\n    return y * g(x)\n\nfn g(x: int) -> int\n    return x\n")
    source = read(str(tmp_path / "a.kite"))
    folder = str(tmp_path / "cache")
    graph_build.build([source.path], folder)
    fresh, cached = graph_build.index_source(source), IndexCache(folder).lookup(source)
    assert cached is not None
    assert cached.locals._made is None and cached.names._made is None  # a graph leaves them as read
    assert len(cached.locals) == len(fresh.locals) == 3
    assert [x.name for x in cached.locals] == ["x", "y", "x"] and cached.locals[1:] == fresh.locals[1:]
    assert tuple(cached.locals) == fresh.locals and cached.locals == fresh.locals and hash(cached.locals) == hash(fresh.locals)
    assert cached.locals[0].uses == fresh.locals[0].uses and len(cached.locals[0].uses) == 2
    assert cached.names == fresh.names and [m.name for m in cached.names if m.role == "call"] == ["g"]
    warm = graph_build.build([source.path], folder).workspace
    kept = warm.references_in(source.path)
    assert kept._made is None and warm.edges() == [("A.f", "A.g", "calls")] and kept._made is None  # edges: no reference made
    assert kept == Workspace([fresh]).references_in(source.path) and kept[-1].target == "A.g"


@pytest.fixture
def counted_resolves(monkeypatch) -> list[str]:
    resolved: list[str] = []
    real = index._resolve_file
    monkeypatch.setattr(index, "_resolve_file", lambda file, table: resolved.append(file.path) or real(file, table))
    return resolved


def test_a_modules_references_are_resolved_again_when_any_of_its_files_changes(tmp_path, counted_resolves):
    program, tests = tmp_path / "shop.kite", tmp_path / "shop.test.kite"
    program.write_text("module Shop\n\nfn total() -> int\n    return 1\n")
    tests.write_text('module Shop\n\ntest "total"\n    expect total() == 1\n')
    (tmp_path / "other.kite").write_text("module Other\n\nfn total() -> int\n    return 2\n")
    cache = str(tmp_path / "cache")
    graph_build.build([str(tmp_path)], cache)
    assert len(counted_resolves) == 3
    warm = graph_build.build([str(tmp_path)], cache).workspace
    assert len(counted_resolves) == 3  # nothing resolved again
    assert ("Shop.test:total", "Shop.total", "tests") in warm.edges()
    # The test file is unchanged, so its index is the cached one; what its call means is not: Shop.total is gone.
    program.write_text("module Shop\n\nfn sum() -> int\n    return 1\n")
    cold = graph_build.build([str(tmp_path)]).workspace
    del counted_resolves[:]
    edited = graph_build.build([str(tmp_path)], cache).workspace
    assert sorted(counted_resolves) == [str(program), str(tests)]  # the other module is kept as it was
    assert edited.edges() == cold.edges() and not any(target == "Shop.total" for _, target, _ in edited.edges())
    assert edited.references_in(str(tests)) == cold.references_in(str(tests))
    # Back as it was (both entries cached), then the test file alone, a module of its own: no Shop.total there.
    program.write_text("module Shop\n\nfn total() -> int\n    return 1\n")
    del counted_resolves[:]
    assert graph_build.build([str(tmp_path)], cache).workspace.edges() == warm.edges()
    assert graph_build.build([str(tests)], cache).workspace.edges() == []
    assert graph_build.build([str(tmp_path)], cache).workspace.edges() == warm.edges()
    assert counted_resolves == [str(program), str(tests), str(tests), str(program), str(tests)]


@pytest.fixture
def counted_indexes(monkeypatch) -> list[str]:
    indexed: list[str] = []
    real = graph_build.index_source
    monkeypatch.setattr(graph_build, "index_source", lambda source: indexed.append(source.path) or real(source))
    return indexed


def test_a_warm_graph_neither_parses_nor_indexes_and_an_edit_is_indexed_again(tmp_path, counted_indexes):
    (tmp_path / "a.kite").write_text("module A\n\nfn f() -> int\n    return g()\n\nfn g() -> int\n    return 1\n")
    (tmp_path / "b.kite").write_text("module B\n\nfn h() -> int\n    return 2\n")
    cache = str(tmp_path / "cache")
    cold = graph_build.build([str(tmp_path)])
    first = graph_build.build([str(tmp_path)], cache)
    warm = graph_build.build([str(tmp_path)], cache)
    assert len(counted_indexes) == 4  # the cold graph's two, the filling graph's two
    assert warm.workspace.edges() == first.workspace.edges() == cold.workspace.edges() == [("A.f", "A.g", "calls")]
    assert [s.to_json() for s in warm.workspace.symbols] == [s.to_json() for s in cold.workspace.symbols]
    (tmp_path / "b.kite").write_text("module B\n\nfn h() -> int\n    return k()\n\nfn k() -> int\n    return 2\n")
    assert ("B.h", "B.k", "calls") in graph_build.build([str(tmp_path)], cache).workspace.edges()
    assert counted_indexes[4:] == [str(tmp_path / "b.kite")]


def test_a_forged_or_stale_entry_is_ignored_and_replaced(tmp_path, counted_indexes):
    file = tmp_path / "a.kite"
    file.write_text("module A\n\nfn f() -> int\n    return 1\n")
    folder = tmp_path / "cache"
    source = read(str(file))
    key = hashlib.sha256(toolchain_fingerprint(INDEX_FILES) + f"{source.path}\0{source.text}".encode()).hexdigest()
    entry = folder / f"{key}.index.json"
    lie = b"\n".join([json.dumps([key, "A", "a\0A", [["A.lie", "lie", "fn", [1, 1, 1, 2], [1, 1, 1, 2], None]], []]).encode(),
                      b"[]", b"[]", b"null", b"null"])
    cache = IndexCache(str(folder))
    other_key = hashlib.sha256(b"another file").hexdigest()
    stale = b"\n".join([json.dumps([other_key, "A", "a\0A", [], []]).encode(), b"[]", b"[]", b"null", b"null"])
    planted = [lie, hmac.digest(b"k" * 32, lie, "sha256") + lie,  # no MAC; a MAC under another key
               hmac.digest(cache.key, stale, "sha256") + stale,  # this user's, but another file's entry copied here
               hmac.digest(cache.key, b"[1]", "sha256") + b"[1]"]  # this user's, of another shape
    for forged in planted:
        entry.write_bytes(forged)
        graph = graph_build.build([str(file)], str(folder))
        assert [s.id for s in graph.workspace.symbols] == ["A.f"]
    assert len(counted_indexes) == len(planted)
    assert [s.id for s in graph_build.build([str(file)], str(folder)).workspace.symbols] == ["A.f"]
    assert len(counted_indexes) == len(planted)  # the last one replaced the planted entry with the file's own


@pytest.mark.parametrize("args", [["graph", "--jobs", "1"], ["graph", "--format", "json", "--impact", "Countdown.countdown", "--jobs", "1"],
                                  ["find", "len($X)", "--jobs", "1"], ["fmt", "--check"]])
def test_a_batch_command_turns_the_collector_off_and_leaves_no_cyclic_garbage(tmp_path, monkeypatch, args):
    """never_collect is safe only while a batch makes no cycles: what the collector finds after the command over the
    samples once and over them three times is about the same few objects (click's, the runner's), not some a file."""
    import gc

    from kite.cli import common

    off = []
    real = common.never_collect
    monkeypatch.setattr(common, "never_collect", lambda: real() or off.append(not gc.isenabled()))
    for module in ("kite.cli.main", "kite.cli.fmt"):
        monkeypatch.setattr(f"{module}.never_collect", common.never_collect)
    found = []
    for copies in ("a", "b", "c"):
        shutil.copytree(ROOT / "samples", tmp_path / copies)
        if copies != "b":  # over one copy, then over three
            gc.collect()
            assert run_kite([*args, "."], cwd=tmp_path).exit_code in (0, 1)
            found.append(gc.collect())
    files = len(list((ROOT / "samples").rglob("*.kite")))
    assert off == [True, True] and found[0] < 200 and abs(found[1] - found[0]) < files  # twice as many files added


@pytest.mark.parametrize("query", [[], ["--format", "json"], ["--callers", "Cart.total"], ["--callees", "label"], ["--impact", "Cart.Item"]])
def test_a_warm_graph_and_its_queries_print_what_a_cold_one_does(tmp_path, query):
    project = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "project", project)
    cold = run_kite(["graph", *query, "."], cwd=project)
    for _run in range(2):  # filling, then warm: no parse, no index, no module resolved
        cached = run_kite(["graph", *query, "--cache", str(tmp_path / "cache"), "."], cwd=project)
        assert (cached.exit_code, cached.stdout, cached.stderr) == (cold.exit_code, cold.stdout, cold.stderr)
    assert cold.stdout.strip()


def test_a_graph_indexed_by_worker_processes_is_the_graph_indexed_in_process(tmp_path):
    sources = [s for s in map(readable, KITE_FILES) if s is not None]
    paths = [s.path for s in sources]
    assert len(paths) > 2 * spawn.ITEMS_PER_REQUEST  # enough files for the workers to take them
    alone, shared = graph_build.build(paths), graph_build.build(paths, jobs=2)
    assert all(s.node is None for s in shared.workspace.symbols)  # indexed by the workers: no AST node came back
    assert [s.to_json() for s in shared.workspace.symbols] == [s.to_json() for s in alone.workspace.symbols]
    assert shared.workspace.edges() == alone.workspace.edges() and (shared.problems, shared.skipped) == (alone.problems, alone.skipped)
    cache = str(tmp_path / "cache")
    filled = graph_build.build(paths, cache, jobs=2)  # the workers' indexes kept as the process's are
    assert filled.workspace.edges() == graph_build.build(paths, cache).workspace.edges() == alone.workspace.edges()
