"""A rule's `wanted` prefilter (porter/rules/base.py `Rule.wanted`) lets the engine skip the rule,
and the parse it would need, on a file where the rule cannot report: on every fixture and
example source, and on cases built for each prefilter, a rule that finds something is wanted."""

from __future__ import annotations

import pytest
from sources import repo_files

from porter.mappings.index import load_index
from porter.parse.cuda import parse
from porter.rewrite.lex import identifiers
from porter.rules.base import Rule, RuleContext, RuleOptions
from porter.rules.registry import all_rules
from porter.source import SourceFile

# each: a case the prefilter must let through (the rule reports on it); the `...skipped`
# ones trigger the rule but give no finding, and the prefilter skips them
CASES = [
    # PT502: a system-scope atomic, thread_scope_system in a function body, a pinned allocation
    # in a file that polls volatile memory
    b"__global__ void k(int* p) { atomicAdd_system(p, 1); }\n",
    b"#include <cuda/atomic>\n__device__ void f(int* p) {\n"
    b"  cuda::atomic_ref<int, cuda::thread_scope_system> r(*p); r.fetch_add(1);\n"
    b"  auto s = cuda::thread_scope_system; (void)s; }\n",
    b"__global__ void k(volatile int* f) { while (*f == 0) {} }\n"
    b"void h() { int* p; cudaMallocHost(&p, 4); }\n",
    # PT206: asm, an SM90 atom, arch::Sm90; a cuda::ptx:: wrapper
    b'__device__ void f() { asm volatile("wgmma.fence.sync.aligned;"); }\n',
    b"using Atom = SM90_64x64x16_F16F16F16_SS<>;\n",
    b"using K = Gemm<cutlass::arch::Sm90, float>;\n",
    b"#include <cuda/ptx>\n__device__ void f(unsigned* b) { cuda::ptx::mbarrier_init(b, 1); }\n",
    # PT207: a TMA identifier
    b"void f(CUtensorMap* m) { cuTensorMapEncodeTiled(m); }\n",
    # PT208: a qualified barrier, an mbarrier intrinsic, a barrier header
    b"__shared__ cuda::barrier<cuda::thread_scope_block> bar;\n",
    b"__device__ void f(unsigned long long* b) { __mbarrier_init(b, 1); }\n",
    b"#include <cuda/std/latch>\nint x;\n",
    b"#include < cuda/semaphore >\nint x;\n",
    # PT808: a host memset in a .cu-like file
    b"#include <cuda_runtime.h>\nvoid f(void* p) { memset(p, 0, 4); }\n",
    # PT203: a pipeline header, a qualified pipeline call, a pipeline intrinsic
    b"#include <cuda/pipeline>\nint x;\n",
    b"__device__ void f(int* d, int* s) { cuda::memcpy_async(d, s, 4, bar); }\n",
    b"__device__ void f() { __pipeline_commit(); }\n",
    # PT204: a CUTLASS SM80 atom, an mma in asm
    b"using Mma = SM80_16x8x16_F32F16F16F32_TN;\n",
    b'__device__ void f() { asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16;"); }\n',
    # PT209: __cluster_dims__, a cluster object's method, a cluster identifier
    b"__global__ void __cluster_dims__(2, 1, 1) k() {}\n",
    b"__global__ void k() { auto c = cg::this_cluster(); c.sync(); }\n",
    b"__device__ void f(cg::cluster_group g) { g.sync(); }\n",
    b"__device__ int* f(X x, int* p) { return x.map_shared_rank(p, 0); }\n",
    b"void f() { cudaLaunchAttributeClusterDimension; }\n",
    # triggered, no finding possible: skipped by the prefilters
    b"int cluster_count; // CLUSTER size\n",
    b"int pipeline_depth; // mma and memcpy_async in a comment\n",
    b"struct __thread_scope_system_tag {}; int thrust_system;\n",
    b"void f(void* p) { __builtin_memcpy(p, p, 0); cudaMemset(p, 0, 4); }\n",
    b"int sm90_count; // wgmma in a comment\nstruct barrier_like {}; int latch_count;\n",
    b"int TMA_enabled; int tma_size; void* tensormap_ptr;\n",
    # PT705: `long double` in a file with no __device__/__global__ function
    b"long double host_sum(long double a, long double b) { return a + b; }\n",
    # PT401: a big __shared__ array in a file with no kernel (only a kernel is reported)
    b"__device__ void f() { __shared__ float s[65536]; s[0] = 0; }\n",
    # PT201/PT202: `asm` and `get_sreg_` only inside words, `ptx::` a tag constant
    b"int plasma_count; int get_sreg_laneid_count; auto t = cuda::ptx::space_shared;\n",
    # PT104/PT109: `_sync` only in __syncthreads; PT106: `lane` only in a longer name;
    # PT211: a kernel that launches nothing
    b"__global__ void k(int* lanes_total) { __syncthreads(); lanes_total[0] = 1; }\n",
    # PT812: a pair mapped to one HIP type (a finding), a pair beside a name its row keeps
    # (`__syncwarp` -> `__syncwarp`: a finding); only names their rows keep: skipped
    b"const char* e(cudaError_t x);\nconst char* e(CUresult x);\n",
    b"void s() { __syncwarp(); }\nint e(cudaStream_t x);\nint e(hipStream_t x);\n",
    b"__device__ void f(unsigned m) { __syncwarp(m); cudaDeviceSynchronize(); }\n",
    # PT211: a device-side runtime call (a finding); the name only inside a longer one: skipped
    b"__global__ void k() { cudaDeviceSynchronize(); }\n",
    b"__device__ int f(int cudaDeviceSynchronizeCount) { return cudaDeviceSynchronizeCount; }\n",
    # PT101: thread indices and `uint32_t`, but no literal 31, 32, 5 or 64
    b"__device__ void f(uint32_t* o) { int tid = threadIdx.x; o[tid & 15] = tid / 16; }\n",
]


