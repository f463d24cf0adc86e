"""The mapping tables' pickle cache: a stale, corrupt or foreign cache file is rebuilt, never a
crash (porter/mappings/index.py: load_index)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from porter.mappings import index as I
from porter.mappings.model import Row


class _CallsRowWrongly:
    """Unpickles as Row('cudaMalloc'): a Row of an older shape (TypeError)."""

    def __reduce__(self):
        return (Row, ("cudaMalloc",))


def _stale_index() -> bytes:
    idx = I.MappingIndex()
    del idx.relevant  # an index written by a porter without this field
    return pickle.dumps(idx)


def _short_rows() -> bytes:
    idx = I.MappingIndex(by_name={"cudaMalloc": [("cudaMalloc", "hipMalloc")]})  # type: ignore
    return pickle.dumps(idx)


CORRUPT = {
    "garbage": b"\x80\x05garbage",
    "empty": b"",
    "truncated": pickle.dumps(I.MappingIndex(by_name={"a": []}))[:-7],
    "unknown-protocol": b"\x80\x7f",
    "missing-class": b"cporter.mappings.index\nNoSuchClass\n(tR.",
    "missing-module": b"cporter.no_such_module\nThing\n(tR.",
    "row-of-another-shape": pickle.dumps(_CallsRowWrongly()),
    "not-an-index": pickle.dumps({"by_name": {}}),
    "index-missing-a-field": _stale_index(),
    "rows-of-another-shape": _short_rows(),
}


@pytest.mark.parametrize("content", CORRUPT.values(), ids=list(CORRUPT))
def test_a_corrupt_cache_is_rebuilt(content: bytes, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(I, "_LOADED", {})
    key, _ = I._fingerprint(I.tables_dir())
    cache = tmp_path / "porter" / f"index-{key}.pickle"
    cache.parent.mkdir(parents=True)
    cache.write_bytes(content)
    idx = I.load_index()
    assert idx.lookup("cudaMalloc").hip == "hipMalloc"
    assert idx.relevant
    # the bad file was replaced by a good one, which the next process loads as it is
    monkeypatch.setattr(I, "_LOADED", {})
    again = I.load_index()
    assert again is not idx and again.lookup("cudaMalloc").hip == "hipMalloc"
    assert cache.read_bytes() != content
