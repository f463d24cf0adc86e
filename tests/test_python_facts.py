"""The Python facts rules share (`porter.analysis.python.PyFacts`, `ctx.py_facts`): computed
once per file, on first use, and the CUDA C++ carriers told apart (literal or built at run time)."""

from __future__ import annotations

import ast

import pytest

from porter.parse.python import parse
from porter.rules.base import RuleContext, RuleOptions
from porter.source import SourceFile

CUPY = b"""import cupy as cp
import triton
import triton.language as tl

HEAD = "extern \\"C\\" __global__ "
BODY = HEAD + "void a(float* x) { x[threadIdx.x] = 1.0f; }"


def kernels(dtype, n):
    lit = cp.RawKernel(r"extern \\"C\\" __global__ void b(float* x) {}", "b")
    cat = cp.RawKernel(BODY, "a")
    fmt = cp.RawKernel(f"__global__ void c({dtype}* x) {{}}", "c")
    run = cp.RawKernel(make_source(dtype), "d")
    ew = cp.ElementwiseKernel("T x", "T y", "y = x;", "copy")
    return lit, cat, fmt, run, ew


configs = [triton.Config({"BLOCK": b}, num_warps=w) for b in (64, 128) for w in (4, 8)]


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.zeros((BLOCK,), tl.float32))


def launch(x):
    k[(1,)](x, BLOCK=64, num_warps=4)
"""


def _ctx(data: bytes) -> RuleContext:
    src = parse(data)
    return RuleContext(SourceFile("t.py", src.buf), None, RuleOptions(), py_source=src)


def _var(data: bytes, node: ast.AST) -> str:
    """The name the line of `node` assigns (`lit = cp.RawKernel(...)` -> "lit")."""
    return data.splitlines()[node.lineno - 1].split(b"=")[0].strip().decode()  # type: ignore[attr-defined]


def test_facts_are_computed_once_per_context():
    ctx = _ctx(CUPY)
    facts = ctx.py_facts
    assert ctx.py_facts is facts
    assert facts.refs is facts.refs and facts.configs is facts.configs
    assert facts.launches is facts.launches and facts.embedded is facts.embedded
    stores = facts.calls("triton.language.store")
    assert stores is facts.calls("triton.language.store") and len(stores) == 1
    assert facts.calls("triton.language.load") == []


def test_configs_and_launches_are_folded():
    facts = _ctx(CUPY).py_facts
    ((_, values),) = facts.configs
    assert sorted((v.meta["BLOCK"], v.get("num_warps")) for v in values) == [
        (64, 4),
        (64, 8),
        (128, 4),
        (128, 8),
    ]
    ((_, launch),) = facts.launches
    assert launch.get("num_warps") == 4


def test_carriers_literal_or_built_at_run_time():
    emb = _ctx(CUPY).py_facts.embedded
    read = [(_var(CUPY, s.call), s.carrier, s.kind, len(s.leaves)) for s in emb.sources]
    assert read == [
        ("lit", "cupy.RawKernel", "source", 1),
        ("cat", "cupy.RawKernel", "source", 2),  # HEAD + "...": two constants
        ("ew", "cupy.ElementwiseKernel", "body", 1),
    ]
    dynamic = sorted((_var(CUPY, c), why) for c, why in emb.dynamic)
    assert dynamic == [("fmt", "built by an f-string"), ("run", "built at run time")]
    call = emb.dynamic[0][0]
    emb.mark_dynamic(call, "again")  # once per call
    assert len(emb.dynamic) == len(dynamic)


def test_no_carrier_without_cupy_or_cpp_extension():
    data = b"import triton\nimport numba.cuda\nx = RawKernel(make(), 'k')\n"
    emb = _ctx(data).py_facts.embedded
    assert emb.sources == [] and emb.dynamic == []


def test_py_facts_need_the_parsed_source():
    ctx = RuleContext(SourceFile("t.py", b"import triton\n"), None, RuleOptions())
    with pytest.raises(ValueError, match="parsed Python source"):
        _ = ctx.py_facts
