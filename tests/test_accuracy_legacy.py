"""Legacy CUDA driver API names (issue 8 §3): a name an older CUDA declared is decided like any
other, mapped where HIP has it and reported as unsupported with a reason where it has not, never
"left unchanged without a decision" (PT001)."""

from __future__ import annotations

import re

from conftest import ROOT

from porter.engine import EngineOptions, process_one
from porter.mappings.index import load_index

OLDER = ROOT / "scripts" / "data" / "api" / "cuda_older.tsv"
# the driver API's spellings (cuda.h, cudaProfiler.h): CU_* and CUDA_* constants and structs,
# cu* functions, CU* types; not CUB's CUDA_CUB_* macros nor library names (cuSPARSE)
DRIVER = re.compile(r"^(?:CU_\w+|CUDA_(?!CUB_)\w+|cu[A-Z][a-z]\w*|CU[a-z]\w*)$")


def test_every_driver_name_of_an_older_cuda_has_a_row():
    index = load_index()
    missing = []
    for line in OLDER.read_text().splitlines():
        if line.startswith(("#", "<")) or "\t" not in line:
            continue
        name, releases = line.split("\t")
        if DRIVER.match(name) and name not in index.by_name:
            missing.append(f"{name} (CUDA {releases})")
    assert not missing, "no row: " + ", ".join(missing)


# pycuda's forms (src/wrapper/wrap_cudadrv.cpp, src/cpp/cuda.hpp), version guards included
PYCUDA = b"""#include <cuda.h>
#include <cudaProfiler.h>
#define CUDAPP_CUDA_VERSION CUDA_VERSION
int jit_target(int i) {
  switch (i) {
#if CUDAPP_CUDA_VERSION <= 8000
    case 0: return CU_TARGET_COMPUTE_10;
    case 1: return CU_TARGET_COMPUTE_11;
    case 2: return CU_TARGET_COMPUTE_12;
    case 3: return CU_TARGET_COMPUTE_13;
#endif
    case 4: return CU_TARGET_COMPUTE_20;
    case 5: return CU_TARGET_COMPUTE_21;
  }
  return -1;
}
const char* describe(CUresult e) {
  switch (e) {
#if (CUDAPP_CUDA_VERSION >= 3000) && (CUDAPP_CUDA_VERSION < 3020)
    case CUDA_ERROR_POINTER_IS_64BIT: return "64-bit pointer";
    case CUDA_ERROR_SIZE_IS_64BIT: return "64-bit size";
#endif
    default: return "other";
  }
}
int modes() { return CU_COMPUTEMODE_EXCLUSIVE + CU_OUT_CSV + CU_OUT_KEY_VALUE_PAIR; }
CUresult init(const char* c, const char* o, CUoutput_mode m) {
  return cuProfilerInitialize(c, o, m);
}
"""
UNSUPPORTED = [
    "CU_TARGET_COMPUTE_10",
    "CU_TARGET_COMPUTE_11",
    "CU_TARGET_COMPUTE_12",
    "CU_TARGET_COMPUTE_13",
    "CU_TARGET_COMPUTE_20",
    "CU_TARGET_COMPUTE_21",
    "CUDA_ERROR_POINTER_IS_64BIT",
    "CUDA_ERROR_SIZE_IS_64BIT",
    "CU_OUT_CSV",
    "CU_OUT_KEY_VALUE_PAIR",
    "CUoutput_mode",
    "cuProfilerInitialize",
]


def test_pycuda_legacy_names_are_decided():
    res = process_one("wrap.cpp", PYCUDA, EngineOptions())
    out = res.new_data.decode()
    assert not [f.message for f in res.findings if f.code == "PT001"]
    reported = {f.name: f.message for f in res.findings if f.code == "PT002"}
    for name in UNSUPPORTED:
        assert name in reported, name
        # a reason, not only "no mapping": the row's notes follow the verdict
        assert reported[name].split("left unchanged")[1].strip(": "), reported[name]
    assert "hipComputeModeExclusive" in out and "CU_COMPUTEMODE_EXCLUSIVE" not in out


def test_fp16_configuration_macros_are_decided():
    """cuda_fp16.h's user switches (CUDA_NO_HALF, __CUDA_NO_HALF_OPERATORS__ ...), which PyTorch
    extensions define or test: HIP's where amd_hip_fp16.h tests one, reported otherwise."""
    src = (
        b"#include <cuda_fp16.h>\n#ifndef __CUDA_NO_HALF_OPERATORS__\n#endif\n"
        b"#if defined(__CUDA_NO_HALF_CONVERSIONS__)\n#endif\n"
        b"#if !defined(CUDA_NO_HALF)\nhalf h;\n#endif\n"
        b"#ifdef __CUDA_NO_HALF2_OPERATORS__\n#endif\n#ifdef __CUDA_NO_BFLOAT16_OPERATORS__\n"
        b"#endif\n"
    )
    res = process_one("ext.cu", src, EngineOptions())
    out = res.new_data.decode()
    for hip in ("__HIP_NO_HALF_OPERATORS__", "__HIP_NO_HALF_CONVERSIONS__", "HIP_NO_HALF"):
        assert hip in out
    assert not [f for f in res.findings if f.code == "PT001"]
    assert {f.name for f in res.findings if f.code == "PT002"} >= {
        "__CUDA_NO_HALF2_OPERATORS__",
        "__CUDA_NO_BFLOAT16_OPERATORS__",
    }
