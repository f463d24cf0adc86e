"""Where a CUDA name sits (issue 8): every position that USES a CUDA name is ported (base classes
and their initializers, template arguments, casts, sizeof, decltype, default template arguments,
qualified names, lambdas), and only the project's own definitions are not. A name the project
declares itself is the project's in the declaration and in every use; a fallback declared under a
test porter ports (a CUDA header guard, `__CUDACC__`) is ported with the name. Each case is a
template filled with several names of the same kind, so the class is under test, not one name."""

from __future__ import annotations

import re

import pytest

from porter.engine import EngineOptions, process_one

# CUDA type names (struct typedefs and opaque handles) and their HIP names (mappings/*.csv)
TYPES = [
    ("CUDA_MEMCPY2D", "hip_Memcpy2D"),
    ("CUDA_MEMCPY3D", "HIP_MEMCPY3D"),
    ("cudaDeviceProp", "hipDeviceProp_t"),
    ("cudaPointerAttributes", "hipPointerAttribute_t"),
    ("cudaStream_t", "hipStream_t"),
    ("CUstream", "hipStream_t"),
    ("cudaEvent_t", "hipEvent_t"),
    ("cudaExtent", "hipExtent"),
]

# T: the CUDA type; each template is a use of it
USES = {
    "base-initializer": "struct D : T { D() : T() {} };",
    "base-initializer-braces": "struct D : public T { int n; D() : T{}, n(0) {} };",
    "private-base": "class D : private T { public: D() : T() {} };",
    "base-template-argument": (
        "template <class X> struct B {}; struct D : B<T> { D() : B<T>() {} };"
    ),
    "member-initializer-argument": "struct D { T m; D() : m(T()) {} };",
    "template-argument": "template <class X> struct B {}; B<T> b;",
    "default-template-argument": "template <class X = T> struct B {}; B<> b;",
    "static-cast": "void f(void* p) { (void)static_cast<T*>(p); }",
    "c-cast": "void f(void* p) { (void)(T*)p; }",
    "sizeof": "unsigned long n = sizeof(T);",
    "decltype": "T x{}; decltype(x) y = x;",
    "global-qualified": "::T x{};",
    "lambda-parameter": "auto l = [](T* x) { return x; };",
    "function-type": "using F = void (*)(T*); F f = nullptr;",
    "new-expression": "void f() { delete new T(); }",
    "elaborated": "void f() { struct T* p = nullptr; (void)p; }",
}


def _port(text: str, name: str = "t.cu"):
    res = process_one(
        name, ("#include <cuda.h>\n#include <cuda_runtime.h>\n" + text).encode(), EngineOptions()
    )
    return res.new_data.decode(), res


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", text))


@pytest.mark.parametrize("use", USES, ids=list(USES))
def test_every_use_of_a_cuda_type_is_ported(use: str):
    for cuda, hip in TYPES:
        if use == "elaborated" and cuda.endswith("_t"):
            continue  # `struct cudaStream_t*` is no C++: handles are pointer typedefs
        out, res = _port(USES[use].replace("T", cuda) + "\n")
        assert cuda not in _words(out), f"{use}: {cuda} left in\n{out}"
        assert hip in _words(out), f"{use}: {hip} missing\n{out}"
        assert not [f for f in res.findings if f.code in ("PT001", "PT002")], (use, cuda)


def test_a_member_named_like_a_cuda_function_is_not_a_base():
    # in a member initializer list a CUDA *function* or enum name can only be a member
    out, res = _port(
        "struct D { int cudaMalloc; int cudaSuccess; D() : cudaMalloc(0), cudaSuccess(1) {} };\n"
    )
    assert out.count("cudaMalloc") == 2 and out.count("cudaSuccess") == 2
    assert not [f for f in res.findings if f.code in ("PT001", "PT002")]


def test_member_access_is_not_an_api_reference():
    out, _ = _port(
        "struct S { int cudaStream_t; }; int f(S s, S* p) "
        "{ return s.cudaStream_t + p->cudaStream_t; }\n"
    )
    assert out.count("cudaStream_t") == 3


# (declaration template, use template): N is the CUDA name
OWN = {
    "typedef": ("typedef int N;", "int f(N x) { return (int)sizeof(N) + x; }"),
    "alias": ("using N = long;", "N g(N x) { return x; }"),
    "struct": ("struct N { int a; };", "int f(N* p) { return p->a + (int)sizeof(N); }"),
    "typedef-struct": ("typedef struct { int a; } N;", "int f(N p) { return p.a; }"),
    "macro": ("#define N 3", "int f() { return N; }"),
}
OWN_NAMES = [
    ("cudaStreamCaptureStatus", "hipStreamCaptureStatus"),
    ("CUdeviceptr", "hipDeviceptr_t"),
    ("__nv_bfloat162", "__hip_bfloat162"),
    ("cudaMemAttachHost", "hipMemAttachHost"),
]
# tests porter ports (PT305 maps the guard, PT302 adds __HIPCC__) and tests it does not
PORTED = [
    "#if defined(__CUDA_BF16_H__)\n#else\n@D\n#endif",
    "#ifndef __CUDA_RUNTIME_H__\n@D\n#endif",
    "#ifdef __DRIVER_TYPES_H__\n#else\n@D\n#endif",
    "#ifndef __CUDACC__\n@D\n#endif",
    # deepspeed's gelu.cu: a comment that says `typedef` just before the alias
    "#if defined(__CUDA_BF16_H__)\n#else\n// typedef only if CUDA lacks it\n@D\n#endif",
]
NOT_PORTED = [
    "@D",
    "// a typedef of our own\n@D",
    "#if CUDART_VERSION < 11000\n@D\n#endif",
    "#ifndef BF16_AVAILABLE\n@D\n#endif",
    "#if 1\n@D\n#endif",
]


def _consistent(kind: str, wrap: str, cuda: str, hip: str) -> tuple[str, str]:
    decl, use = OWN[kind]
    text = wrap.replace("@D", decl.replace("N", cuda)) + "\n" + use.replace("N", cuda) + "\n"
    return _port(text)[0], text


@pytest.mark.parametrize("kind", OWN)
def test_the_projects_own_declaration_keeps_its_name_everywhere(kind: str):
    for wrap in NOT_PORTED:
        for cuda, hip in OWN_NAMES:
            out, text = _consistent(kind, wrap, cuda, hip)
            body = out.split("\n", 1)[1]  # after the (ported) include lines
            assert hip not in _words(body), f"{kind} {wrap!r} {cuda}:\n{out}"
            assert out.count(cuda) == text.count(cuda), f"{kind} {wrap!r} {cuda}:\n{out}"


@pytest.mark.parametrize("kind", OWN)
def test_a_fallback_under_a_ported_guard_is_ported_with_its_uses(kind: str):
    for wrap in PORTED:
        for cuda, hip in OWN_NAMES:
            out, _ = _consistent(kind, wrap, cuda, hip)
            assert cuda not in _words(out), f"{kind} {wrap!r} {cuda}:\n{out}"
            assert hip in _words(out)


def test_a_prototype_of_a_cuda_function_is_not_the_projects_name():
    # `cudaError_t cudaFree(void*);` declares CUDA's function again: its calls are ported
    out, _ = _port('extern "C" cudaError_t cudaFree(void*);\nvoid f(void* p) { cudaFree(p); }\n')
    assert "hipFree(p)" in out
