"""Configuration macros (mapping rows of kind `config_macro`): switches a project defines,
#undefs or passes with -D to configure the CUDA headers (cuda_fp16.h's
`__CUDA_NO_HALF_OPERATORS__`). Their `#define` and `#undef` are ported like their tests, to the
switch HIP's headers test; an `#undef` of an API name (a shim's) is still left alone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import rocm_prefix

from porter.engine import EngineOptions, process_one
from porter.mappings.index import load_index
from porter.rewrite.cuda import project_names

INDEX = load_index()
CONFIG = sorted(
    n for n, rows in INDEX.by_name.items() if any(r.kind == "config_macro" for r in rows)
)
PORTED = [n for n in CONFIG if INDEX.pick(INDEX.by_name[n], (7, 2)).hip]
LEFT = [n for n in CONFIG if not INDEX.pick(INDEX.by_name[n], (7, 2)).hip]
# torch.utils.cpp_extension (torch 2.13) builds ROCm extensions with these, as it passes
# -D__CUDA_NO_HALF_OPERATORS__ ... to nvcc: a source that needs the operators #undefs them
TORCH_HIP_FLAGS = ("-D__HIP_NO_HALF_OPERATORS__=1", "-D__HIP_NO_HALF_CONVERSIONS__=1")


def _source(names: list[str]) -> bytes:
    lines = [f"#define {n} 1" for n in names] + ["#include <cuda_fp16.h>"]
    lines += [f"#ifdef {n}\n#endif" for n in names] + [f"#undef {n}" for n in names]
    # a shim of API names: its #undef and #define stay (a function and a macro row)
    lines += ["#undef cudaMalloc", "#define cudaMalloc my_malloc"]
    lines += ["#undef CU_STREAM_PER_THREAD", "#define CU_STREAM_PER_THREAD my_stream"]
    return ("\n".join(lines) + "\n").encode()


def test_the_class_is_in_the_tables():
    assert {
        "__CUDA_NO_HALF_OPERATORS__",
        "__CUDA_NO_HALF_CONVERSIONS__",
        "CUDA_NO_HALF",
        "CUDA_API_PER_THREAD_DEFAULT_STREAM",
    } <= set(PORTED)
    assert {"__CUDA_NO_HALF2_OPERATORS__", "__CUDA_NO_BFLOAT16_OPERATORS__"} <= set(LEFT)


@pytest.mark.parametrize("version", ["7.2", "6.4"])
def test_hip_switches_are_what_hips_headers_test(version: str):
    """Each HIP name is a switch HIP's own headers (hip/amd_detail: amd_hip_fp16.h,
    amd_hip_runtime_pt_api.h) test (`defined(NAME)`, `#ifdef NAME`) and never define."""
    folder = rocm_prefix(version) / "include/hip/amd_detail"
    text = "\n".join(p.read_text(errors="replace") for p in sorted(folder.glob("*.h")))
    for name in PORTED:
        hip = INDEX.pick(INDEX.by_name[name], (7, 2)).hip
        assert re.search(rf"defined\s*\(\s*{hip}\s*\)|#\s*ifn?def\s+{hip}\b", text), hip
        assert not re.search(rf"#\s*define\s+{hip}\b", text), hip


def test_define_test_and_undef_are_ported_shims_are_not():
    src = _source(CONFIG)
    res = process_one("ext.cu", src, EngineOptions())
    out = res.new_data.decode()
    for name in PORTED:
        hip = INDEX.pick(INDEX.by_name[name], (7, 2)).hip
        for form in ("#define {} 1", "#ifdef {}", "#undef {}"):
            assert form.format(hip) in out and form.format(name) not in out, (name, form)
    reported = [(f.name, f.line) for f in res.findings if f.code == "PT002"]
    lines = src.decode().splitlines()
    for name in LEFT:  # no HIP switch: each #define, test and #undef is reported, not dropped
        want = [i + 1 for i, ln in enumerate(lines) if re.search(rf"\b{name}\b", ln)]
        assert sorted(line for n, line in reported if n == name) == want, name
    for shim in (
        "#undef cudaMalloc",
        "#define cudaMalloc my_malloc",
        "#undef CU_STREAM_PER_THREAD",
    ):
        assert shim in out, shim
    assert not [f for f in res.findings if f.code == "PT001"]
    again = process_one("ext.cu", res.new_data, EngineOptions())
    assert again.new_data == res.new_data  # idempotent


def test_a_config_header_does_not_make_them_project_names():
    data = b"#pragma once\n#define __CUDA_NO_HALF_OPERATORS__\n#define CUDA_NO_HALF\n"
    data += b"typedef int cudaStream_t;\n"
    assert project_names("cfg.h", data, INDEX) == frozenset({"cudaStream_t"})


def test_ported_switches_compile(tmp_path: Path, hip_clang: str):
    """With torch's ROCm flags, `#undef __CUDA_NO_HALF_CONVERSIONS__` must reach HIP's switch
    (the conversion below needs it), and `#define __CUDA_NO_HALF_OPERATORS__` too (the file's
    own `operator+` clashes with HIP's otherwise)."""
    src = (
        b"#undef __CUDA_NO_HALF_CONVERSIONS__\n#define __CUDA_NO_HALF_OPERATORS__\n"
        b"#include <cuda_fp16.h>\n"
        b"__device__ __half operator+(const __half& a, const __half& b) { return __hadd(a, b); }\n"
        b"__global__ void k(__half* x, float f) { x[0] = x[0] + x[1]; x[2] = f; }\n"
    )
    out = process_one("k.cu", src, EngineOptions()).new_data
    assert b"__CUDA_NO" not in out
    usr = rocm_prefix("7.2")
    (tmp_path / "k.hip").write_bytes(out)
    cmd = [
        hip_clang,
        "-x",
        "hip",
        "-std=c++17",
        f"--rocm-path={usr}",
        f"--hip-device-lib-path={usr}/lib/llvm-22/lib/clang/22/amdgcn/bitcode",
        "-isystem",
        str(usr / "include"),
        "--offload-arch=gfx942",
        *TORCH_HIP_FLAGS,
        "-c",
        "k.hip",
        "-o",
        "k.o",
    ]
    run = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]


