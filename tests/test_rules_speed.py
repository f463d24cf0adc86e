"""The C++ rules' byte-level pre-checks (porter/analysis/tree.py `in_comment` and
`code_byte_before`, and the rules' tests built on them) never skip a file, or a part of a rule,
where the tree would find something: each is a superset test, checked as a class over every
fixture and example source and a sample of CUDA's own headers (where present), then on cases
built to trip it."""

from __future__ import annotations

import pytest
from sources import cuda_headers, repo_files

from porter.analysis.tree import code_byte_before, in_comment
from porter.parse.cuda import parse
from porter.rewrite.lex import identifiers
from porter.rules.base import RuleContext, RuleOptions
from porter.rules.warp import _LITERAL_32, _LITERAL_64, WarpSizeLiteral, _may_define
from porter.source import SourceFile

# tree-sitter nodes whose text is no code token (a comment, a literal, a macro body)
_NOT_CODE = frozenset(
    {
        "comment",
        "string_literal",
        "char_literal",
        "raw_string_literal",
        "concatenated_string",
        "system_lib_string",
        "preproc_arg",
    }
)


def _sources() -> list[tuple[str, bytes]]:
    # and a sample of CUDA's own headers
    files = repo_files() + cuda_headers("*.h")[:60] + cuda_headers("cccl/cub/warp/*.cuh")
    return [(str(p), p.read_bytes()) for p in files]


def _ctx(name: str, data: bytes, parse_fn=parse, **options) -> RuleContext:
    tree = None if parse_fn is not parse else parse(data)
    return RuleContext(
        SourceFile(name, data),
        tree,
        RuleOptions(**options),
        idents=identifiers(data),
        parse=parse_fn,
    )


def _code_leaves(root):
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type in _NOT_CODE:
            continue
        if n.child_count == 0:
            if n.end_byte > n.start_byte and n.type != "ERROR":
                yield n
        else:
            stack.extend(n.children)


def test_no_code_token_of_the_tree_is_in_a_comment():
    """`in_comment` says True only where tree-sitter has no code token: every leaf of every
    source's tree outside comments, literals and macro bodies starts outside the lexer's
    comments. (Not so for string literals: see in_comment's docstring and the case below.)"""
    checked = 0
    for name, data in _sources():
        for leaf in _code_leaves(parse(data).root_node):
            assert not in_comment(data, leaf.start_byte), (name, leaf.type, leaf.start_point)
            checked += 1
    assert checked > 10_000
    # tree-sitter reads words of this string as identifiers; in_comment leaves strings alone
    data = b'#define M(x) x\nM(static_assert(a, "__CUDA_ARCH__ is set");)\nint y; // c */\n'
    assert not in_comment(data, data.index(b"__CUDA_ARCH__"))
    assert in_comment(data, data.index(b"c */"))


@pytest.mark.parametrize(
    ("data", "before", "want"),
    [
        (b"a & 31", b"31", b"&"),
        (b"a & /* c */ 31", b"31", b"&"),
        (b"a & // c\n 31", b"31", b"&"),
        (b"a &\\\n 31", b"31", b"&"),
        (b"a & /* c */ /* d */\n 31", b"31", b"&"),
        (b'"s" 31', b"31", b'"'),  # a literal is a token
        (b"31", b"31", None),
        (b"/* c */ 31", b"31", None),
        (b"a /* c 31", b"31", b"c"),  # an unclosed comment is no comment
    ],
)
def test_code_byte_before(data, before, want):
    i = code_byte_before(data, data.index(before))
    assert (data[i : i + 1] if i >= 0 else None) == want


# -- PT101 ------------------------------------------------------------------------------------
def _definitions(ctx, rx) -> list:
    rule = WarpSizeLiteral()
    if rx is _LITERAL_32:
        return list(rule._definitions(ctx, ("gfx942",)))
    return list(rule._vendor_64(ctx, ("gfx1100",)))


