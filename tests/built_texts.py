"""Built texts that several speed and shortcut tests share, with the real sources they are read
with: a faster implementation is compared with the one it replaced over all of them. Each
section is one family of tests' inputs: the rewriter's (tests/test_rewrite_speed.py and the
shim and declaration-site shortcuts), the rule prefilters' (test_rule_prefilters.py,
test_trigger_index.py) and the lexer's (test_lex_shortcuts.py, test_directives_speed.py)."""

from __future__ import annotations

import random

from sources import C_SUFFIXES, cuda_headers, mutated, random_texts, repo_files

# -- the rewriter's ---------------------------------------------------------------------------

REWRITE_CASES = [
    b"cudaMalloc(&p, n); cudaFree(p); // cudaMemcpy\n#include <cuda_runtime.h>\n",
    b"int a = cuda_x; cudaStream_t s; x.cudaEvent; cub::Foo f; cudaError_t e;\n",
    b'#include "cuda.h"\n__global__ void k() { __syncthreads(); atomicAdd(p, 1); }\n',
    b"typedef int cudaStream_t;\nvoid f(cudaStream_t s) { cudaStreamSynchronize(s); }\n",
    b"#define cudaMalloc hipMalloc\n#undef cudaFree\nint x = __shfl_sync(m, v, 0);\n",
    b'/* cudaMalloc */ const char* s = "cudaFree"; cuFoo(); CU_BAR; __nv_thing t;\n',
    b"namespace cg = cooperative_groups; cg::thread_block b = cg::this_thread_block();\n",
]
# pieces of the random texts: table names (renamed, kept, unsupported), CUDA-looking names,
# the contexts the rewriter tells apart (comments, strings, members, declarations, directives)
REWRITE_PIECES = [
    b"cudaMalloc",
    b"cudaFree(p)",
    b"cudaStream_t",
    b"atomicAdd",
    b"__syncthreads()",
    b"cuFooBar",
    b"CUDA_X_Y",
    b"__nv_bfloat16",
    b"cudaGetSymbolAddress",
    b"__shfl_sync(m, v, 0)",
    b"x.",
    b"->",
    b"::",
    b"cub::",
    b"int ",
    b"typedef ",
    b"struct ",
    b" ",
    b"\n",
    b";",
    b"(",
    b")",
    b"{",
    b"}",
    b",",
    b"=",
    b"// c\n",
    b"/* ",
    b" */",
    b'"',
    b"#include <cuda_runtime.h>\n",
    b'#include "cuda.h"\n',
    b"#define ",
    b"#undef ",
    b"#if defined(__HIP_PLATFORM_AMD__)\n",
    b"#else\n",
    b"#endif\n",
    b"\\\n",
]


def rewrite_sources() -> list[tuple[str, bytes]]:
    """The rewriter's shortcut tests' texts: every fixture, example and CUDA header, the
    built cases, and seeded random and mutated texts, each with a file name."""
    out = [(str(p), p.read_bytes()) for p in repo_files() + cuda_headers()]
    out += [(f"case{i}.cu", d) for i, d in enumerate(REWRITE_CASES)]
    rnd = random.Random(20261203)
    out += [(f"random{i}.cu", t) for i, t in enumerate(random_texts(rnd, REWRITE_PIECES, 400, 40))]
    small = [d for _, d in out if len(d) < 4000]
    out += [(f"mutated{i}.cu", t) for i, t in enumerate(mutated(rnd, small, REWRITE_PIECES, 200))]
    return out


# -- the rule prefilters' -------------------------------------------------------------------

