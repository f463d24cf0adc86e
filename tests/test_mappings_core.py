"""The core tables (runtime, driver, device, lowp, headers) against the real headers.

HIP names must exist in the ROCm 7.2 headers (and in 6.4 when hip_since is empty or <= 6.4);
device math functions are declared by clang's HIP wrapper headers (__clang_hip_*.h), which the
HIP compiler ships instead of ROCm's include/ folder, so those are searched too.
"""
from __future__ import annotations

import glob
import sys
from pathlib import Path

import pytest

from conftest import ROOT, need
from porter.mappings.index import read_table, tables_dir
from porter.mappings.model import parse_version

sys.path.insert(0, str(ROOT / "scripts"))
from cuda_names import header_files, header_identifiers  # noqa: E402

CORE = ("runtime", "driver", "device", "lowp", "headers")
CUDA_INCLUDE = Path("/usr/local/cuda/include")


def _rows(area):
    return read_table(tables_dir() / f"{area}.csv")


@pytest.fixture(scope="session")
def core_rows():
    return {a: _rows(a) for a in CORE}


def _clang_hip_headers() -> list[Path]:
    dirs = sorted(glob.glob("/usr/lib/llvm-*/lib/clang/*/include"))
    return sorted(Path(dirs[-1]).glob("__clang_hip_*.h")) if dirs else []


@pytest.fixture(scope="session")
def clang_ids():
    files = _clang_hip_headers()
    need(bool(files), "clang's HIP wrapper headers (__clang_hip_math.h) not found")
    return header_identifiers(files)


@pytest.fixture(scope="session")
def hip72_ids(rocm72):
    return header_identifiers(header_files(rocm72 / "include" / "hip"))


@pytest.fixture(scope="session")
def hip64_ids(rocm64):
    return header_identifiers(header_files(rocm64 / "include" / "hip"))


@pytest.fixture(scope="session")
def cuda_ids():
    need(CUDA_INCLUDE.is_dir(), f"CUDA headers not found in {CUDA_INCLUDE}")
    return header_identifiers(header_files(CUDA_INCLUDE))


def _identifier_rows(core_rows):
    for area in ("runtime", "driver", "device", "lowp"):
        for r in core_rows[area]:
            yield area, r


def test_core_tables_have_rows(core_rows):
    for area in CORE:
        assert core_rows[area], area
    assert any(r.status == "supported" for r in core_rows["runtime"])


def test_hip_names_exist_in_rocm72(core_rows, hip72_ids, clang_ids):
    missing = [f"{a}: {r.cuda} -> {r.hip}" for a, r in _identifier_rows(core_rows)
               if r.hip and r.hip not in hip72_ids and r.hip not in clang_ids]
    assert not missing, "\n".join(missing[:50])


def test_hip_names_exist_in_rocm64(core_rows, hip64_ids, clang_ids):
    missing = [f"{a}: {r.cuda} -> {r.hip}" for a, r in _identifier_rows(core_rows)
               if r.hip and r.since <= parse_version("6.4")
               and r.hip not in hip64_ids and r.hip not in clang_ids]
    assert not missing, "\n".join(missing[:50])


def test_header_paths_exist(core_rows, rocm72, rocm64):
    missing = []
    for r in core_rows["headers"]:
        assert r.kind == "header", r
        if not r.hip:
            continue
        if not (rocm72 / "include" / r.hip).is_file():
            missing.append(f"{r.cuda} -> {r.hip} (7.2)")
        if r.since <= parse_version("6.4") and not (rocm64 / "include" / r.hip).is_file():
            missing.append(f"{r.cuda} -> {r.hip} (6.4)")
    assert not missing, "\n".join(missing)


def test_cuda_names_exist(core_rows, cuda_ids):
    missing = [f"{a}: {r.cuda}" for a, r in _identifier_rows(core_rows)
               if r.status != "removed" and r.cuda not in cuda_ids]
    assert not missing, "\n".join(missing[:50])


def test_cuda_headers_exist(core_rows):
    need(CUDA_INCLUDE.is_dir(), f"CUDA headers not found in {CUDA_INCLUDE}")
    missing = [r.cuda for r in core_rows["headers"] if not (CUDA_INCLUDE / r.cuda).is_file()]
    assert not missing, missing


def test_sync_warp_rows(core_rows):
    """The _sync warp builtins: whole-wavefront form before ROCm 7.0, the _sync name from 7.0."""
    by = {}
    for r in core_rows["device"]:
        by.setdefault(r.cuda, []).append(r)
    for name in ("__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
                 "__ballot_sync", "__any_sync", "__all_sync"):
        rows = sorted(by[name], key=lambda r: r.since)
        assert [(r.hip, r.transform, r.hip_since) for r in rows] == [
            (name[:-5], "drop_arg0", ""), (name, "", "7.0")], name


def test_symbol_apis(core_rows):
    by = {r.cuda: r for r in core_rows["runtime"]}
    for name in ("cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaMemcpyToSymbolAsync",
                 "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress", "cudaGetSymbolSize"):
        want = "symbol_arg0" if "ToSymbol" in name else "symbol_arg1"   # where the symbol sits
        assert by[name].transform == want, name
        assert by[name].hip == "hip" + name[4:]
