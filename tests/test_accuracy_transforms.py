"""Call transforms check the call's argument count, and C++ overloads of the CUDA runtime
(another arity) map to their own HIP name (issue 8 §2)."""

from __future__ import annotations

import pytest

from porter.mappings.index import MappingIndex
from porter.mappings.model import Row, valid_transform
from porter.rewrite.cuda import CudaRewriter, PortOptions
from porter.rewrite.edits import apply
from porter.source import SourceFile


def _row(cuda: str, hip: str, transform: str = "") -> Row:
    return Row(
        cuda, hip, "", "function", "supported", "", "", "", transform, "", "test row", "runtime"
    )


# the shapes of cuda_runtime.h's C++ section (CUDA 13) and HIP's matching functions
ROWS = [
    _row("cudaEventCreate", "hipEventCreate", "args:2=hipEventCreateWithFlags"),
    _row(
        "cudaGraphInstantiate",
        "hipGraphInstantiateWithFlags",
        "default_arg:2:0|args:5=hipGraphInstantiate",
    ),
    _row("cudaGraphLaunch", "hipGraphLaunch", "arity:2-2"),
    _row("cudaMalloc3DArray", "hipMalloc3DArray", "default_arg:3:0"),
]


def _port(text: str) -> tuple[str, list]:
    index = MappingIndex.build({"runtime": ROWS})
    rw = CudaRewriter(index, PortOptions(add_runtime_include=False))
    data = text.encode()
    res = rw.run(SourceFile("t.cpp", data))
    return apply(data, res.edits.edits).decode(), res.findings


def test_transform_grammar():
    assert valid_transform("default_arg:2:0|args:5=hipGraphInstantiate")
    assert valid_transform("drop_arg0|arity:3-4")
    assert not valid_transform("args:x=hipFoo") and not valid_transform("drop_arg0|nonsense")


@pytest.mark.parametrize(
    "call, want",
    [
        ("cudaEventCreate(&e)", "hipEventCreate(&e)"),
        ("cudaEventCreate(&e, 2u)", "hipEventCreateWithFlags(&e, 2u)"),
        ("cudaGraphInstantiate(&x, g)", "hipGraphInstantiateWithFlags(&x, g, 0)"),
        ("cudaGraphInstantiate(&x, g, 0)", "hipGraphInstantiateWithFlags(&x, g, 0)"),
        # the CUDA 11 form: HIP keeps it under the plain name (5 arguments)
        ("cudaGraphInstantiate(&x, g, NULL, NULL, 0)", "hipGraphInstantiate(&x, g, NULL, NULL, 0)"),
        ("cudaGraphLaunch(x, s)", "hipGraphLaunch(x, s)"),
        ("cudaMalloc3DArray(&a, &d, e)", "hipMalloc3DArray(&a, &d, e, 0)"),
        ("cudaMalloc3DArray(&a, &d, e, f)", "hipMalloc3DArray(&a, &d, e, f)"),
    ],
)
def test_each_call_form_gets_its_hip_name(call, want):
    out, findings = _port(f"void f() {{ {call}; }}\n")
    assert out == f"void f() {{ {want}; }}\n" and not findings


@pytest.mark.parametrize(
    "call",
    [
        "cudaGraphLaunch(x)",  # outside the arity the row states
        "cudaMalloc3DArray(&a, &d, e, f, g)",  # more than CUDA's defaulted form
    ],
)
def test_a_call_form_no_transform_covers_is_reported_not_rewritten(call):
    out, findings = _port(f"void f() {{ {call}; }}\n")
    assert out == f"void f() {{ {call}; }}\n"
    assert [f.code for f in findings] == ["PT002"] and "-argument form" in findings[0].message


def test_the_real_table_no_longer_turns_the_cuda11_form_into_a_three_argument_call():
    """Whatever the tables say about the 5-argument form, it never becomes WithFlags."""
    from porter.engine import EngineOptions, process_one

    src = (
        b"void f(cudaGraphExec_t* x, cudaGraph_t g) "
        b"{ cudaGraphInstantiate(x, g, NULL, NULL, 0); }\n"
    )
    out = process_one("t.cpp", src, EngineOptions(run_rules=False)).new_data
    assert b"hipGraphInstantiateWithFlags(x, g, NULL, NULL, 0)" not in out


# drop_null_arg:N: an argument HIP has no parameter for, dropped only when it is a null literal
NULL_ROWS = [
    _row(
        "cuOccupancyMaxPotentialBlockSize",
        "hipModuleOccupancyMaxPotentialBlockSize",
        "arity:6-6|drop_null_arg:3",
    ),
    _row("cuLastArg", "hipLastArg", "drop_null_arg:2"),
]