# each: a case the prefilter must let through (the rule reports on it); the `...skipped`
# ones trigger the rule but give no finding, and the prefilter skips them
PREFILTER_CASES = [
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


def prefilter_sources():
    """The rule prefilters' texts: every fixture and example source and the built cases, each
    with a file name."""
    for p in repo_files():
        yield p.name, p.read_bytes()
    for i, data in enumerate(PREFILTER_CASES):
        yield f"case{i}.cu", data


# -- the lexer's ------------------------------------------------------------------------------

LEX_PIECES = [
    b"#include <a/*b>",
    b'#include "q\'.h"',
    b"  # include_next <c//d>",
    b"#import 'x",
    b"#if 0",
    b"#define M ",
    b"/*",
    b"*/",
    b"*",
    b"/",
    b"//",
    b'"',
    b"'",
    b"\\",
    b'R"(',
    b'R"d(',
    b')d"',
    b')"',
    b'u8R"(',
    b'LR"(',
    b'xR"(',
    b"1'0",
    b"0x1'F",
    b".5'0",
    b"'a'",
    b"\\\n",
    b"\\\r\n",
    b"\n",
    b"\r\n",
    b"\r",
    b" ",
    b"\t",
    b"x",
    b"cudaMalloc",
    b"\xef\xbb\xbf",
    "é∂".encode(),
    b"\xff",
]

LEX_CASES = [
    b"",
    b"/",
    b"//",
    b"/*",
    b"/* unterminated",
    b"/*/ still open",
    b"/**/x/***/y",
    b'"unterminated\nx "a\\"b" c',
    b"'\\''",
    b"int x = 1'000'000; char c = 'a';",
    b'auto s = R"delim(a " b )" c)delim"; // after\n',
    b'auto s = R"(unterminated\n',
    b"// a \\\n continued\nint x;\r\n// crlf \\\r\nstill\r\n",
    b'#include <cuda/std/x>//c\n#include "a\\b.h" /* c */\n',
    b'\xef\xbb\xbf#include "x.h"\n',
    "// é\n\"ü\" 'ß'\n".encode(),
    b"x = a'b'c;",
    b"#define S(x) #x '\n",
]

# whole lines and pieces where the one-pass tokens need a closer look (quoted and odd header
# names, digit separators, raw strings), and the ordinary tokens around them
LINE_PIECES = [
    b'#include "a.h"\n',
    b'  #  include_next "b\'c.h" // x\n',
    b"#include <a//b>\n",
    b"#include <a/*b>\n",
    b"#include <a'b>\n",
    b'#include <a"b> "c"\n',
    b"#include <a/b/c.h>\n",
    b"#import 'x'\n",
    b'\xef\xbb\xbf#include "x"\n',
    b'\r#include "x"\n',
    b"#include",
    b" <",
    b' "',
    b"/* \n#include <a*/",
    b"'x\\\n#include <a'",
    b'"x\\\n#include <a"',
    b" // c\n",
    b"// c \\\n",
    b"//! doc\n",
    b"/* b */",
    b"/*",
    b"*/",
    b'"s"',
    b"'c'",
    b"'",
    b'"',
    b"1'000",
    b"0x1'F'F",
    b".5'0",
    b"a'b'",
    b"'a'9'0'",
    b"x1'",
    b'R"(',
    b'R"d(',
    b')d"',
    b')"',
    b'u8R"x(',
    b'xR"(',
    b"R",
    b"\\\n",
    b"\\\r\n",
    b"\n",
    b"\r\n",
    b" ",
    b"x",
    b"#",
    b"9",
    b"_",
]

SPAN_CASES = [
    b'#include "a.h"\n#include "b.h"\nint x = 1\'000; // c\n',
    b'#include "a.h" // it\'s\n"s" R"(x)" 1\'2\'3 \'a\'\n',
    b"#include <a//b> // c\n#include <c/*d> /* e */\n",
    b'/* a\n#include <x*/"y> "z"\n',
    b"'a\\\n#include <x' \"y> 'z'\n",
    b'auto s = R"d(a // b " c)d"; auto t = R"(x)"; // c\n',
    b"int a = 1'000'000, b = 0x1'F, c = .5'0; char d = 'x';\n",
    b"a'b'c 'a'9'0' 9'a'b' x'y\n",
    b'R"(unterminated\n#include "a.h"\n',
    b'#include "a.h"',
    b"1'",
    b'R"',
]


def lex_sources() -> list[bytes]:
    """The lexer's shortcut tests' texts: every fixture, example and Python source and the built
    cases."""
    return [p.read_bytes() for p in repo_files(suffixes=C_SUFFIXES | {".py"})] + LEX_CASES


def lex_random_texts(seed: int, count: int, pieces: list[bytes] = LEX_PIECES) -> list[bytes]:
    """`count` texts of 1 to 30 of `pieces` each, drawn with `seed`."""
    rnd = random.Random(seed)
    return [b"".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 30))) for _ in range(count)]