@pytest.mark.parametrize("name", PORTED)
def test_each_switch_alone(name: str):
    res = process_one("a.cu", f"#undef {name}\n#include <cuda_fp16.h>\n".encode(), EngineOptions())
    hip = INDEX.pick(INDEX.by_name[name], (7, 2)).hip
    assert f"#undef {hip}\n".encode() in res.new_data


def test_per_thread_default_stream_reaches_hip(tmp_path: Path, hip_clang: str):
    """`#define CUDA_API_PER_THREAD_DEFAULT_STREAM` before the runtime header makes CUDA's calls
    use the per-thread default stream; ported, HIP's switch does the same: the preprocessed
    port calls hipMemcpy's per-thread form (amd_hip_runtime_pt_api.h)."""
    src = (
        b"#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1\n#include <cuda_runtime.h>\n"
        b"void copy(void* d, const void* s, size_t n) {\n"
        b"    cudaMemcpy(d, s, n, cudaMemcpyHostToDevice);\n}\n"
    )
    out = process_one("copy.cu", src, EngineOptions()).new_data
    assert b"#define HIP_API_PER_THREAD_DEFAULT_STREAM 1" in out
    usr = rocm_prefix("7.2")
    (tmp_path / "copy.hip").write_bytes(out)
    cmd = [hip_clang, "-x", "hip", "-std=c++17", f"--rocm-path={usr}", "-isystem"]
    cmd += [str(usr / "include"), "--offload-arch=gfx942", "--cuda-host-only", "-E", "copy.hip"]
    run = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    body = run.stdout[run.stdout.rindex("void copy(") :]
    assert "hipMemcpy_spt(" in body, body[:400]