DEFINITIONS = [
    b"#define WARP_SIZE 32\n",
    b"#define WARP_SIZE (32) // lanes\n",
    b"#define WARP_SIZE /* lanes */ 0x20u\n",
    b"#define WARP_SIZE \\\n  32\n",
    b"#define WARP_SIZE +32\n",
    b"constexpr int kWarpSize = 32;\n",
    b"const int warp_size /* c */ = (32);\n",
    b"enum { WARP_THREADS = 32, X = 1 };\n",
    b"enum { WARP_THREADS =\n 040 };\n",
    b"int n = 3'2; const int warp_size = 3'2;\n",
    b"#ifdef __HIP_PLATFORM_AMD__\n#define WARP_SIZE 64\n#else\n#define WARP_SIZE 32\n#endif\n",
]
NO_DEFINITION = [
    b"int a[32]; x = y == 32; // WARP_SIZE = 32\n",
    b"/* #define WARP_SIZE 32 */ int warp_size; f(32);\n",
    b"#define WARP_SIZE(x) 32\nint b = 32;\n",
    b"warp_size += 32; warp_size <= 32;\n",
]


@pytest.mark.parametrize("rx", [_LITERAL_32, _LITERAL_64], ids=["32", "64"])
def test_pt101_definitions_only_where_may_define(rx):
    """Wherever `_definitions` (`_vendor_64`) reports, `_may_define` says so: every source and
    the cases; it also says no on some."""
    reported = skipped = 0
    for name, data in [*_sources(), *((f"d{i}.cu", d) for i, d in enumerate(DEFINITIONS))]:
        found = _definitions(_ctx(name, data), rx)
        may = _may_define(data, rx)
        if found:
            reported += 1
            assert may, name
        skipped += not may
    assert reported and skipped


def test_pt101_definition_cases():
    for data in DEFINITIONS:
        assert _may_define(data, _LITERAL_32) or b"64" in data, data
        if b"64" not in data:
            assert _definitions(_ctx("c.cu", data), _LITERAL_32), data
    for data in NO_DEFINITION:
        assert not _may_define(data, _LITERAL_32), data
        assert not _definitions(_ctx("c.cu", data), _LITERAL_32), data


def test_pt101_reads_no_tree_for_other_operators_and_comments():
    """`_op_candidates` pairs each operator with the value `_kind` reports after it and skips
    literals in comments: none of these files is parsed; each reportable twin is found."""
    quiet = [
        b"__device__ int f(unsigned long long p) { return p >> 32; }\n",  # >> 32: not >> 5
        b"__device__ int f(int t) { return t & 32 + t % 31 + t / 5; }\n",
        b"// int warp_id = threadIdx.x / 32;\n/* lane = threadIdx.x & 31 */ int x;\n",
        b"// http://example.org/2004/05/32.php\nint x;\n",
        b"__device__ int f(int t) { return t && 31; }\n",
        b"__device__ int f(int t) { return t / ~31 + (p->5); }\n",
    ]
    for data in quiet:
        parsed = []

        def counting(d: bytes, parsed=parsed):
            parsed.append(d)
            return parse(d)

        ctx = _ctx("q.cu", data, parse_fn=counting)
        assert WarpSizeLiteral._op_candidates(ctx) == [] and not parsed, data
    loud = [
        b"__device__ int f() { return threadIdx.x /* w */ / 32; }\n",
        b"__device__ int f() { return threadIdx.x & ~(0x1f); }\n",
        b"__device__ int f() { return threadIdx.x >> // w\n 5; }\n",
        b"__device__ int f() { return threadIdx.x % (32u); }\n",
    ]
    for data in loud:
        ctx = _ctx("l.cu", data)
        assert WarpSizeLiteral._op_candidates(ctx), data


# -- PT301 ------------------------------------------------------------------------------------
def test_pt301_reads_no_tree_for_words_in_comments():
    """`__CUDA_ARCH__` only in comments and directives: no tree read, no value use reported;
    the same word in code is reported."""
    from porter.rules.arch_guards import CudaArchGuard

    quiet = b"// whether __CUDA_ARCH__ is defined\n#if defined(__CUDA_ARCH__)\nint x;\n#endif\n"
    parsed = []

    def counting(d: bytes):
        parsed.append(d)
        return parse(d)

    ctx = _ctx("q.cu", quiet, parse_fn=counting)
    assert [f.line for f in CudaArchGuard().check(ctx)] == [2] and not parsed
    loud = quiet + b"int v = __CUDA_ARCH__; /* __CUDA_ARCH__ */\n"
    found = list(CudaArchGuard().check(_ctx("l.cu", loud)))
    assert [f.line for f in found] == [2, 5]


