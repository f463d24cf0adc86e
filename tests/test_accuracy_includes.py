"""What nvcc includes implicitly, where porter adds HIP's runtime header, and elaborated type
specifiers (issue 8 §1, issue 7 §6)."""

from __future__ import annotations

import pytest

from porter.engine import EngineOptions, process_one

INC = b"#include <hip/hip_runtime.h>"


def port(name: str, src: bytes, rules: bool = False) -> bytes:
    return process_one(name, src, EngineOptions(run_rules=rules)).new_data


def port_twice(name: str, src: bytes, rules: bool = False) -> bytes:
    once = port(name, src, rules)
    assert port(name, once, rules) == once, "porting the port changed it"
    return once


@pytest.mark.parametrize("name", ["main.cu", "kernels.cuh"])
def test_cuda_sources_that_use_the_runtime_get_its_header(name):
    """nvcc force-includes cuda_runtime.h in what it compiles as CUDA; hipcc does not."""
    out = port_twice(name, b"#include <cstdio>\nint main() { cudaSetDevice(0); return 0; }\n")
    assert out == INC + b"\n#include <cstdio>\nint main() { hipSetDevice(0); return 0; }\n"


def test_plain_cpp_and_files_that_include_the_api_header_do_not():
    src = b"int main() { cudaSetDevice(0); return 0; }\n"
    assert INC not in port("host.cpp", src)  # g++ never included it either
    out = port("api.cu", b'#include "cuda_runtime_api.h"\n' + src)
    assert INC not in out and out.count(b"hip_runtime_api.h") == 1
    out = port("blas.cu", b"#include <cublas_v2.h>\n" + src)
    assert INC not in out  # hipblas.h includes hip_runtime_api.h


def test_no_include_for_files_that_use_no_runtime_name():
    assert port("x.cu", b"int main() { return 0; }\n") == b"int main() { return 0; }\n"


@pytest.mark.parametrize(
    "src, want",
    [
        # last line without a final newline: the include gets a line of its own
        (
            b"#pragma once\n__global__ void k() {}",
            b"#pragma once\n" + INC + b"\n__global__ void k() {}",
        ),
        (b"#pragma once", None),
        # lone-CR and CRLF files keep their line ending
        (b"__global__ void k() {}\rint x;\r", INC + b"\r__global__ void k() {}\rint x;\r"),
        (
            b"/* c */\r#include <cstdint>\r__global__ void k() {}\r",
            b"/* c */\r" + INC + b"\r#include <cstdint>\r__global__ void k() {}\r",
        ),
        (
            b"// l\r\n#pragma once\r\n__global__ void k() {}\r\n",
            b"// l\r\n#pragma once\r\n" + INC + b"\r\n__global__ void k() {}\r\n",
        ),
        # malformed or shared leading comments: at the top, never inside or after a comment
        (
            b"__global__ void k() {}\n/* unterminated\n",
            INC + b"\n__global__ void k() {}\n/* unterminated\n",
        ),
        # ... but device code inside an unterminated comment is no device code (the
        # preprocessor's lexing: the comment runs to the end of the file)
        (b"/* unterminated\n__global__ void k() {}\n", None),
        (b"/* a */ junk /*\n__global__ void k() {}\n", None),
        (
            b"/* a */ /* b\n */ __global__ void k() {}\n",
            INC + b"\n/* a */ /* b\n */ __global__ void k() {}\n",
        ),
        (
            b"// c\n/* x */ */\n__global__ void k() {}\n",
            b"// c\n" + INC + b"\n/* x */ */\n__global__ void k() {}\n",
        ),
        # inside a header guard with nothing else: right after its #define
        (
            b"#ifndef G\n#define G\n__global__ void k() {}\n#endif",
            b"#ifndef G\n#define G\n" + INC + b"\n__global__ void k() {}\n#endif",
        ),
        # a UTF-8 byte-order mark stays first
        (
            b"\xef\xbb\xbf__global__ void k() {}\n",
            b"\xef\xbb\xbf" + INC + b"\n__global__ void k() {}\n",
        ),
    ],
)
def test_where_the_runtime_include_goes(src, want):
    out = port_twice("k.cuh", src)
    assert out == (src if want is None else want)


@pytest.mark.parametrize(
    "src, want",
    [
        (
            b"void g() { struct cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); }\n",
            b"void g() { hipDeviceProp_t p; hipGetDeviceProperties(&p, 0); }\n",
        ),
        (
            b"int f(const struct cudaPointerAttributes* a);\n",
            b"int f(const hipPointerAttribute_t* a);\n",
        ),
        (
            b"enum cudaMemcpyKind k = cudaMemcpyHostToDevice;\n",
            b"hipMemcpyKind k = hipMemcpyHostToDevice;\n",
        ),
        # a forward declaration keeps its keyword (HIP's tag has the same name here)
        (b"struct cudaDeviceProp;\n", b"struct hipDeviceProp_t;\n"),
    ],
)
def test_elaborated_type_specifiers_are_uses_not_declarations(src, want):
    res = process_one("t.cpp", src, EngineOptions(run_rules=False))
    assert res.new_data == want
    assert not res.declared


def test_a_struct_definition_is_still_the_projects_own():
    res = process_one("t.cpp", b"struct cudaThing { int a; };\n", EngineOptions(run_rules=False))
    assert res.declared == {"cudaThing"} and not res.findings


@pytest.mark.parametrize(
    "src, want",
    [
        (b'#include "cuda_runtime.h"\n', b'#include "hip/hip_runtime.h"\n'),
        (b"#include <cuda_runtime.h>\n", b"#include <hip/hip_runtime.h>\n"),
        (b'#include  "cublas_v2.h" // blas\n', b'#include  "hipblas/hipblas.h" // blas\n'),
    ],
)
def test_a_replaced_include_keeps_the_users_delimiters(src, want):
    """Only the path changes (as hipify-clang does); includes porter adds use angle brackets."""
    assert port("t.h", src) == want


def test_an_interop_header_gets_the_runtime_before_it():
    src = (
        b"#include <GL/gl.h>\n#include <cuda_gl_interop.h>\n#include <cuda_runtime.h>\n"
        b"void f(cudaGraphicsResource_t r);\n"
    )
    out = port_twice("gl.cpp", src)
    assert out == (
        b"#include <GL/gl.h>\n" + INC + b"\n#include <hip/hip_gl_interop.h>\n"
        b"void f(hipGraphicsResource_t r);\n"
    )


@pytest.mark.parametrize(
    "header, hip",
    [
        ("builtin_types.h", "hip/hip_runtime.h"),
        ("driver_functions.h", "hip/driver_types.h"),
        ("host_defines.h", "hip/hip_runtime.h"),
    ],
)
def test_cuda_internal_headers_samples_include(header, hip):
    res = process_one("t.h", f"#include <{header}>\n".encode(), EngineOptions(run_rules=False))
    assert res.new_data == f"#include <{hip}>\n".encode() and not res.findings
