"""load_index's start-up shortcuts keep the index it gives: the cache written with the tables'
equal strings shared loads as the index built from the tables, the garbage collector is left
as it was, and the cache's name changes with porter's version (porter/mappings/index.py)."""

from __future__ import annotations

import gc
from dataclasses import fields
from pathlib import Path

import pytest

from porter.mappings import index as I


def _fresh(monkeypatch, cache_home: Path) -> I.MappingIndex:
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    monkeypatch.setattr(I, "_LOADED", {})
    return I.load_index()


def test_the_cached_index_is_the_index_built_from_the_tables(tmp_path, monkeypatch):
    written = _fresh(monkeypatch, tmp_path)  # no cache yet: built from the CSV files, written
    assert list((tmp_path / "porter").glob("index-*.pickle"))
    loaded = _fresh(monkeypatch, tmp_path)  # from the cache
    assert loaded is not written
    plain = I.MappingIndex.build(
        {f.stem: I.read_table(f) for f in sorted(I.tables_dir().glob("*.csv"))}
    )
    for idx in (written, loaded):
        for f in fields(I.MappingIndex):
            assert getattr(idx, f.name) == getattr(plain, f.name), f.name
    # the strings shared: one object for a value (the pickle refers to it after its first use)
    kinds = {id(r.kind) for rows in loaded.areas.values() for r in rows}
    assert len(kinds) == len({r.kind for rows in loaded.areas.values() for r in rows})


@pytest.mark.parametrize("enabled", [True, False])
def test_loading_leaves_the_garbage_collector_as_it_was(enabled, tmp_path, monkeypatch):
    _fresh(monkeypatch, tmp_path)
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        idx = _fresh(monkeypatch, tmp_path)
        assert gc.isenabled() is enabled
        assert idx.lookup("cudaMalloc").hip == "hipMalloc"
    finally:
        (gc.enable if was else gc.disable)()


def test_the_cache_name_depends_on_porters_version(monkeypatch):
    key, _ = I._fingerprint(I.tables_dir())
    monkeypatch.setattr(I, "__version__", "0.0.0-other")
    assert I._fingerprint(I.tables_dir())[0] != key