# -- PT106 ------------------------------------------------------------------------------------
LANE_SHIFTS = [
    b"__device__ bool f(unsigned b, int lane) { return b & (1u << /* bit */ (lane)); }\n",
    b"__device__ bool f(unsigned b) { return b & (1 << ns::__lane_id()); }\n",
    b"__device__ bool f(unsigned b, T t) { return b & (1 << t.lane_id()); }\n",
    b"__device__ unsigned f(int laneId) { return 0xffffffff >> (32 - laneId); }\n",
    b"__device__ unsigned f() { return 1 << (threadIdx.x % warpSize); }\n",
    b"__device__ unsigned f(int lane) { return 1 <<\\\n lane; }\n",
]
NO_LANE_SHIFT = [
    b"enum { RADIX_DIGITS = 1 << RADIX_BITS }; __device__ int f(int lane) { return lane; }\n",
    b"__device__ int f(int counter_lane) { return counter_lane << LOG_PACKING_RATIO; }\n",
    b"__device__ int f(int lane, int x) { x <<= lane; return x >> lane; }\n",
    b"// 1 << lane\n__device__ int f(int lane) { return lane; }\n",
]


def test_pt106_wanted_holds_every_lane_shift():
    """`_may_shift_by_lane`: each case PT106 reports is wanted; the quiet cases are not (the
    whole class over the sources: test_rule_prefilters)."""
    from porter.rules.warp import WarpLaneMask32

    rule = WarpLaneMask32()
    for data in LANE_SHIFTS:
        assert list(rule.check(_ctx("l.cu", data))), data
        assert rule.wanted(identifiers(data), None, data), data
    for data in NO_LANE_SHIFT:
        assert not list(rule.check(_ctx("q.cu", data))), data
        assert not rule.wanted(identifiers(data), None, data), data


# -- PT401, PT207, PT304: words in comments ---------------------------------------------------
def test_words_only_in_comments_read_no_tree():
    """A rule whose words are all in comments (CUB documents kernels in `//!` comments) reads
    no tree; the same words in code are read and reported."""
    from porter.rules.arch_guards import CudaVersionMacro
    from porter.rules.hopper import TmaTensorMap
    from porter.rules.memory import LdsStaticLimit

    big = b"__shared__ float s[128][128], t[128][128];"
    cases = [
        (LdsStaticLimit(), b"//! __global__ void k() { " + big + b" }\nint x;\n"),
        (LdsStaticLimit(), b"__global__ void k();\n/* " + big + b" */\n"),
        (TmaTensorMap(), b"// cuTensorMapEncodeTiled(&m, ...)\nint x;\n"),
        (CudaVersionMacro(), b"// cudaRuntimeGetVersion(&v); if (v >= 12000)\nint x;\n"),
    ]
    for rule, quiet in cases:
        assert not rule.wanted(identifiers(quiet), None, quiet) or not list(
            rule.check(_ctx("q.cu", quiet, parse_fn=_no_parse))
        ), quiet
    loud = [
        (LdsStaticLimit(), b"__global__ void k() { " + big + b" }\n"),
        (TmaTensorMap(), b"void f(CUtensorMap* m) { cuTensorMapEncodeTiled(m); }\n"),
        (
            CudaVersionMacro(),
            b"void f() { int v; cudaRuntimeGetVersion(&v); if (v >= 12000) g(); }\n",
        ),
    ]
    for rule, data in loud:
        assert rule.wanted(identifiers(data), None, data), data
        assert list(rule.check(_ctx("l.cu", data))), data


def _no_parse(data: bytes):
    raise AssertionError("parsed")


# -- PT404, PT405 -----------------------------------------------------------------------------
LAUNCH_BOUNDS = [
    b"__global__ void __launch_bounds__(256, 4) k();\n",
    b"__global__ void __launch_bounds__(256, 1) k();\n",
    b"__global__ void __launch_bounds__(2048) k();\n",
    b"#define T 2048\n__global__ void __launch_bounds__(T) k();\n",
    b"__global__ void __launch_bounds__(int(A::B::C), 1) k();\n",
    b"__global__ void __launch_bounds__(int(2048)) k();\n",
    b"__global__ void __launch_bounds__(P::ActivePolicy::BLOCK_THREADS) k();\n",
    b"__global__ void __launch_bounds__(Traits<A, B>::kThreads) k();\n",
    b"__global__ void __launch_bounds__(256, 1, 2) k();\n",
    b"enum { N = 1025 };\n__global__ void __launch_bounds__(S::N) k();\n",
    b"// __launch_bounds__(2048, 4)\nint x;\n",
]


