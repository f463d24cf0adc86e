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
    return Row(cuda, hip, "", "function", "supported", "", "", "", transform, "",
               "test row", "runtime")


# the shapes of cuda_runtime.h's C++ section (CUDA 13) and HIP's matching functions
ROWS = [
    _row("cudaEventCreate", "hipEventCreate", "args:2=hipEventCreateWithFlags"),
    _row("cudaGraphInstantiate", "hipGraphInstantiateWithFlags",
         "default_arg:2:0|args:5=hipGraphInstantiate"),
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


@pytest.mark.parametrize("call, want", [
    ("cudaEventCreate(&e)", "hipEventCreate(&e)"),
    ("cudaEventCreate(&e, 2u)", "hipEventCreateWithFlags(&e, 2u)"),
    ("cudaGraphInstantiate(&x, g)", "hipGraphInstantiateWithFlags(&x, g, 0)"),
    ("cudaGraphInstantiate(&x, g, 0)", "hipGraphInstantiateWithFlags(&x, g, 0)"),
    # the CUDA 11 form: HIP keeps it under the plain name (5 arguments)
    ("cudaGraphInstantiate(&x, g, NULL, NULL, 0)", "hipGraphInstantiate(&x, g, NULL, NULL, 0)"),
    ("cudaGraphLaunch(x, s)", "hipGraphLaunch(x, s)"),
    ("cudaMalloc3DArray(&a, &d, e)", "hipMalloc3DArray(&a, &d, e, 0)"),
    ("cudaMalloc3DArray(&a, &d, e, f)", "hipMalloc3DArray(&a, &d, e, f)"),
])
def test_each_call_form_gets_its_hip_name(call, want):
    out, findings = _port(f"void f() {{ {call}; }}\n")
    assert out == f"void f() {{ {want}; }}\n" and not findings


@pytest.mark.parametrize("call", [
    "cudaGraphLaunch(x)",                        # outside the arity the row states
    "cudaMalloc3DArray(&a, &d, e, f, g)",        # more than CUDA's defaulted form
])
def test_a_call_form_no_transform_covers_is_reported_not_rewritten(call):
    out, findings = _port(f"void f() {{ {call}; }}\n")
    assert out == f"void f() {{ {call}; }}\n"
    assert [f.code for f in findings] == ["PT002"] and "-argument form" in findings[0].message


def test_the_real_table_no_longer_turns_the_cuda11_form_into_a_three_argument_call():
    """Whatever the tables say about the 5-argument form, it never becomes WithFlags."""
    from porter.engine import EngineOptions, process_one
    src = (b"void f(cudaGraphExec_t* x, cudaGraph_t g) "
           b"{ cudaGraphInstantiate(x, g, NULL, NULL, 0); }\n")
    out = process_one("t.cpp", src, EngineOptions(run_rules=False)).new_data
    assert b"hipGraphInstantiateWithFlags(x, g, NULL, NULL, 0)" not in out