def _sources():
    for p in repo_files():
        yield p.name, p.read_bytes()
    for i, data in enumerate(CASES):
        yield f"case{i}.cu", data


def _prefiltered():
    return [r() for r in all_rules() if r.wanted is not Rule.wanted and "cuda" in r.languages]


@pytest.mark.parametrize("rule", _prefiltered(), ids=lambda r: r.code)
def test_prefilter_never_drops_a_finding(rule):
    """Run the rule on every source (the tree parsed, as the engine does when the rule runs):
    where it reports, its prefilter says wanted; the prefilter also skips some triggered
    sources (it is not always true)."""
    index = load_index()
    reported = skipped = 0
    for name, data in _sources():
        idents = identifiers(data)
        if not any(t in data for t in rule.triggers):
            continue
        wanted = rule.wanted(idents, index, data)
        ctx = RuleContext(SourceFile(name, data), parse(data), RuleOptions(), index, idents)
        found = list(rule.check(ctx))
        if found:
            reported += 1
            assert wanted, (rule.code, name, [f.message for f in found][:2])
        elif not wanted:
            skipped += 1
    assert reported, f"{rule.code}: no source gives a finding, the test proves nothing"
    assert skipped, f"{rule.code}: the prefilter skipped no triggered source"


def test_trigger_index_is_the_plain_substring_test():
    """TriggerIndex.rules_for (identifier triggers looked up per distinct identifier, text
    triggers scanned only while they could add a rule) selects exactly the rules one of whose
    triggers is in the file, plus those without triggers, in registry order."""
    from porter.engine import TriggerIndex

    rules = [r() for r in all_rules() if not r.emitted_by_engine and "cuda" in r.languages]
    index = TriggerIndex(rules)
    for name, data in [*_sources(), ("all.cu", b"\n".join(d for _, d in _sources()))]:
        plain = [r for r in rules if not r.triggers or any(t in data for t in r.triggers)]
        assert index.rules_for(data) == plain, name
        assert index.rules_for(data, identifiers(data)) == plain, name


def test_trigger_index_starts_over_without_losing_a_files_triggers(monkeypatch):
    """When the identifiers it remembers pass their bound, TriggerIndex starts over: the file
    that crosses it still gets every rule its triggers select (before, its identifiers seen in
    earlier files were forgotten, and their rules silently skipped)."""
    from porter import engine

    monkeypatch.setattr(engine, "_TRIGGER_CACHE_MAX", 50)
    rules = [r() for r in all_rules() if not r.emitted_by_engine and "cuda" in r.languages]
    index = engine.TriggerIndex(rules)
    sources = list(_sources())
    for _ in range(2):
        for name, data in sources:
            plain = [r for r in rules if not r.triggers or any(t in data for t in r.triggers)]
            assert index.rules_for(data, identifiers(data)) == plain, name
