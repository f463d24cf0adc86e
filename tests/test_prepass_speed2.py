"""The project pre-pass keeps the bytes it reads first (up to `_PREPASS_KEPT`) for its include
graph's reads of the same files: the same answers as reading each file again, one read per
source while the budget lasts, and a read again of each file past the budget. It holds each
source's identifiers for the port (`lex.hold_identifiers`), and a file whose identifiers hold no
table name is not searched for definition sites (none is there)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

from porter import cli, commands, engine
from porter.mappings.index import load_index
from porter.rewrite import lex
from porter.rewrite.cuda import project_scan
from porter.rewrite.lex import identifiers, scanner_for
from porter.rewrite.names import project_declaration_sites

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
        engine.release_reads()  # kept for an engine run that does not follow here


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


# -- the identifiers the pre-pass holds for the port, and the search they rule out ----------

_PIECES = [
    b"using cudaStream_t = int;\n",
    b"#define cudaMalloc(p, n) 0\n",
    b"struct cudaDeviceProp {\n",
    b"class cudaEvent_t : base {",
    b"enum class cudaError { a };\n",
    b"typedef struct CUstream_st* cudaStream_t;\n",
    b"} cudaMemcpyKind;\n",
    b"cudaError_t cudaFree(void* p)\n{ return 0; }\n",
    b"int 0cudaFree; 9x_cudaMalloc$cudaFree;",
    b"cuda$Stream_t x;",
    b"/* typedef int cudaEvent_t; */",
    b'"#define cudaSuccess 0"',
    b"xcudaMalloc cudaMallocx __half2",
    b"\\\n",
    b"\n",
    b" ",
    b"{",
    b"(",
    b"}",
    b";",
    b"\xc3\xa9cudaFree",
    b"xusing cudaStream_t = a;",
    b"a$typedef int cudaEvent_t;",
    b"typedef$ int cudaError_t;",
    b"#  define\tcudaSuccess",
    b"enum  struct cudaMemcpyKind {",
    b"x$union cudaDeviceProp {",
    b"\xc3typedef int cudaStream_t;",
    b"class\tcudaEvent_t\r\n{",
    b"}cudaError_t ;",
]


def _site_sources() -> list[bytes]:
    from sources import cuda_headers, mutated, random_texts, repo_files

    real = [p.read_bytes() for p in [*repo_files(), *cuda_headers(suffixes={".h", ".hpp", ".cuh"})]]
    rnd = random.Random(20261203)
    built = random_texts(rnd, _PIECES, 3000, 12)
    return real + built + mutated(rnd, real[:400] + built[:400], _PIECES, 2000)


def test_a_file_with_no_table_name_among_its_identifiers_has_no_definition_site():
    """The superset property of project_scan's shortcut: over every fixture, example, CUDA
    header and 5,000 built and mutated texts, a file whose identifiers hold none of the names
    has no definition site of them (for the tables' names and for sets of a few names), the
    sites found with the identifiers (the patterns whose keyword the file holds) are those found
    without, and project_scan with the identifiers answers as without them."""
    index = load_index()
    relevant = scanner_for(index).relevant
    rnd = random.Random(7)
    pool = sorted(relevant)
    skipped = searched = 0
    for data in _site_sources():
        idents = identifiers(data)
        assert project_scan("f.cu", data, index, idents) == project_scan("f.cu", data, index)
        sets = [
            relevant,
            frozenset(rnd.sample(pool, 5)),
            frozenset(rnd.sample(sorted(idents), 2)) if len(idents) > 1 else relevant,
        ]
        for names in sets:
            sites = list(project_declaration_sites(data, names))
            assert list(project_declaration_sites(data, names, idents)) == sites
            if names.isdisjoint(idents):
                skipped += 1
                assert not sites
            else:
                searched += 1
    assert skipped > 1000 and searched > 1000, "the test proves little"


def test_held_identifiers_are_taken_once_by_equal_bytes(monkeypatch):
    """hold_identifiers' set is what identifiers computes, returned once to the next call with
    equal bytes (another bytes object); within the budget only, and let go by
    release_identifiers."""
    lex.release_identifiers()
    data = b"int cudaMalloc; 0x1F __half2 a$b\n" * 3
    held = lex.hold_identifiers(data)
    assert held == lex._identifiers(data) == {b"int", b"cudaMalloc", b"x1F", b"__half2", b"a", b"b"}
    assert identifiers(bytes(bytearray(data))) is held
    again = identifiers(data)
    assert again == held and again is not held  # taken once
    monkeypatch.setattr(lex, "_HELD_BYTES", 2 * len(data) + 1)
    assert lex.hold_identifiers(data) is not None
    assert lex.hold_identifiers(data + b" ") is not None
    assert lex.hold_identifiers(b"x") is None  # past the budget: nothing computed
    assert lex.hold_identifiers(bytes(bytearray(data))) == held  # held already: no size added
    assert lex._held_size[0] == 2 * len(data) + 1
    lex.release_identifiers()
    assert lex.hold_identifiers(b"x") == {b"x"}
    lex.release_identifiers()
    assert not lex._held


def test_the_pre_pass_holds_the_identifiers_the_port_takes(tmp_path, monkeypatch):
    """Over the built project and CCCL: the pre-pass answers as with nothing held, and holds the
    identifiers of each source (within the budget), equal to the rewriter's own."""
    for source, options in _inputs(tmp_path):
        if source in (FIXTURES, ROOT / "examples"):
            continue
        res, jobs = _jobs(tmp_path, source, *options)
        monkeypatch.setattr(lex, "_HELD_BYTES", 0)
        plain = commands._project_prepass(res, jobs, True)
        assert not lex._held
        monkeypatch.setattr(lex, "_HELD_BYTES", 16 * 2**20)
        assert commands._project_prepass(res, jobs, True) == plain
        held = dict(lex._held)
        ported = [Path(j.entry.path).read_bytes() for j in jobs if j.entry.kind == "cuda"]
        ported = [d for d in ported if len(d) <= 2000 or source == CUDA_INCLUDE / "cccl"]
        assert held and set(held) == set(ported), source
        for data, idents in held.items():
            assert idents == lex._identifiers(data)
        lex.release_identifiers()


# -- the engine takes the pre-pass's reads (engine.keep_read) --------------------------------


def _port_counting_reads(tmp_path, monkeypatch, source: Path, *options: str) -> Counter:
    """`porter port source -o out` in process, -j 1: how many times each file was read
    (read_within, the pre-pass's and the engine's reads)."""
    reads: Counter = Counter()
    real = engine.read_within

    def read_within(path, limit):
        reads[str(path)] += 1
        return real(path, limit)

    monkeypatch.setattr(engine, "read_within", read_within)
    try:
        out = tmp_path / "out"
        assert cli.main(["port", str(source), "-o", str(out), "-q", "-j", "1", *options]) in (0, 1)
    finally:
        monkeypatch.setattr(engine, "read_within", real)
    assert engine._KEPT_READS == {}  # all taken or let go when the run ends
    return reads


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("budget", [2**40, 0, 300])
def test_each_source_is_read_once_while_the_budget_lasts(tmp_path, monkeypatch, budget):
    """The built project (its headers define table names, so the pre-pass also reads the include
    graph), ported with room for every file, none, and one small file: with room for all, each
    CUDA source is read once in the whole run (big.cu, over the size limit, gives no bytes to
    keep and is read by both); the ported tree is the same whatever the budget."""
    root = _project(tmp_path)
    monkeypatch.setattr(commands, "_PREPASS_KEPT", 2**40)
    once = _port_counting_reads(tmp_path / "a", monkeypatch, root, "--max-file-size", "2000")
    expected = _tree(tmp_path / "a" / "out")
    monkeypatch.setattr(commands, "_PREPASS_KEPT", budget)
    reads = _port_counting_reads(tmp_path / "b", monkeypatch, root, "--max-file-size", "2000")
    assert _tree(tmp_path / "b" / "out") == expected
    sources = [k for k in reads if not k.endswith("big.cu")]
    assert len(sources) == 7 and reads[str(root / "big.cu")] == 2
    if budget == 2**40:
        assert all(reads[k] == 1 for k in sources), reads
    else:  # past the budget the engine reads again, and the graph too
        assert sum(reads[k] for k in sources) > sum(once[k] for k in sources)


def test_the_engine_ports_the_bytes_the_pre_pass_read(tmp_path, monkeypatch):
    """A file changed between the pre-pass and its port is ported as the pre-pass read it: the
    project-wide decisions and the port are about the same bytes."""
    root = _project(tmp_path)
    real = commands._run_engine

    def change_then_run(jobs, options, workers, quiet):
        (root / "a.cu").write_bytes(b"cudaStream_t changed;\n")
        return real(jobs, options, workers, quiet)

    monkeypatch.setattr(commands, "_run_engine", change_then_run)
    _port_counting_reads(tmp_path, monkeypatch, root)
    assert (tmp_path / "out" / "a.cu").read_bytes() == b'#include "lib/compat.h"\ncudaError_t e;\n'


def test_a_cached_check_lets_go_of_the_reads_it_did_not_port(tmp_path, monkeypatch):
    """`porter check` with its cache: unchanged files' results come from the cache, no job
    takes their reads; the run lets go of them."""
    root = _project(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for _ in range(2):
        cli.main(["check", str(root), "-q", "-j", "1"])
        assert engine._KEPT_READS == {}


def test_the_parent_of_forked_workers_lets_go_of_the_pre_pass_holdings(tmp_path):
    """-j 2: the workers are forked with the pre-pass's reads and identifier sets; the parent,
    which ports nothing, holds none of them while they work (looked at as each result comes)."""
    res, jobs = _jobs(tmp_path, _project(tmp_path))
    commands._project_prepass(res, jobs, True)
    held = (len(engine._KEPT_READS), len(lex._held))
    seen = []
    results = engine.run_jobs(
        jobs,
        engine.EngineOptions(),
        2,
        progress=lambda n: seen.append((len(engine._KEPT_READS), len(lex._held))),
    )
    assert held[0] > 0 and held[1] > 0
    assert len(results) == len(jobs) and seen and set(seen) == {(0, 0)}


def test_a_context_header_is_read_once(tmp_path, monkeypatch):
    """`porter port one.cu -o out.cu`: the header beside it is read for the names it declares
    (a context job); the pre-pass's read serves that job too."""
    (tmp_path / "compat.h").write_bytes(b"#pragma once\ntypedef int cudaStream_t;\n")
    src = tmp_path / "one.cu"
    src.write_bytes(b'#include "compat.h"\ncudaStream_t s;\n')
    reads: Counter = Counter()
    real = engine.read_within

    def read_within(path, limit):
        reads[str(path)] += 1
        return real(path, limit)

    real_bytes = Path.read_bytes

    def read_bytes(p):
        reads[f"{p} (read_bytes)"] += 1
        return real_bytes(p)

    monkeypatch.setattr(engine, "read_within", read_within)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    assert cli.main(["port", str(src), "-o", str(tmp_path / "out.cu"), "-q", "-j", "1"]) in (0, 1)
    monkeypatch.undo()
    header = str(tmp_path / "compat.h")
    # once to find it (local_headers follows the includes), once in the pre-pass, whose read
    # the context job takes
    assert reads[header] == 1 and reads[f"{header} (read_bytes)"] == 1, reads
    assert reads[str(src)] == 1, reads
    assert engine._KEPT_READS == {}
