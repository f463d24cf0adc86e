"""The core tables (runtime, driver, device, lowp, headers) against the real headers.

HIP names must exist in the ROCm 7.2 headers (and in 6.4) where the row is in force there;
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
    missing = [
        f"{a}: {r.cuda} -> {r.hip}"
        for a, r in _identifier_rows(core_rows)
        if r.hip and r.present_in((7, 2)) and r.hip not in hip72_ids and r.hip not in clang_ids
    ]
    assert not missing, "\n".join(missing[:50])


def test_hip_names_exist_in_rocm64(core_rows, hip64_ids, clang_ids):
    missing = [
        f"{a}: {r.cuda} -> {r.hip}"
        for a, r in _identifier_rows(core_rows)
        if r.hip
        and r.present_in(parse_version("6.4"))
        and r.hip not in hip64_ids
        and r.hip not in clang_ids
    ]
    assert not missing, "\n".join(missing[:50])


def test_header_paths_exist(core_rows, rocm72, rocm64):
    missing = []
    for r in core_rows["headers"]:
        assert r.kind == "header", r
        if not r.hip:
            continue
        if r.present_in((7, 2)) and not (rocm72 / "include" / r.hip).is_file():
            missing.append(f"{r.cuda} -> {r.hip} (7.2)")
        if r.present_in((6, 4)) and not (rocm64 / "include" / r.hip).is_file():
            missing.append(f"{r.cuda} -> {r.hip} (6.4)")
    assert not missing, "\n".join(missing)


def test_cuda_names_exist(core_rows, cuda_ids):
    missing = [
        f"{a}: {r.cuda}"
        for a, r in _identifier_rows(core_rows)
        if r.status != "removed" and r.cuda not in cuda_ids
    ]
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
    for name in (
        "__shfl_sync",
        "__shfl_up_sync",
        "__shfl_down_sync",
        "__shfl_xor_sync",
        "__ballot_sync",
        "__any_sync",
        "__all_sync",
    ):
        rows = sorted(by[name], key=lambda r: r.since)
        # CUDA's arity (sm_30_intrinsics.h: mask, value, lane[, width]; mask, predicate)
        arity = "arity:2-2" if name[2] in "ba" else "arity:3-4"
        assert [(r.hip, r.transform, r.hip_since) for r in rows] == [
            (name[:-5], f"{arity}|drop_arg0", ""),
            (name, arity, "7.0"),
        ], name


def test_symbol_apis(core_rows):
    by = {r.cuda: r for r in core_rows["runtime"]}
    for name in (
        "cudaMemcpyToSymbol",
        "cudaMemcpyFromSymbol",
        "cudaMemcpyToSymbolAsync",
        "cudaMemcpyFromSymbolAsync",
        "cudaGetSymbolAddress",
        "cudaGetSymbolSize",
    ):
        want = "symbol_arg0" if "ToSymbol" in name else "symbol_arg1"  # where the symbol sits
        assert want in by[name].transform.split("|"), name
        assert by[name].hip == "hip" + name[4:]


def test_driver_values_follow_their_runtime_twins(core_rows):
    """Driver enumerators and flags take the HIP name of the runtime value with the same number."""
    by = {r.cuda: r for a in ("runtime", "driver") for r in core_rows[a]}
    want = {
        "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK": "hipDeviceAttributeMaxThreadsPerBlock",
        "CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK": "hipDeviceAttributeMaxRegistersPerBlock",
        "CU_CTX_SCHED_SPIN": "hipDeviceScheduleSpin",
        "CU_CTX_MAP_HOST": "hipDeviceMapHost",
        "CU_MEMHOSTALLOC_PORTABLE": by["cudaHostAllocPortable"].hip,
        "CU_MEMHOSTREGISTER_PORTABLE": "hipHostRegisterPortable",
        "CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK": "hipDevP2PAttrPerformanceRank",
        "CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC": "hipMemPoolReuseAllowOpportunistic",
        "CU_JIT_MAX_REGISTERS": "hipJitOptionMaxRegisters",
        "cudaJitMaxRegisters": "hipJitOptionMaxRegisters",
        "CUDA_ERROR_LAUNCH_FAILED": "hipErrorLaunchFailure",
        "cuMemAlloc_v2": "hipMalloc",
        "CUdeviceptr_v2": "hipDeviceptr_t",
        "CUDA_MEMCPY2D_st": "hip_Memcpy2D",
        "CUfunc_st": "ihipModuleSymbol_t",
    }
    wrong = {
        k: (by[k].hip if k in by else None)
        for k, v in want.items()
        if k not in by or by[k].hip != v
    }
    assert not wrong, wrong
    # a driver value matched through a runtime twin keeps that twin's HIP name
    for r in core_rows["driver"]:
        if r.notes.startswith("same value as "):
            twin = r.notes.split()[3]
            assert by[twin].hip == r.hip, (r.cuda, twin)


def test_per_dimension_limits_stay_unsupported(core_rows):
    """HIP has one attribute per texture shape for several dimensions: no one-to-one rename."""
    by = {r.cuda: r for a in ("runtime", "driver") for r in core_rows[a]}
    for name in (
        "cudaDevAttrMaxTexture2DLayeredWidth",
        "CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT",
        "cudaDevAttrMaxSurface3DDepth",
        "CUDA_ERROR_EXTERNAL_DEVICE",
        "cudaGraphNodeTypeConditional",
    ):
        assert not by[name].hip, name


def _required_params(text: str, name: str) -> list[int]:
    """Required-parameter counts of every declaration of `name` in a header's text (parameters
    with CUDA's `__dv(x)`, HIP's `__dparm(x)` or `= x` defaults are optional)."""
    import re as _re

    out = []
    for m in _re.finditer(r"\b" + _re.escape(name) + r"\s*\(", text):
        i = j = m.end()
        depth = 1
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        if not _re.match(r"\s*(;|\{|__attribute|HIP_|__THROW)", text[j : j + 30]):
            continue  # a call or a comment, not a declaration
        parts, depth, cur = [], 0, ""
        for ch in text[i : j - 1]:
            depth += {"(": 1, "<": 1, ")": -1, ">": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur.strip() and cur.strip() != "void":
            parts.append(cur)
        out.append(
            sum(1 for p in parts if "__dv(" not in p and "__dparm(" not in p and "=" not in p)
        )
    return out


def test_runtime_calls_keep_compiling_without_cuda_default_arguments(core_rows, rocm72):
    """A CUDA call may omit arguments that have defaults; the HIP function must accept the same
    call (its own defaults, or a default_arg transform that adds them)."""
    cuda = Path("/usr/local/cuda/include") / "cuda_runtime_api.h"
    need(cuda.is_file(), "CUDA toolkit headers not found")
    ctext = cuda.read_text(errors="replace")
    htext = (rocm72 / "include" / "hip" / "hip_runtime_api.h").read_text(errors="replace")
    bad = []
    for r in core_rows["runtime"]:
        if r.kind != "function" or not r.hip or r.transform.startswith("default_arg"):
            continue
        c, h = _required_params(ctext, r.cuda), _required_params(htext, r.hip)
        if c and h and min(c) < min(h):
            bad.append(f"{r.cuda} (CUDA needs {min(c)} arguments) -> {r.hip} (needs {min(h)})")
    assert not bad, "\n".join(bad)
