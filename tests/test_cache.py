"""The content-hash result cache of `porter check` (porter/cache.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from porter import engine
from porter.cli import main

EXAMPLE = ROOT / "examples" / "cuda-project"


@pytest.fixture()
def tree(tmp_path, monkeypatch) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "proj")
    monkeypatch.setenv("PORTER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "proj"


@pytest.fixture()
def engine_calls(monkeypatch) -> list[list[str]]:
    """The files each engine run was given."""
    calls: list[list[str]] = []
    real = engine.run_jobs

    def spy(jobs, *a, **kw):
        calls.append(sorted(j.entry.rel for j in jobs))
        return real(jobs, *a, **kw)

    monkeypatch.setattr(engine, "run_jobs", spy)
    return calls


def _check(capsys, *args: str) -> tuple[int, str]:
    rc = main(["check", "proj", "-j", "1", *args])
    return rc, capsys.readouterr().out


def test_second_run_reads_only_the_cache(tree, engine_calls, capsys):
    rc1, out1 = _check(capsys)
    assert len(engine_calls) == 1 and len(engine_calls[0]) == 7
    rc2, out2 = _check(capsys)
    assert (rc2, out2) == (rc1, out1)
    assert len(engine_calls) == 1  # the engine did not run again
    assert len(list((tree.parent / "cache").rglob("*.pickle"))) >= 7


def test_a_changed_file_alone_is_checked_again(tree, engine_calls, capsys):
    _check(capsys)
    reduce_cu = tree / "src" / "reduce.cu"
    reduce_cu.write_text(reduce_cu.read_text() + "\n// edited\n")
    _check(capsys)
    assert engine_calls[-1] == ["proj/src/reduce.cu"]
    os.utime(tree / "src" / "saxpy.cu")  # a new time stamp, the same bytes
    _check(capsys)
    assert len(engine_calls) == 2


def test_options_are_part_of_the_key(tree, engine_calls, capsys):
    _, gfx942 = _check(capsys)
    _, gfx1100 = _check(capsys, "--offload-arch", "gfx1100")
    assert len(engine_calls) == 2 and gfx942 != gfx1100
    _check(capsys, "--select", "PT1")
    assert len(engine_calls) == 3
    _, again = _check(capsys, "--offload-arch", "gfx1100")
    assert len(engine_calls) == 3 and again == gfx1100


def test_no_cache_and_clean(tree, engine_calls, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tree.parent / "xdg"))  # clean also drops the
    cache = tree.parent / "cache"  # tables' index there
    _check(capsys, "--no-cache")
    assert not cache.exists()
    _check(capsys)
    n = len(list(cache.rglob("*.pickle")))
    _check(capsys, "--no-cache")
    assert len(engine_calls) == 3
    stale_index = tree.parent / "xdg" / "porter" / "index-0123.pickle"
    stale_index.parent.mkdir(parents=True, exist_ok=True)
    stale_index.write_bytes(b"old tables")
    assert main(["clean"]) == 0
    out = capsys.readouterr().out
    assert int(out.split()[1]) == n + 1 and "cache entries" in out
    assert not list(cache.rglob("*.pickle"))
    assert not list((tree.parent / "xdg").rglob("index-*.pickle"))


def test_a_damaged_entry_is_a_miss(tree, engine_calls, capsys):
    _, first = _check(capsys)
    for p in (tree.parent / "cache").rglob("*.pickle"):
        p.write_bytes(b"\x80\x05garbage")
    _, second = _check(capsys)
    assert second == first and len(engine_calls) == 2


def test_concurrent_runs_share_the_cache_safely(tree):
    env = dict(os.environ, PORTER_CACHE_DIR=str(tree.parent / "cache"))
    cmd = [sys.executable, "-m", "porter.cli", "check", "proj", "-j", "1", "--format", "json"]
    procs = [
        subprocess.Popen(
            cmd, cwd=tree.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 1 for p in procs), [e for _, e in outs]
    assert len({o for o, _ in outs}) == 1
    assert not list((tree.parent / "cache").rglob("*.tmp"))
    warm = subprocess.run(cmd, cwd=tree.parent, env=env, capture_output=True)
    assert warm.stdout == outs[0][0]
