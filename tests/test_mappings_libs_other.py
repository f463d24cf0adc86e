"""Library tables of "Library coverage, part 2" against the real headers.

dnn (cuDNN->MIOpen), cub, thrust, libcxx (libcu++), nccl, nvtx (roctx), rtc (hipRTC), coop
(cooperative groups), tensor (cuTENSOR), wmma (rocWMMA) and libheaders_other (their include
paths); checked by scripts/check_mappings.py as well.

- every HIP name exists in the ROCm 7.2 headers, and in the 6.4 ones when hip_since is empty or
  <= 6.4 (qualified names: the last component);
- every HIP include path exists in the ROCm 7.2 prefix (6.4 likewise);
- every CUDA name (status != removed) is in scripts/data/cuda_library_names_other/*.txt or in
  the CUDA toolkit headers.

roctx (libroctx-dev) and rocWMMA (librocwmma-dev) are part of the 7.2 prefix (a missing one fails
under PORTER_REQUIRE_TOOLCHAIN=1); Debian has no rocWMMA for 6.4, so the wmma rows are checked
against 7.2 only.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from conftest import ROOT, need

from porter.mappings.index import read_table, validate_rows
from porter.mappings.model import parse_version

TABLES = (
    "dnn",
    "cub",
    "thrust",
    "libcxx",
    "nccl",
    "nvtx",
    "rtc",
    "coop",
    "tensor",
    "wmma",
    "libheaders_other",
)
NAMES = ROOT / "scripts" / "data" / "cuda_library_names_other"
CUDA = Path("/usr/local/cuda/include")

# where each table's HIP names are declared (relative to <prefix>/include)
HIP_HEADERS = {
    "dnn": ["miopen"],
    "cub": ["hipcub"],
    "thrust": ["thrust"],
    "libcxx": [],
    "nccl": ["rccl"],
    "nvtx": ["roctracer/roctx.h"],
    "rtc": ["hip/hiprtc.h"],
    "coop": ["hip/amd_detail/amd_hip_cooperative_groups.h"],
    "tensor": [],
    "wmma": ["rocwmma"],
}
# optional packages outside the unpacked prefix: the table is checked only when present
OPTIONAL = {"nvtx": "roctracer/roctx.h", "wmma": "rocwmma/rocwmma.hpp"}

_IDENT = re.compile(r"[A-Za-z_]\w*")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def rows_of(table: str):
    return read_table(ROOT / "mappings" / f"{table}.csv")


@cache
def words(paths: tuple[Path, ...]) -> frozenset[str]:
    out: set[str] = set()
    for base in paths:
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for f in files:
            out.update(_IDENT.findall(_COMMENT.sub(" ", f.read_text(errors="replace"))))
    return frozenset(out)


@cache
def listed_names() -> frozenset[str]:
    out = set()
    for f in NAMES.glob("*.txt"):
        for line in f.read_text().splitlines():
            if line and not line.startswith("#"):
                out.add(line.split("\t", 1)[0])
    return frozenset(out)


def last(name: str) -> str:
    return name.split("::")[-1]


def test_tables_valid():
    for t in TABLES:
        assert validate_rows(rows_of(t), f"{t}.csv") == []


def test_name_lists_have_origin():
    files = sorted(NAMES.glob("*.txt"))
    assert {f.stem for f in files} >= {"cudnn", "nccl", "nvrtc", "nvtx", "cutensor"}
    for f in files:
        lines = f.read_text().splitlines()
        assert lines[0].startswith("# "), f"{f.name}: first line must name the source package"
        body = [ln.split("\t")[0] for ln in lines[1:] if ln]
        assert body == sorted(body), f"{f.name} is not sorted"


def _prefix_has(prefix: Path, table: str) -> bool:
    opt = OPTIONAL.get(table)
    return opt is None or (prefix / "include" / opt).exists()


def _check_hip_names(prefix: Path, version: tuple[int, ...] | None, label: str):
    problems, skipped = [], []
    for table, dirs in HIP_HEADERS.items():
        if not _prefix_has(prefix, table):
            skipped.append(table)
            continue
        have = words(tuple(prefix / "include" / d for d in dirs))
        for r in rows_of(table):
            if not r.hip or r.kind in ("header", "header_dir"):
                continue
            if version is not None and not r.present_in(version):
                continue
            for part in r.hip.split("::"):
                if part not in have:
                    problems.append(f"{table}: {r.cuda} -> {r.hip} ({part} not in ROCm {label})")
    return problems, skipped


def test_hip_names_exist_rocm72(rocm72):
    problems, skipped = _check_hip_names(rocm72, parse_version("7.2"), "7.2")
    assert problems == []
    # scripts/setup-rocm.sh unpacks libroctx-dev and librocwmma-dev into the 7.2 prefix: a
    # missing one is a broken setup (a failure in CI), not a reason to leave the rows unchecked
    need(
        not skipped,
        f"not in the ROCm 7.2 prefix, unchecked: {', '.join(skipped)} "
        "(libroctx-dev / librocwmma-dev: run scripts/setup-rocm.sh)",
    )


def test_hip_names_exist_rocm64(rocm64):
    """Debian has no rocWMMA for ROCm 6.4 (the prefix lacks librocwmma-dev): the wmma rows are
    checked against 7.2 only; every other table is checked against the 6.4 headers."""
    problems, skipped = _check_hip_names(rocm64, parse_version("6.4"), "6.4")
    assert problems == []
    assert set(skipped) <= {"wmma"}, skipped


def _check_headers(prefix: Path, version: tuple[int, ...] | None):
    problems = []
    for table in TABLES:
        for r in rows_of(table):
            if r.kind not in ("header", "header_dir") or not r.hip:
                continue
            if version is not None and r.since > version:
                continue
            root = r.hip.split("/")[0]
            if root in ("roctracer", "rocwmma") and not (prefix / "include" / root).exists():
                continue  # optional package, see OPTIONAL
            target = prefix / "include" / r.hip
            ok = target.is_dir() if r.kind == "header_dir" else target.is_file()
            if not ok:
                problems.append(f"{table}: {r.cuda} -> {r.hip} missing")
    return problems


def test_hip_headers_exist_rocm72(rocm72):
    assert _check_headers(rocm72, None) == []


def test_hip_headers_exist_rocm64(rocm64):
    assert _check_headers(rocm64, parse_version("6.4")) == []


def test_cuda_names_exist():
    need(CUDA.is_dir(), f"CUDA toolkit headers not found in {CUDA}")
    listed = listed_names()
    cuda_words = words(
        (
            CUDA / "cccl" / "cub",
            CUDA / "cccl" / "thrust",
            CUDA / "cccl" / "cuda",
            CUDA / "cooperative_groups.h",
            CUDA / "cooperative_groups",
            CUDA / "mma.h",
            CUDA / "crt" / "mma.h",
            CUDA / "crt" / "mma.hpp",
            CUDA / "nvtx3",
        )
    )
    problems = []
    for table in TABLES:
        for r in rows_of(table):
            if r.status == "removed":
                continue
            if r.kind in ("header", "header_dir"):
                ok = (
                    r.cuda in listed
                    or (CUDA / r.cuda).exists()
                    or (CUDA / "cccl" / r.cuda).exists()
                )
            else:
                ok = r.cuda in listed or last(r.cuda) in cuda_words
            if not ok:
                problems.append(f"{table}: {r.cuda}")
    assert problems == []


def test_removed_rows_really_gone():
    need(CUDA.is_dir(), f"CUDA toolkit headers not found in {CUDA}")
    for table in TABLES:
        for r in rows_of(table):
            if r.status == "removed" and r.kind == "header":
                assert not (CUDA / r.cuda).exists(), r.cuda


def test_key_rows():
    """Spot checks of the brief's required mappings."""

    def hip(table, name):
        got = [r for r in rows_of(table) if r.cuda == name]
        assert got, f"{table}: no row for {name}"
        return got[-1].hip

    assert hip("dnn", "cudnnCreate") == "miopenCreate"
    assert hip("dnn", "cudnnConvolutionForward") == ""
    assert hip("cub", "cub") == "hipcub"
    assert hip("thrust", "thrust::cuda") == "thrust::hip"
    assert hip("thrust", "thrust::cuda_cub") == "thrust::hip_rocprim"
    assert hip("nccl", "ncclAllReduce") == "ncclAllReduce"
    assert hip("nvtx", "nvtxRangePushA") == "roctxRangePushA"
    assert hip("nvtx", "nvtxRangeEnd") == "roctxRangeStop"
    assert hip("rtc", "nvrtcCompileProgram") == "hiprtcCompileProgram"
    assert hip("rtc", "NVRTC_SUCCESS") == "HIPRTC_SUCCESS"
    assert hip("coop", "cooperative_groups::this_cluster") == ""
    assert (
        hip("coop", "cooperative_groups::this_thread_block")
        == "cooperative_groups::this_thread_block"
    )
    assert hip("wmma", "nvcuda::wmma") == "rocwmma"
    heads = {r.cuda: r for r in rows_of("libheaders_other")}
    assert heads["cub/cub.cuh"].hip == "hipcub/hipcub.hpp"
    assert heads["nccl.h"].hip == "rccl/rccl.h"
    assert heads["nvrtc.h"].hip == "hip/hiprtc.h"
    assert heads["thrust/system/cuda/"].hip == "thrust/system/hip/"
    assert "cooperative_groups.h" not in heads  # owned by headers.csv
    assert heads["cooperative_groups/reduce.h"].hip == ""