def _port_rows(rows: list[Row], text: str) -> tuple[str, list]:
    index = MappingIndex.build({"driver": rows})
    rw = CudaRewriter(index, PortOptions(add_runtime_include=False))
    data = text.encode()
    res = rw.run(SourceFile("t.cpp", data))
    return apply(data, res.edits.edits).decode(), res.findings


@pytest.mark.parametrize(
    "null", ["0", "NULL", "nullptr", "0L", "(CUoccupancyB2DSize)0", "( NULL )", "(void*)0"]
)
def test_a_null_argument_hip_lacks_is_dropped(null):
    out, findings = _port_rows(
        NULL_ROWS,
        f"void f() {{ cuOccupancyMaxPotentialBlockSize(&g, &b, fn, {null}, "
        f"64, 0); cuLastArg(a, b, {null}); }}",
    )
    assert out == (
        "void f() { hipModuleOccupancyMaxPotentialBlockSize(&g, &b, fn, 64, 0); hipLastArg(a, b); }"
    )
    assert not findings


@pytest.mark.parametrize(
    "call",
    [
        "cuOccupancyMaxPotentialBlockSize(&g, &b, fn, smem_for, 64, 0)",  # a real callback
        "cuOccupancyMaxPotentialBlockSize(&g, &b, fn, cb ? cb : 0, 64, 0)",
        "cuOccupancyMaxPotentialBlockSize(&g, &b, fn, 0, 64)",  # another arity
        "cuLastArg(a, b, 1)",
    ],
)
def test_a_non_null_argument_hip_lacks_is_reported_at_the_call(call):
    out, findings = _port_rows(NULL_ROWS, f"void f() {{ {call}; }}")
    assert out == f"void f() {{ {call}; }}"
    assert [f.code for f in findings] == ["PT002"]
    if "0, 64)" not in call:
        assert "is not a null pointer" in findings[0].message


@pytest.mark.parametrize(
    "call, want",
    [
        # the real tables (mappings/runtime.csv, device.csv, driver.csv), checked against ROCm 7.2's
        # hip_runtime_api.h; fixtures/port/default/input/call_forms.cu compiles each for gfx942
        ("cudaGraphInstantiate(&x, g)", "hipGraphInstantiateWithFlags(&x, g, 0)"),
        ("cudaGraphInstantiate(&x, g, 1)", "hipGraphInstantiateWithFlags(&x, g, 1)"),
        ("cudaGraphInstantiate(&x, g, NULL, NULL, 0)", "hipGraphInstantiate(&x, g, NULL, NULL, 0)"),
        ("cudaMallocAsync(&p, n, s)", "hipMallocAsync(&p, n, s)"),
        ("cudaMallocAsync(&p, n, pool, s)", "hipMallocFromPoolAsync(&p, n, pool, s)"),
        ("cudaMemcpyToSymbol(t, h, n)", "hipMemcpyToSymbol(HIP_SYMBOL(t), h, n)"),
        ("cudaMemcpyFromSymbol(h, t, n, 0, k)", "hipMemcpyFromSymbol(h, HIP_SYMBOL(t), n, 0, k)"),
        (
            "cudaMemcpyToSymbolAsync(t, h, n, 0, k)",
            "hipMemcpyToSymbolAsync(HIP_SYMBOL(t), h, n, 0, k)",
        ),
        (
            "cuOccupancyMaxPotentialBlockSizeWithFlags(&g, &b, f, NULL, 0, 0, 0)",
            "hipModuleOccupancyMaxPotentialBlockSizeWithFlags(&g, &b, f, 0, 0, 0)",
        ),
    ],
)
def test_real_call_forms(call, want):
    from porter.engine import EngineOptions, process_one

    out = process_one("t.cpp", f"void f() {{ {call}; }}\n".encode(), EngineOptions(run_rules=False))
    assert out.new_data.decode().endswith(f"void f() {{ {want}; }}\n")
    assert not [f for f in out.findings if f.code in ("PT001", "PT002")]


@pytest.mark.parametrize(
    "call",
    [
        "cudaMemcpyToSymbol(t, h)",
        "cudaMemcpyToSymbolAsync(t, h, n, 0)",
        "cudaMallocAsync(&p, n)",
        "__shfl_sync(m, v)",
        "__ballot_sync(m)",
        "__shfl_down_sync(m, v, 1, 32, 0)",
    ],
)
def test_real_tables_report_a_call_outside_cuda_arity(call):
    from porter.engine import EngineOptions, process_one

    for version in ((6, 4), (7, 2)):
        opts = EngineOptions(run_rules=False, port=PortOptions(rocm_version=version))
        res = process_one("t.cu", f"__device__ void f() {{ {call}; }}\n".encode(), opts)
        assert f"{{ {call}; }}" in res.new_data.decode(), version
        assert [f.code for f in res.findings] == ["PT002"], version
