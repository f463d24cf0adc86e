"""The math-library tables (blas, blaslt, rand, fft, sparse, solver, libheaders_math) against the
headers on both sides: every HIP/roc name is declared by that library's ROCm headers (7.2, and
6.4 when the row is in force there), every CUDA name is declared by NVIDIA's library headers: the
CUDA 13 name lists of scripts/data/cuda_library_names (pinned by sha256 in scripts/inputs.lock,
rebuilt from the pinned wheels by `scripts/check_mappings.py --refresh`), or, for `removed`
rows, by the CUDA 11.8 / 12.9 headers of the -cu11/-cu12 wheels (scripts/data/api/cuda_older.tsv).
No generator is imported: the header reader is scripts/cuda_names.py.
"""

from __future__ import annotations

import hashlib
import sys
from functools import cache
from pathlib import Path

import pytest

from porter.mappings.index import read_table, validate_rows

ROOT = Path(__file__).resolve().parent.parent
MAPPINGS = ROOT / "mappings"
AREAS = ("blas", "blaslt", "rand", "fft", "sparse", "solver")
sys.path.insert(0, str(ROOT / "scripts"))
from api_sources import Lock, read_release_table  # noqa: E402
from cuda_names import header_files, header_identifiers  # noqa: E402

# ROCm include folders (relative to <prefix>/usr/include) declaring each table's HIP / roc names
HIP_DIRS = {
    "blas": ("hipblas", "hipblas-common", "hip/library_types.h"),
    "blaslt": (
        "hipblaslt",
        "hipblaslt-export.h",
        "hipblaslt-version.h",
        "hipblas-common",
        "hip/library_types.h",
    ),
    "rand": ("hiprand",),
    "fft": ("hipfft",),
    "sparse": ("hipsparse",),
    "solver": ("hipsolver",),
}
ROC_DIRS = {
    "blas": ("rocblas",),
    "rand": ("rocrand",),
    "fft": ("rocfft",),
    "sparse": ("rocsparse",),
    "solver": ("rocsolver", "rocblas"),
}
CUDA_LISTS = {
    "blas": "cublas",
    "blaslt": "cublasLt",
    "rand": "curand",
    "fft": "cufft",
    "sparse": "cusparse",
    "solver": "cusolver",
}
NAMES = ROOT / "scripts" / "data" / "cuda_library_names"
OLDER = ROOT / "scripts" / "data" / "api" / "cuda_older.tsv"


@cache
def _decls(usr: Path, dirs: tuple[str, ...]) -> frozenset[str]:
    inc = usr / "include"
    files: list[Path] = []
    for d in dirs:
        p = inc / d
        files += [p] if p.is_file() else header_files(p) if p.is_dir() else []
    assert files, f"none of {dirs} under {inc}"
    return frozenset(header_identifiers(files))


def _rows(area):
    return read_table(MAPPINGS / f"{area}.csv")


def _in_force(area, version):
    """The row of each CUDA name in force for a ROCm version (None where none is)."""
    by: dict[str, list] = {}
    for r in _rows(area):
        by.setdefault(r.cuda, []).append(r)
    out = []
    for rows in by.values():
        chosen = [r for r in rows if r.since <= version]
        if chosen and chosen[-1].present_in(version):
            out.append(chosen[-1])
    return out


@cache
def _cuda_list(name: str) -> frozenset[str]:
    return frozenset(
        ln.split("\t")[0]
        for ln in (NAMES / f"{name}.txt").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    )


@pytest.mark.parametrize("area", AREAS + ("libheaders_math",))
def test_schema(area):
    rows = _rows(area)
    assert rows, f"{area}.csv is empty"
    assert validate_rows(rows, f"{area}.csv") == []


def test_cuda_lists_are_the_locked_ones():
    """The CUDA 13 library name lists are inputs pinned by sha256, not generator output."""
    lock = Lock.load()
    for name in CUDA_LISTS.values():
        rel = f"scripts/data/cuda_library_names/{name}.txt"
        digest = hashlib.sha256((ROOT / rel).read_bytes()).hexdigest()
        assert lock.lists.get(rel) == digest, f"{rel} is not the list scripts/inputs.lock pins"


@pytest.mark.parametrize("area", AREAS)
def test_cuda_names_are_declared_by_nvidia_headers(area):
    known = _cuda_list(CUDA_LISTS[area])
    older = read_release_table(OLDER)
    missing = [r.cuda for r in _rows(area) if r.status != "removed" and r.cuda not in known]
    assert missing == []
    gone = [
        r.cuda
        for r in _rows(area)
        if r.status == "removed" and (r.cuda in known or r.cuda not in older)
    ]
    assert gone == [], "removed rows must name what only CUDA 11.8/12.9 declare"