@pytest.mark.parametrize("code", ["PT404", "PT405"])
def test_launch_bounds_byte_tests_drop_no_finding(code, monkeypatch):
    """PT404/PT405 give the same findings with their byte tests (`may_report`) as without
    them, on every source and the cases; the byte tests skip some sites."""
    from porter.rules import memory as M
    from porter.rules.registry import all_rules

    rule = next(r() for r in all_rules() if r.code == code)
    real = M.launch_bounds
    calls = {"skipped": 0}

    def without_test(ctx, may_report=None):
        every = real(ctx)
        calls["skipped"] += len(every) - len(real(ctx, may_report))
        return every

    sources = [*_sources(), *((f"lb{i}.cu", d) for i, d in enumerate(LAUNCH_BOUNDS))]
    sources = [(n, d) for n, d in sources if b"__launch_bounds__" in d]
    want = [[f.message for f in rule.check(_ctx(n, d))] for n, d in sources]
    monkeypatch.setattr(M, "launch_bounds", without_test)
    got = [[f.message for f in rule.check(_ctx(n, d))] for n, d in sources]
    assert got == want
    assert calls["skipped"] and any(want)


# -- the #if model ----------------------------------------------------------------------------
class _View:
    def __init__(self, data: bytes):
        self.data = data


def test_pp_model_of_the_same_bytes_is_made_once():
    from porter.analysis.preproc import PPState

    data = b"#if A\nint x;\n#else\nint y;\n#endif\n"
    a = PPState(_View(data))
    b = PPState(_View(data))
    assert a is b and len(a.branches) == 2
    c = PPState(_View(bytes(bytearray(data))))  # equal bytes, another object: another model
    assert c is not a and [x.kind for x in c.branches] == ["if", "else"]


def test_digit_separator_search_finds_what_the_class_first_pattern_found():
    """warp._DIGIT_SEPARATOR (a quote, the hex digit before it a look-behind) finds a digit
    separator in the same texts as `[0-9A-Fa-f]'[0-9A-Fa-f]`: every source, built cases and
    seeded random texts over the bytes that matter."""
    import random
    import re

    from porter.rules.warp import _DIGIT_SEPARATOR

    old = re.compile(rb"[0-9A-Fa-f]'[0-9A-Fa-f]")
    cases = [data for _, data in _sources()]
    cases += [b"", b"'", b"1'", b"'1", b"1'2", b"x'a'", b"'a'", b"0x1'F", b"g'1", b"1'g", b"''1"]
    rng = random.Random(7)
    alphabet = b"0aFg' \n_"
    cases += [bytes(rng.choice(alphabet) for _ in range(rng.randrange(12))) for _ in range(5000)]
    for data in cases:
        assert (_DIGIT_SEPARATOR.search(data) is None) == (old.search(data) is None), data


def test_overridden_condition_values_are_kept_per_override():
    """Cond.eval keeps a value per (world, override): the same value as evaluating afresh, for
    each override and world asked in turn, again and again (PT301/PT302/PT304 ask each branch
    of each file that holds the condition)."""
    from porter.analysis.preproc import _eval, parse_cond

    overrides = [
        {"__CUDA_ARCH__": (False, 0)},
        {"__CUDA_ARCH__": (True, 700)},
        {"__CUDA_ARCH__": (True, 900), "__CUDACC__": (False, 0)},
        {"__CUDACC__": (True, 1)},
    ]
    texts = [
        "defined(__CUDA_ARCH__)",
        "__CUDA_ARCH__ >= 800 && defined(__CUDACC__)",
        "!defined(__CUDA_ARCH__) || __HIP_PLATFORM_AMD__",
        "__CUDA_ARCH__ < 700 ? 1 : defined(__CUDACC__)",
    ]
    for _ in range(2):
        for text in texts:
            cond = parse_cond(text)
            for world in ("amd", "nv"):
                for override in overrides:
                    assert cond.eval(world, override) == _eval(cond.ast, world, override)
                assert cond.eval(world) == _eval(cond.ast, world, {})
