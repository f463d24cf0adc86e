"""Faults found by fuzzing whole trees (issue 7 §6): cost that grows with the square of the CUDA
references, huge files, names at the file-system limit, non-UTF-8 names, Ctrl-C, and --in-place
backups that must never be overwritten."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

from porter.engine import EngineOptions, process_one
from porter.findings import Edit
from porter.rewrite import edits as edits_mod
from porter.rewrite.edits import EditSet, apply, overlaps
from porter.source import SourceFile, display_path

NAME_MAX = 255


def _porter(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "porter.cli", *args],
        cwd=cwd,
        check=False,
        capture_output=True,
        timeout=300,
    )


# -- EditSet: n log n ---------------------------------------------------------------------------
class _Budget:
    """Counts `overlaps` calls and fails as soon as they pass the budget (a quadratic EditSet
    makes about n^2/2 calls: 200 million for 20,000 edits, so the test fails fast, not slowly)."""

    def __init__(self, budget: int) -> None:
        self.calls = 0
        self.budget = budget

    def __call__(self, a: Edit, b: Edit) -> bool:
        self.calls += 1
        assert self.calls <= self.budget, f"more than {self.budget} overlap checks"
        return overlaps(a, b)


@pytest.mark.parametrize("order", ["file", "reverse", "random"])
def test_edit_set_checks_each_edit_against_a_constant_number_of_neighbours(order, monkeypatch):
    n = 20_000
    edits = [Edit(10 * i, 10 * i + 4, b"hip") for i in range(n)]
    edits += [Edit(10 * i + 6, 10 * i + 6, b"/*x*/") for i in range(n)]  # insertions
    if order == "reverse":
        edits.reverse()
    elif order == "random":
        random.Random(3).shuffle(edits)
    budget = _Budget(2 * len(edits))
    monkeypatch.setattr(edits_mod, "overlaps", budget)
    es = EditSet()
    assert all(es.add_group([e]) for e in edits)
    # every edit again overlaps (replacements) or is harmless (insertions at the same point)
    assert not any(
        es.add_group([Edit(e.start + 1, e.end + 1, b"")]) for e in edits[:1000] if e.start != e.end
    )
    assert budget.calls <= 2 * len(edits) + 2000


def test_edit_set_agrees_with_checking_every_pair():
    """The binary-search EditSet accepts and refuses exactly what checking each edit against
    every accepted edit (and the earlier edits of its own group) does."""
    rng = random.Random(11)
    for _ in range(2000):
        fast, slow = EditSet(), []
        for _ in range(rng.randint(1, 25)):
            group = []
            for _ in range(rng.choice([1, 1, 2, 3])):
                s = rng.randint(0, 40)
                group.append(Edit(s, s + rng.choice([0, 0, 1, 2, 6]), b"x"))
            accepted = list(slow)
            ok = True
            for e in group:
                if any(overlaps(e, a) for a in accepted):
                    ok = False
                    break
                accepted.append(e)
            if ok:
                slow.extend(group)
            assert fast.add_group(group) == ok, group
        assert fast.edits == slow
        apply(b"y" * 50, fast.edits)  # never raises on an accepted set


def _refs_file(n: int, one_line: bool = False) -> bytes:
    calls = [f"cudaMalloc(&p{i}, {i}); cudaFree(p{i});" for i in range(n // 2)]
    sep = " " if one_line else "\n  "
    return ("#include <cuda_runtime.h>\nvoid f() {" + sep + sep.join(calls) + "\n}\n").encode()


@pytest.mark.parametrize("one_line", [False, True], ids=["lines", "one-256KB-line"])
def test_cost_is_linear_in_cuda_references(one_line, monkeypatch):
    """20,000 CUDA references (once 28 s), or one 256 KB line of them (once over 30 s): the
    whole port makes a number of overlap checks linear in the references."""
    data = _refs_file(20_000 if not one_line else 14_000, one_line)
    if one_line:
        assert data.count(b"\n") == 3 and len(data) > 256 * 1024
    budget = _Budget(4 * 20_000)
    monkeypatch.setattr(edits_mod, "overlaps", budget)
    res = process_one("refs.cu", data, EngineOptions(run_rules=False))
    assert res.new_data.count(b"hipMalloc(") == data.count(b"cudaMalloc(")
    assert b"cuda" not in res.new_data


def test_column_of_a_long_ascii_line_is_not_decoded(monkeypatch):
    src = SourceFile("a.cu", b"x" * 300_000 + b"\n")
    assert src.position(299_999) == (1, 300_000)
    src = SourceFile("a.cu", "é".encode() + b"x" * 10 + b"\n")
    assert src.position(5) == (1, 5)  # é is one character, two bytes


# -- size limit ---------------------------------------------------------------------------------
def test_a_source_over_the_size_limit_is_copied_unchanged_and_reported(tmp_path):
    from porter.discover import discover
    from porter.engine import Job, run_jobs

    big = tmp_path / "big.cu"
    big.write_bytes(_refs_file(4000))  # about 150 KB
    small = tmp_path / "small.cu"
    small.write_bytes(b"void f() { cudaDeviceSynchronize(); }\n")
    out = tmp_path / "out"
    jobs = [Job(e, out=str(out / e.rel)) for e in discover(tmp_path).entries]
    results = {r.rel: r for r in run_jobs(jobs, EngineOptions(max_file_size=64 * 1024), 1)}
    assert results["big.cu"].status == "skipped"
    assert "over the 65536 bytes limit (--max-file-size)" in results["big.cu"].note
    assert (out / "big.cu").read_bytes() == big.read_bytes()
    assert results["small.cu"].status == "ported"
    # 0: no limit
    results = {r.rel: r for r in run_jobs(jobs, EngineOptions(max_file_size=0), 1)}
    assert results["big.cu"].status == "ported"


def test_size_setting_parses_units():
    from porter.config import ConfigError, parse_size

    assert parse_size("16M") == parse_size("16MiB") == parse_size("16mb") == 16 * 2**20
    assert parse_size("512K") == 512 * 1024 and parse_size(0) == 0 and parse_size("100") == 100
    for bad in ("x", "-1", "1.5M", True, -3):
        with pytest.raises(ConfigError):
            parse_size(bad)


# -- names ----------------------------------------------------------------------------------------
def test_a_255_byte_file_name_is_written(tmp_path):
    name = "k" * (NAME_MAX - len(".cu")) + ".cu"
    src = tmp_path / "src"
    src.mkdir()
    (src / name).write_bytes(b"void f() { cudaDeviceSynchronize(); }\n")
    r = _porter("port", str(src), "-o", str(tmp_path / "out"), "-q")
    assert r.returncode == 0, r.stderr
    assert b"hipDeviceSynchronize" in (tmp_path / "out" / name).read_bytes()
    from porter.engine import atomic_copy, atomic_write

    atomic_write(tmp_path / name, b"x")
    atomic_copy(tmp_path / name, tmp_path / "out" / name)
    assert (tmp_path / "out" / name).read_bytes() == b"x"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [name]  # no temporary left


def test_display_path_escapes_undecodable_bytes_readably():
    assert display_path(os.fsdecode(b"src/k\xff\xfe.cu")) == "src/k\\xff\\xfe.cu"
    assert display_path("src/é.cu") == "src/é.cu"
    assert display_path("a\ud800b") == "a\\ud800b"  # a surrogate no file name makes
    for p in (os.fsdecode(b"k\xff.cu"), "a\ud800b"):
        display_path(p).encode("utf-8")  # valid Unicode


# -- Ctrl-C ----------------------------------------------------------------------------------------
def _kernel_tree(root: Path, files: int) -> bytes:
    """`files` copies of one real source (the example project's kernels, about 30 KB)."""
    body = b"\n".join(p.read_bytes() for p in sorted((ROOT / "examples").rglob("*.cu")))
    body = body * max(1, 30_000 // len(body))
    for i in range(files):
        d = root / f"d{i % 10}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"k{i}.cu").write_bytes(body)
    return body


def test_ctrl_c_stops_workers_quietly_and_leaves_no_half_written_file(tmp_path):
    _kernel_tree(tmp_path / "ref", 2)
    r = _porter("port", str(tmp_path / "ref"), "-o", str(tmp_path / "ref-out"), "-q", "--exit-zero")
    assert r.returncode == 0, r.stderr
    expected = (tmp_path / "ref-out" / "d0" / "k0.cu").read_bytes()

    _kernel_tree(tmp_path / "src", 400)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "porter.cli",
            "port",
            str(tmp_path / "src"),
            "-o",
            str(out),
            "-j",
            "2",
            "-q",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not (out.is_dir() and any(out.rglob("k*.cu"))):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "no file written in 120 s"
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)  # a terminal sends Ctrl-C to the process group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.decode().splitlines() == ["porter: interrupted; no file was left half-written"]
    written = [p for p in out.rglob("*") if p.is_file()]
    assert all(p.name.startswith("k") and p.suffix == ".cu" for p in written), written
    assert all(p.read_bytes() == expected for p in written)
    assert len(written) < 400  # it did stop early


# -- --max-file-size on the command line and in the configuration -----------------------------
def test_max_file_size_option_and_setting(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    big = _refs_file(200)  # about 6 KB
    (src / "big.cu").write_bytes(big)
    (src / "small.cu").write_bytes(b"void f() { cudaDeviceSynchronize(); }\n")
    r = _porter(
        "port",
        str(src),
        "-o",
        str(tmp_path / "out"),
        "--max-file-size",
        "2K",
        "--report",
        str(tmp_path / "r.json"),
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "big.cu").read_bytes() == big
    assert b"hipDeviceSynchronize" in (tmp_path / "out" / "small.cu").read_bytes()
    assert b"big.cu: skipped: " in r.stdout and b"over the 2048 bytes limit" in r.stdout
    doc = json.loads((tmp_path / "r.json").read_text())
    assert [Path(s["path"]).name for s in doc["skipped"]] == ["big.cu"]
    assert "--max-file-size" in doc["skipped"][0]["reason"]
    # the same limit from the configuration file; the command line wins
    (src / ".porter.toml").write_text('max-file-size = "2K"\n')
    r = _porter("check", str(src), "--format", "json", "--exit-zero")
    assert [Path(s["path"]).name for s in json.loads(r.stdout)["skipped"]] == ["big.cu"]
    r = _porter("check", str(src), "--format", "json", "--exit-zero", "--max-file-size", "0")
    assert json.loads(r.stdout)["skipped"] == []
    r = _porter("check", str(src), "--max-file-size", "lots")
    assert r.returncode == 2 and r.stderr.decode().count("\n") == 1, r.stderr
    assert b"--max-file-size" in r.stderr and b"Traceback" not in r.stderr


# -- --in-place backups -------------------------------------------------------------------------
def test_two_in_place_runs_in_one_second_keep_both_originals(tmp_path, monkeypatch, capsys):
    """The backup folder is named by the second; a second run in that second used to write into
    the first run's folder and replace the only copy of the original with ported text."""
    import time as time_mod

    from porter.cli import main

    monkeypatch.setattr(time_mod, "strftime", lambda fmt, *a: "20260101-000000")
    src = tmp_path / "src"
    src.mkdir()
    first = b"void f() { cudaDeviceSynchronize(); }\n"
    (src / "a.cu").write_bytes(first)
    assert main(["port", str(src), "--in-place"]) == 0
    assert "originals kept under .porter-backup/20260101-000000/" in capsys.readouterr().out
    second = (src / "a.cu").read_bytes() + b"void g() { cudaFree(0); }\n"
    (src / "a.cu").write_bytes(second)
    assert main(["port", str(src), "--in-place"]) == 0
    assert "originals kept under .porter-backup/20260101-000000-2/" in capsys.readouterr().out
    backups = src / ".porter-backup"
    assert (backups / "20260101-000000" / "a.cu").read_bytes() == first
    assert (backups / "20260101-000000-2" / "a.cu").read_bytes() == second
    # a run that changes nothing leaves no empty backup folder behind
    assert main(["port", str(src), "--in-place"]) == 0
    assert sorted(p.name for p in backups.iterdir()) == ["20260101-000000", "20260101-000000-2"]


def test_an_existing_backup_file_is_never_replaced(tmp_path):
    from porter.discover import discover
    from porter.engine import BackupError, Job, keep_original, run_jobs

    src = tmp_path / "a.cu"
    original = b"void f() { cudaDeviceSynchronize(); }\n"
    src.write_bytes(original)
    backup = tmp_path / "bk" / "a.cu"
    backup.parent.mkdir()
    backup.write_bytes(b"an earlier original")
    with pytest.raises(BackupError):
        keep_original(src, backup)
    entry = discover(src).entries[0]
    [res] = run_jobs([Job(entry, out=str(src), backup=str(backup))], EngineOptions(), 1)
    assert res.status == "error" and "not backed up" in res.note and "left unchanged" in res.note
    assert backup.read_bytes() == b"an earlier original"
    assert src.read_bytes() == original  # not ported without a backup
    assert sorted(p.name for p in backup.parent.iterdir()) == ["a.cu"]  # no temporary left


def test_in_place_near_the_path_length_limit(tmp_path):
    """A 255-byte name ports in place with its backup; a path whose backup would pass PATH_MAX
    is left unchanged with a one-line error (exit 2), and no empty backup folders stay."""
    name = "k" * (NAME_MAX - len(".cu")) + ".cu"
    src = tmp_path / "src"
    src.mkdir()
    original = b"void f() { cudaDeviceSynchronize(); }\n"
    (src / name).write_bytes(original)
    r = _porter("port", str(src), "--in-place", "-q")
    assert r.returncode == 0, r.stderr
    assert b"hipDeviceSynchronize" in (src / name).read_bytes()
    [backup] = (src / ".porter-backup").rglob(name)
    assert backup.read_bytes() == original

    path_max = os.pathconf(str(tmp_path), "PC_PATH_MAX")
    deep = tmp_path / "deep"
    folder = deep
    while len(str(folder)) + 201 < path_max - 60:
        folder = folder / ("d" * 200)
    folder = folder / ("e" * (path_max - 60 - len(str(folder)) - 1))
    folder.mkdir(parents=True)
    target = folder / ("k" * 50 + ".cu")  # path_max - 6 bytes long
    target.write_bytes(original)
    r = _porter("port", str(deep), "--in-place", "-q")
    assert r.returncode == 2
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1 and "not backed up" in lines[0] and "left unchanged" in lines[0], lines
    assert target.read_bytes() == original
    assert not (deep / ".porter-backup").exists()


def test_shuffle_calls_of_one_function_are_collected_once(monkeypatch):
    """PT107 looked for the shuffles of the enclosing function once per shuffle call: 5,000
    `__shfl_down_sync(m, v, 16)` in one kernel took 435 s; now one collection per function."""
    from porter.rules import warp

    calls = []
    real = warp._shfl_calls_in

    def counted(ctx, node):
        calls.append(node.start_byte)
        return real(ctx, node)

    monkeypatch.setattr(warp, "_shfl_calls_in", counted)
    body = "\n".join(
        f"  v += __shfl_down_sync(0xffffffffu, v, 16); o[{i}] = v;" for i in range(2000)
    )
    src = f"__global__ void k(int* o) {{\n  int v = 0;\n{body}\n}}\n".encode()
    res = process_one("k.cu", src, EngineOptions())
    assert not res.errors
    assert len(calls) <= 2, len(calls)


def test_local_dim3s_of_a_function_are_read_in_one_walk(monkeypatch):
    """PT406 walked the whole function body once per launch to find a local `dim3`: 1,200
    launches in one function took 74 s. Its findings stay the same."""
    from porter.rules import memory

    walks = []
    real = memory.walk

    def counted(node):
        walks.append(node.start_byte)
        return real(node)

    monkeypatch.setattr(memory, "walk", counted)
    launches = "\n".join("  k<<<grid, block>>>(p);" for _ in range(2000))
    src = (
        "__global__ void k(float* p) {}\nvoid run(float* p) {\n"
        "  dim3 grid(1u << 24), block(256);\n" + launches + "\n"
        "  dim3 g2(1u << 24); g2.x = 4;\n  k<<<g2, 256>>>(p);\n}\n"
    ).encode()
    res = process_one("k.cu", src, EngineOptions(rule_codes=("PT406",)))
    assert len(walks) <= 2, len(walks)
    lines = [f.line for f in res.findings if f.code == "PT406"]
    assert len(lines) == 2000 and min(lines) == 4  # g2 is assigned: not constant


def test_report_files_name_non_utf8_files_readably(tmp_path):
    name = os.fsdecode(b"k\xff.cu")
    try:
        (tmp_path / name).write_bytes(b"void f() { cudaNotARealApi(1); }\n")
    except (OSError, UnicodeEncodeError):
        pytest.skip("the file system refuses non-UTF-8 names")
    reports = [tmp_path / f"r.{ext}" for ext in ("md", "html", "txt", "json", "sarif")]
    r = _porter(
        "check",
        str(tmp_path / name),
        "--exit-zero",
        *(a for p in reports for a in ("--report", str(p))),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    for p in reports:
        text = p.read_bytes().decode("utf-8")  # valid UTF-8
        assert (
            "k\\\\xff.cu" if p.suffix in (".json", ".sarif") else "k\\xff.cu"
        ) in text or "k%FF.cu" in text, p


def test_a_file_over_the_size_limit_is_not_read_for_its_headers(tmp_path):
    from porter.engine import local_headers

    (tmp_path / "h.cuh").write_bytes(b"#define N 4\n")
    src = tmp_path / "k.cu"
    src.write_bytes(b'#include "h.cuh"\n' + b"// padding\n" * 100)
    assert local_headers(src) == [(tmp_path / "h.cuh").resolve()]
    assert local_headers(src, max_size=100) == []


def test_ballot_variables_are_not_checked_against_every_assignment(monkeypatch):
    """Each ballot variable's re-assignments were looked for among all the assignments of its
    function (a tree query per variable): 1,000 ballots in one kernel took 26 s."""
    from porter.rules.base import RuleContext

    queries = []
    real = RuleContext.captures

    def counted(self, pattern, node=None):
        queries.append(pattern)
        return real(self, pattern, node)

    monkeypatch.setattr(RuleContext, "captures", counted)
    body = "\n".join(
        f"  unsigned m{i} = __ballot_sync(0xffffffff, v > {i}); v += __popc(m{i});"
        for i in range(1000)
    )
    src = f"__global__ void k(int v, int* o) {{\n{body}\n  m3 = 7;\n  o[0] = v;\n}}\n".encode()
    res = process_one("k.cu", src, EngineOptions())
    assert not res.errors
    assert len(queries) < 100, len(queries)
    # the same findings: __popc of each ballot variable, but not of m3, re-assigned from a constant
    popc = [f for f in res.findings if f.code == "PT105" and "`__popc` truncates" in f.message]
    assert len(popc) == 999 and not any("`m3`" in f.message for f in popc)


def test_branch_lookup_does_not_scan_every_earlier_if_block():
    """PPState.branch_at stepped back over every earlier #if branch for a position outside
    them: 16,000 `#ifdef` blocks in one kernel took 152 s."""
    from porter.analysis.preproc import PPState

    class Counting(list):
        reads = 0

        def __getitem__(self, i):
            Counting.reads += 1
            return super().__getitem__(i)

    class Ctx:
        root = None

        def __init__(self, data: bytes) -> None:
            self.data = data

    n = 5000
    data = "".join(
        f"#ifdef __CUDA_ARCH__\nint a{i};\n#if X\nint b{i};\n#endif\n#else\n"
        f"int c{i};\n#endif\nint d{i};\n"
        for i in range(n)
    ).encode()
    pp = PPState(Ctx(data))
    pp.branches = Counting(pp.branches)
    outside = [data.index(f"int d{i};".encode()) for i in range(n)]
    inner = [data.index(f"int b{i};".encode()) for i in range(n)]
    assert all(pp.branch_at(p) is None for p in outside)
    assert all(pp.branch_at(p).raw == "X" for p in inner)
    assert Counting.reads <= 2 * n, Counting.reads


def test_ctrl_c_during_in_place_leaves_each_file_whole_with_its_backup(tmp_path):
    body = _kernel_tree(tmp_path / "ref", 1)
    r = _porter("port", str(tmp_path / "ref"), "--in-place", "-q", "--exit-zero")
    assert r.returncode == 0, r.stderr
    ported = (tmp_path / "ref" / "d0" / "k0.cu").read_bytes()
    assert ported != body

    src = tmp_path / "src"
    _kernel_tree(src, 400)
    proc = subprocess.Popen(
        [sys.executable, "-m", "porter.cli", "port", str(src), "--in-place", "-j", "2", "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not any((src / ".porter-backup").rglob("k*.cu")):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "no backup written in 120 s"
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    [folder] = (src / ".porter-backup").iterdir()
    changed = 0
    for f in sorted(src.rglob("k*.cu")):
        rel = f.relative_to(src)
        if rel.parts[0] == ".porter-backup":
            assert f.read_bytes() == body  # a backup is the whole original
            continue
        data = f.read_bytes()
        assert data in (body, ported), rel  # never half-written
        if data == ported:
            changed += 1
            assert (folder / rel).read_bytes() == body  # and its original is kept
    assert 0 < changed < 400
    assert not [p for p in src.rglob("*") if p.name.startswith(".porter-") and p.is_file()]


def test_terminal_report_of_a_non_utf8_name_under_a_strict_utf8_locale(tmp_path):
    """A strict UTF-8 standard output (a desktop's UTF-8 locale) made the report an internal
    error; the name is printed as its own bytes, the way compilers print it."""
    name = os.fsdecode(b"k\xff.cu")
    try:
        (tmp_path / name).write_bytes(
            b"__global__ void k(int* o) {\n  o[0] = __shfl_down_sync(0xffffffff, o[1], 16); }\n"
        )
    except (OSError, UnicodeEncodeError):
        pytest.skip("the file system refuses non-UTF-8 names")
    r = subprocess.run(
        [sys.executable, "-m", "porter.cli", "check", "."],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        timeout=300,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
    )
    assert r.returncode == 1, r.stderr
    assert r.stdout.startswith(b"k\xff.cu:2:"), r.stdout[:200]


def test_same_named_ballot_variables_in_many_functions(monkeypatch):
    """`unsigned m = __ballot_sync(...)` in each of 2,000 device functions: each variable's uses
    were looked for among every `m` of the file (4,000 functions: 45 s). Occurrences of a name
    are found once per file and sliced to the function."""
    from porter.analysis import lex

    scans = []
    real = lex.find_word

    def counted(data, word):
        scans.append(word)
        return real(data, word)

    monkeypatch.setattr(lex, "find_word", counted)
    src = "\n".join(
        f"__device__ int f{i}(int v) {{ unsigned m = __ballot_sync(0xffffffff, v > 0);"
        f" return __popc(m); }}"
        for i in range(2000)
    ).encode()
    res = process_one("k.cu", src, EngineOptions())
    assert not res.errors
    assert scans.count(b"m") <= 1, scans.count(b"m")
    popc = [f for f in res.findings if f.code == "PT105" and "`__popc` truncates" in f.message]
    assert len(popc) == 2000
