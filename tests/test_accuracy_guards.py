"""What the CUDA headers and nvcc define implicitly: `__CUDACC__` tests that select CUDA language
features, and CUDA header guards used as feature tests (issue 8 §2)."""

from __future__ import annotations

from porter.engine import EngineOptions, process_one


def port(name: str, src: bytes) -> tuple[bytes, list]:
    res = process_one(name, src, EngineOptions())
    return res.new_data, res.findings


HD = (
    b"#ifdef __CUDACC__\n#define HD __host__ __device__\n#else\n#define HD\n#endif\n"
    b"HD inline float sq(float x) { return x * x; }\n"
)


def test_a_cudacc_test_around_cuda_keywords_is_rewritten_by_the_port():
    out, findings = port("m.h", HD)
    assert b"#if defined(__CUDACC__) || defined(__HIPCC__)\n#define HD __host__" in out
    assert [f.extra.get("fixed") for f in findings if f.code == "PT302"] == [True]
    again, _ = port("m.h", out)
    assert again == out


def test_a_cudacc_test_around_plain_code_is_only_reported():
    src = b"#ifdef __CUDACC__\n#include <cstdio>\n#define LOG(x) printf(x)\n#endif\n"
    out, findings = port("m.h", src)
    assert out == src and [f.code for f in findings] == ["PT302"]


def test_cuda_header_guards_used_as_feature_tests_become_hips():
    src = (
        b"#include <cuda_runtime.h>\n#ifdef __CUDA_RUNTIME_H__\n"
        b"inline void check(cudaError_t e) { (void)e; }\n#endif\n"
    )
    out, findings = port("helper.h", src)
    assert out == (
        b"#include <hip/hip_runtime.h>\n#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_H\n"
        b"inline void check(hipError_t e) { (void)e; }\n#endif\n"
    )
    assert [f.code for f in findings] == ["PT305"] and findings[0].extra.get("fixed")


def test_every_hip_guard_porter_writes_is_the_one_rocm_defines(rocm72):
    """The HIP guards are facts of ROCm's headers: read them again from the installed tree."""
    import re

    from porter.rules.header_guards import HIP_GUARDS

    for header, guard in HIP_GUARDS.items():
        text = (rocm72 / "include" / header).read_text()
        assert re.search(rf"^#ifndef {guard}\n#define {guard}\b", text, re.MULTILINE), header