@pytest.mark.parametrize("area", AREAS)
def test_hip_names_exist_in_rocm72(area, rocm72):
    """The row in force for ROCm 7.2 names a declared HIP name."""
    decls = _decls(rocm72, HIP_DIRS[area])
    missing = [
        f"{r.cuda}->{r.hip}" for r in _in_force(area, (7, 2)) if r.hip and r.hip not in decls
    ]
    assert missing == []


@pytest.mark.parametrize("area", AREAS)
def test_hip_names_exist_in_rocm64(area, rocm64):
    decls = _decls(rocm64, HIP_DIRS[area])
    missing = [
        f"{r.cuda}->{r.hip}"
        for r in _rows(area)
        if r.hip and r.present_in((6, 4)) and r.hip not in decls
    ]
    assert missing == []


@pytest.mark.parametrize("area", AREAS)
def test_removed_hip_names_are_gone(area, rocm72):
    """A row with hip_removed X.Y names what the 7.2 headers lack when X.Y <= 7.2."""
    decls = _decls(rocm72, HIP_DIRS[area])
    wrong = [r.hip for r in _rows(area) if r.removed and r.removed <= (7, 2) and r.hip in decls]
    assert wrong == []


@pytest.mark.parametrize("area", [a for a in AREAS if a in ROC_DIRS])
def test_roc_names_exist(area, rocm72, rocm64):
    d72 = _decls(rocm72, ROC_DIRS[area])
    d64 = _decls(rocm64, ROC_DIRS[area])
    assert [r.roc for r in _in_force(area, (7, 2)) if r.roc and r.roc not in d72] == []
    assert [r.roc for r in _rows(area) if r.roc and r.present_in((6, 4)) and r.roc not in d64] == []


def test_roc_only_where_a_roc_library_exists():
    assert [r.cuda for r in _rows("blaslt") if r.roc] == []


def test_headers_exist(rocm72, rocm64):
    inc72, inc64 = rocm72 / "include", rocm64 / "include"
    for r in _rows("libheaders_math"):
        assert r.kind == "header"
        for path in filter(None, (r.hip, r.roc)):
            if r.present_in((7, 2)):
                assert (inc72 / path).is_file(), path
            if r.present_in((6, 4)):
                assert (inc64 / path).is_file(), path


def _by_cuda(area):
    out = {}
    for r in _rows(area):
        out.setdefault(r.cuda, []).append(r)
    return out


def test_hipblas_complex_v2_versions(rocm64, rocm72):
    """Before ROCm 7.0 the hipComplex entry point is X_v2; from 7.0 the plain name."""
    rows = _by_cuda("blas")
    for cuda in ("cublasCgemm", "cublasCgemm_v2", "cublasZaxpy"):
        got = [(r.hip, r.hip_since) for r in rows[cuda]]
        plain = cuda.replace("cublas", "hipblas").replace("_v2", "")
        assert got == [(plain + "_v2", ""), (plain, "7.0")], got
    assert [(r.hip, r.hip_since) for r in rows["cublasGemmEx"]] == [
        ("hipblasGemmEx_v2", ""),
        ("hipblasGemmEx", "7.0"),
    ]
    assert [(r.hip, r.hip_since, r.roc) for r in rows["cublasSgemm"]] == [
        ("hipblasSgemm", "", "rocblas_sgemm")
    ]


def test_known_rows():
    blas, rand, sparse = _by_cuda("blas"), _by_cuda("rand"), _by_cuda("sparse")
    assert blas["CUBLAS_OP_N"][0].roc == "rocblas_operation_none"
    assert blas["cublasCreate"][0].roc == "rocblas_create_handle"
    # complex rocBLAS functions take rocblas_float_complex, which is hipFloatComplex under the
    # ROCM_MATHLIBS_API_USE_HIP_COMPLEX porter defines with --roc: the same roc name at every
    # hip_since; complex rocSPARSE functions take rocsparse_float_complex: no roc name
    assert [r.roc for r in blas["cublasCgemm"]] == ["rocblas_cgemm", "rocblas_cgemm"]
    assert all(not r.roc for r in sparse["cusparseCbsrmv"])
    assert blas["cublasXtCreate"][0].status == "unsupported"
    assert rand["curand_init"][0].hip == "hiprand_init"
    assert rand["curandState_t"][0].roc == "rocrand_state_xorwow"
    assert sparse["cusparseCreate"][0].roc == "rocsparse_create_handle"
    assert _by_cuda("solver")["cusolverDnSgetrf"][0].hip == "hipsolverDnSgetrf"
    assert _by_cuda("fft")["cufftExecC2C"][0].hip == "hipfftExecC2C"
