"""The math-library tables (blas, blaslt, rand, fft, sparse, solver, libheaders_math) against the
headers on both sides: every HIP/roc name is declared by that library's ROCm headers (7.2, and 6.4
when the row claims it), every CUDA name is one NVIDIA's library headers declare (the lists in
scripts/data/cuda_library_names, extracted from NVIDIA's wheels by scripts/gen_lib_mappings.py).
"""
from __future__ import annotations

import importlib.util
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from porter.mappings.index import read_table, validate_rows

ROOT = Path(__file__).resolve().parent.parent
MAPPINGS = ROOT / "mappings"
AREAS = ("blas", "blaslt", "rand", "fft", "sparse", "solver")


def _gen():
    spec = importlib.util.spec_from_file_location("gen_lib_mappings",
                                                  ROOT / "scripts" / "gen_lib_mappings.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_lib_mappings", mod)
    spec.loader.exec_module(mod)
    return mod


GEN = _gen()


@lru_cache(maxsize=None)
def _decls(usr: Path, dirs: tuple[str, ...]):
    return GEN.rocm_decls(usr, dirs)


def _rows(area):
    return read_table(MAPPINGS / f"{area}.csv")


@pytest.mark.parametrize("area", AREAS + ("libheaders_math",))
def test_schema(area):
    rows = _rows(area)
    assert rows, f"{area}.csv is empty"
    assert validate_rows(rows, f"{area}.csv") == []


@pytest.mark.parametrize("area", AREAS)
def test_cuda_names_are_declared_by_nvidia_headers(area):
    known = set()
    for lst in GEN.AREA_LISTS[area]:
        known |= GEN.read_name_list(lst)
    missing = [r.cuda for r in _rows(area) if r.status != "removed" and r.cuda not in known]
    assert missing == []


@pytest.mark.parametrize("area", AREAS)
def test_hip_names_exist_in_rocm72(area, rocm72):
    """The row in force for ROCm 7.2 (the newest per CUDA name) names a declared HIP name."""
    decls = _decls(rocm72, tuple(GEN.HIP_DIRS[area]))
    current = {}
    for r in _rows(area):
        if r.since <= (7, 2):
            current[r.cuda] = r   # rows are sorted by hip_since within a name
    missing = [f"{r.cuda}->{r.hip}" for r in current.values() if r.hip and r.hip not in decls]
    assert missing == []


@pytest.mark.parametrize("area", AREAS)
def test_hip_names_exist_in_rocm64_when_claimed(area, rocm64):
    decls = _decls(rocm64, tuple(GEN.HIP_DIRS[area]))
    missing = [f"{r.cuda}->{r.hip}" for r in _rows(area)
               if r.hip and r.since <= (6, 4) and r.hip not in decls]
    assert missing == []


@pytest.mark.parametrize("area", [a for a in AREAS if a in GEN.ROC_DIRS])
def test_roc_names_exist(area, rocm72, rocm64):
    d72 = _decls(rocm72, tuple(GEN.ROC_DIRS[area]))
    d64 = _decls(rocm64, tuple(GEN.ROC_DIRS[area]))
    rows = [r for r in _rows(area) if r.roc]
    current = {r.cuda: r for r in _rows(area) if r.since <= (7, 2)}
    assert [r.roc for r in current.values() if r.roc and r.roc not in d72] == []
    assert [r.roc for r in rows if r.since <= (6, 4) and r.roc not in d64] == []


def test_roc_only_where_a_roc_library_exists():
    assert [r.cuda for r in _rows("blaslt") if r.roc] == []


def test_headers_exist(rocm72, rocm64):
    inc72, inc64 = rocm72 / "include", rocm64 / "include"
    for r in _rows("libheaders_math"):
        assert r.kind == "header"
        for path in filter(None, (r.hip, r.roc)):
            assert (inc72 / path).is_file(), path
            if r.since <= (6, 4):
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
    assert [(r.hip, r.hip_since) for r in rows["cublasGemmEx"]] == \
        [("hipblasGemmEx_v2", ""), ("hipblasGemmEx", "7.0")]
    assert [(r.hip, r.hip_since, r.roc) for r in rows["cublasSgemm"]] == \
        [("hipblasSgemm", "", "rocblas_sgemm")]


def test_known_rows():
    blas, rand, sparse = _by_cuda("blas"), _by_cuda("rand"), _by_cuda("sparse")
    assert blas["CUBLAS_OP_N"][0].roc == "rocblas_operation_none"
    assert blas["cublasCreate"][0].roc == "rocblas_create_handle"
    # complex rocBLAS functions take rocblas_float_complex: no one-to-one roc name
    assert all(not r.roc for r in blas["cublasCgemm"])
    assert blas["cublasXtCreate"][0].status == "unsupported"
    assert rand["curand_init"][0].hip == "hiprand_init"
    assert rand["curandState_t"][0].roc == "rocrand_state_xorwow"
    assert sparse["cusparseCreate"][0].roc == "rocsparse_create_handle"
    assert _by_cuda("solver")["cusolverDnSgetrf"][0].hip == "hipsolverDnSgetrf"
    assert _by_cuda("fft")["cufftExecC2C"][0].hip == "hipfftExecC2C"
