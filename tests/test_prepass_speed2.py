"""The project pre-pass keeps the bytes it reads first (up to `_PREPASS_KEPT`) for its include
graph's reads of the same files: the same answers as reading each file again, one read per
source while the budget lasts, and a read again of each file past the budget."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

from porter import cli, commands, engine

CUDA_INCLUDE = Path("/usr/local/cuda/include")


def _project(tmp_path: Path) -> Path:
    """A project whose headers define table names (so the pre-pass reads the include graph),
    with conditional and commented includes, a file over the size limit and one that is not
    CUDA C++."""
    root = tmp_path / "proj"
    (root / "lib").mkdir(parents=True)
    (root / "lib/compat.h").write_bytes(b"#pragma once\ntypedef int cudaError_t;\n")
    (root / "lib/other.h").write_bytes(b"#pragma once\ntypedef int cudaStream_t;\n")
    (root / "a.cu").write_bytes(b'#include "lib/compat.h"\ncudaError_t e;\n')
    (root / "b.cu").write_bytes(b'#ifdef CPU_ONLY\n#include "lib/compat.h"\n#endif\n')
    (root / "c.h").write_bytes(b'// #include "lib/other.h"\n#include "lib/compat.h"\n')
    (root / "d.cu").write_bytes(b'#include "c.h"\n#include <lib/other.h>\ncudaStream_t s;\n')
    (root / "e.cu").write_bytes(b'#include "b.cu"\n#include <vector>\n')
    (root / "big.cu").write_bytes(b'#include "lib/compat.h"\n' + b"// pad\n" * 400)
    (root / "notes.txt").write_bytes(b"#include <lib/compat.h>\n")
    return root


def _jobs(tmp_path: Path, source: Path, *options: str):
    """(res, jobs) of `porter port source`, as the pipeline receives them."""
    got = {}

    def capture(args, res, jobs):
        got["run"] = res, jobs
        return []

    mp = pytest.MonkeyPatch()
    mp.setattr(commands, "run_pipeline", capture)
    try:
        cli.main(["port", str(source), "-o", str(tmp_path / "out"), "-q", "--force", *options])
    finally:
        mp.undo()
    return got["run"]


def _counted_prepass(monkeypatch, res, jobs, kept: int):
    """The pre-pass's answer with `kept` bytes to keep, and the number of reads it made."""
    reads = []
    real = engine.read_within

    def read_within(path, limit):
        reads.append(path)
        return real(path, limit)

    monkeypatch.setattr(commands, "_PREPASS_KEPT", kept)
    monkeypatch.setattr(engine, "read_within", read_within)
    try:
        return commands._project_prepass(res, jobs, True), reads
    finally:
        monkeypatch.setattr(engine, "read_within", real)


def _inputs(tmp_path: Path) -> list[tuple[Path, tuple[str, ...]]]:
    found = [
        (_project(tmp_path), ("--max-file-size", "2000")),
        (FIXTURES, ()),
        (ROOT / "examples", ()),
    ]
    if CUDA_INCLUDE.is_dir():
        found.append((CUDA_INCLUDE / "cccl", ()))
    return found


def test_kept_bytes_give_the_answers_of_reading_again(tmp_path, monkeypatch):
    """Over a built project, the fixtures, the examples and CCCL (whose headers define table
    names): the pre-pass that keeps what it read answers as the one that reads each file again,
    with a budget for all, for none and for a few files; with room for all, each source is read
    once (with none, the include graph reads some again)."""
    for source, options in _inputs(tmp_path):
        res, jobs = _jobs(tmp_path, source, *options)
        cuda = [j for j in jobs if j.entry.kind == "cuda"]
        again, reads_again = _counted_prepass(monkeypatch, res, jobs, 0)
        for kept in (2**40, 300):
            answer, reads = _counted_prepass(monkeypatch, res, jobs, kept)
            assert answer == again, (source, kept)
        kept_all, reads_once = _counted_prepass(monkeypatch, res, jobs, 2**40)
        assert len(reads_once) == len(cuda), source
        if again[1]:  # some header defines names: the graph was read
            assert len(reads_again) > len(reads_once), source


def test_the_built_project_reads_its_include_graph_and_the_big_file_again(tmp_path, monkeypatch):
    """The built project has names a header defines (the graph is read), its file over the size
    limit is read once (no bytes: no names, no includes), and a budget of one small file keeps it
    alone: every other source is read again."""
    root = _project(tmp_path)
    res, jobs = _jobs(tmp_path, root, "--max-file-size", "2000")
    answer, reads = _counted_prepass(monkeypatch, res, jobs, 2**40)
    seen = {Path(rel).relative_to(root).as_posix(): names for rel, names in answer[1]}
    both = {"cudaError_t", "cudaStream_t"}
    assert seen == {"a.cu": {"cudaError_t"}, "c.h": {"cudaError_t"}, "d.cu": both}
    assert sum(1 for p in reads if str(p).endswith("big.cu")) == 1  # no bytes: not in the graph
    assert not any(str(p).endswith("notes.txt") for p in reads)
    sizes = {
        str(j.entry.path): Path(j.entry.path).stat().st_size for j in jobs if j.entry.kind == "cuda"
    }
    first = next(str(p) for p in reads if sizes[str(p)] == min(sizes.values()))
    _, one = _counted_prepass(monkeypatch, res, jobs, sizes[first])
    _, none = _counted_prepass(monkeypatch, res, jobs, 0)
    one_by, none_by = Counter(map(str, one)), Counter(map(str, none))
    assert one_by[first] == 1 < none_by[first]
    del one_by[first], none_by[first]
    assert one_by == none_by
