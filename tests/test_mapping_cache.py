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


_FREEZE_PROBE = """
import gc, sys
import porter
from porter.mappings import index
porter.OWN_PROCESS = sys.argv[1] == "own"
index.load_index()  # writes the cache in the fresh XDG_CACHE_HOME
index._LOADED.clear()
before = gc.get_freeze_count()
index.load_index()  # from the cache
print(before, gc.get_freeze_count(), gc.isenabled())
"""


@pytest.mark.parametrize("process", ["library", "own"])
def test_only_porters_own_process_freezes_the_collector(process: str, tmp_path: Path):
    """Loading the tables from the cache leaves the garbage collector as it was in a library
    user's process (gc.freeze would move the caller's objects out of collection too); the console
    script (cli.entry sets porter.OWN_PROCESS) freezes the loaded index."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", _FREEZE_PROBE, process],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    before, after, enabled = int(out[0]), int(out[1]), out[2]
    assert enabled == "True"
    if process == "own":
        assert after > before + 10_000  # the index: about 35,000 objects the collector tracks
    else:
        assert after == before == 0


def test_the_console_script_runs_as_porters_own_process():
    import subprocess
    import sys

    probe = (
        "import sys, porter, porter.cli as c;"
        "c.main = lambda: print(porter.OWN_PROCESS) or 0;"
        "c.entry()"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "True", out
