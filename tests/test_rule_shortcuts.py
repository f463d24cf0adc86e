"""The rules' shortcuts give what the long way gives: the asm template fast path, the family
hints, the call index answering from the identifier tokens, the identifier matcher's memo, PT101's
literal scan and its binary expressions found from the literals, the warp-collective names taken
from the identifier tokens. Each is checked against the long way on every fixture and example
source and on cases built for it."""

from __future__ import annotations

import random
import re

import pytest
from sources import repo_files

from porter.analysis import asm as A
from porter.analysis.decls import _DECL_TYPES, _declarators
from porter.analysis.lex import matches_after
from porter.analysis.warp import COLLECTIVE, DROPPED_BEFORE_70, WRAPPER_NAME
from porter.parse.cuda import parse
from porter.rewrite.lex import identifiers
from porter.rules.base import IdentMatcher, RuleContext, RuleOptions
from porter.rules.coop import CubLogicalWarp
from porter.rules.overloads import _drop_word
from porter.rules.warp import (
    _LITERAL_32,
    _OP_LITERAL,
    _SYNC_SHIM_BYTES,
    _WARP_LITERAL,
    WarpSizeLiteral,
)
from porter.source import SourceFile

DIGITS = frozenset(b"0123456789")

EXTRA = [
    b'__device__ void f(unsigned* r) { asm volatile("mov.u32 %0, %%laneid;" : "=r"(*r)); }\n',
    b'__device__ void f() { asm("bar.sync 0;" "\\n\\t" "membar.gl;"); asm(); }\n',
    b'__device__ void f(int* p) { asm("st.global.u32 [%0], 1; // \\"q\\"" :: "l"(p)); }\n',
    b'#define F(x) asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(x) : "l"(p))\n',
    b'#define G asm(PREFIX "cp.async.bulk.shared::cluster.global [%0];" :: "r"(a))\n',
    b"__global__ void k(int* o) { int lane = threadIdx.x & 0x1F, w = threadIdx.x >> 5;\n"
    b"  o[lane] = w % (32u) + (threadIdx.x & ~31) + threadIdx.x / 0b100000; }\n",
    b"constexpr int kWarpSize = 040; enum { WARP_SIZE = 32 };\n#define WARP_SZ (32)\n",
    b"__global__ void k(int* o) { int tid = threadIdx.x; o[tid % 3'2] = 1; }\n",
    b"__device__ int warp_reduce_sum(int v) { return __shfl_xor_sync(0xffffffff, v, 1); }\n"
    b"__global__ void k(int* o) { int lane = threadIdx.x % 32; o[0] = warp_reduce_sum(lane); }\n",
]


def _sources() -> list[tuple[str, bytes]]:
    out = [(str(p), p.read_bytes()) for p in repo_files()]
    out += [(f"extra{i}.cu", d) for i, d in enumerate(EXTRA)]
    return out


def _ctx(name: str, data: bytes) -> RuleContext:
    return RuleContext(SourceFile(name, data), parse(data), RuleOptions())


def _span(node) -> tuple[int, int]:
    return node.start_byte, node.end_byte


def _lex_token_by_token(data: bytes, pos: int, limit: int) -> tuple[str, int]:
    """`_lex_asm` without its fast path."""
    parts: list[str] = []
    n = min(limit, len(data))
    depth, at = A._scan_parens(A._ASM_TOKEN.finditer(data, pos + 1, n), 1, parts)
    if depth and at >= 0:
        _, at = A._scan_parens(A._ASM_REST.finditer(data, at, n), depth, None)
    text = "".join(parts).replace("\\n", " ").replace("\\t", " ").replace("\\\n", " ")
    return text, at if at >= 0 else n


def test_asm_template_fast_path_is_the_token_scan():
    seen = 0
    for _, data in _sources():
        for m in A._asm_keywords(data):
            pos = m.end() - 1
            for limit in (len(data), pos + 40):
                want = _lex_token_by_token(data, pos, limit)
                assert A._lex_asm(data, pos, limit) == want
                assert A._lex_asm(data, pos, limit, need_end=False)[0] == want[0]
                seen += 1
    assert seen > 100


def _classify_without_hints(t: str):
    ops = [m.group(1) + m.group(2) for m in A._DOTTED.finditer(t) if A._ptx_suffixes(m.group(2))]
    if A._EXIT_ONLY.match(t):
        ops = ["exit"]
    special = [m.group(1) for m in A._SPECIAL.finditer(t)]
    ptx = bool(ops or special or A._REG_DECL.search(t))
    if not ptx or A._DEBUG_ONLY.match(t):
        return tuple(ops), tuple(special), ptx, None
    for fam, rx in A.FAMILIES:
        if rx.search(t):
            return tuple(ops), tuple(special), ptx, fam
    return tuple(ops), tuple(special), ptx, "special" if special else "generic"


FAMILY_TEMPLATES = [
    "cp.async.bulk.tensor.2d.shared::cluster.global [%0], [%1];",
    "cp.reduce.async.bulk.global.shared::cta.add.f32 [%0], [%1], 4;",
    "prefetch.tensormap [%0];",
    "prefetch.global.tensormap [%0];",
    "wgmma.fence.sync.aligned;",
    "tcgen05.alloc.cta_group::1.sync.aligned [%0], 32;",
    "setmaxnreg.inc.sync.aligned.u32 240;",
    "elect.sync %0|%1, 0xffffffff;",
    "fence.proxy.async.shared::cta;",
    "barrier.cluster.arrive;",
    "mov.u32 %0, %%cluster_ctarank;",
    "mov.u32 %0, %clusterid.x;",
    "mov.u32 %0, %%is_explicit_cluster;",
    "mapa.shared::cluster.u32 %0, %1, %2;",
    "getctarank.shared::cluster.u32 %0, %1;",
    "st.async.shared::cluster.u32 [%0], %1;",
    "red.async.relaxed.cluster.shared::cluster.add.u32 [%0], %1;",
    "griddepcontrol.wait;",
    "mbarrier.init.shared.b64 [%0], %1;",
    "cp.async.ca.shared.global [%0], [%1], 16;",
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};",
    "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0}, [%1];",
    "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1};",
    "movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;",
    "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%0}, [%1];",
    "xmma.sync.aligned.f32 %0;",
    "shfl.sync.bfly.b32 %0, %1, %2, %3, %4;",
    "mov.u32 %0, %%laneid;",
    "trap;",
    "exit;",
]


def test_family_hints_change_no_classification():
    templates = set(FAMILY_TEMPLATES)
    for name, data in _sources():
        ctx = _ctx(name, data)
        templates.update(s.template for s in A.find_asm_sites(ctx))
    for t in sorted(templates):
        assert A._classify.__wrapped__(t) == _classify_without_hints(t), t
    assert {_classify_without_hints(t)[3] for t in FAMILY_TEMPLATES} >= set(A.FAMILY_HINTS)


def test_dotted_scan_is_the_look_behind_regex():
    """`_dotted` (no look-behind in the pattern) finds what `_DOTTED.finditer` finds, also after
    word characters, `.`, `%`, `$` and non-ASCII letters (seeded random templates)."""
    rng = random.Random(7)
    parts = ["ld", ".global", ".u32", "%", "$", "x", "\u00e9", "_", " ", ".", "mov", "cp.async"]
    parts += ["::", "1", "shfl", ".sync", "%%laneid", "st.shared::cta.b32"]
    templates = FAMILY_TEMPLATES + [
        "".join(rng.choice(parts) for _ in range(rng.randint(0, 10))) for _ in range(20000)
    ]
    for t in templates:
        want = [(m.span(), m.groups()) for m in A._DOTTED.finditer(t)]
        assert [(m.span(), m.groups()) for m in A._dotted(t)] == want, t


def test_call_index_answers_from_the_identifiers_as_the_tree_does():
    names = sorted(COLLECTIVE) + ["cudaMalloc", "memcpy", "f", "sync", "warp_reduce_sum"]
    skipped = 0
    for name, data in _sources():
        lazy, full = _ctx(name, data), _ctx(name, data)
        full.calls.names()  # the whole index first
        for n in names:
            for members in (False, True):
                got = [_span(c.node) for c in lazy.calls.named([n], members=members)]
                assert got == [_span(c.node) for c in full.calls.named([n], members=members)]
        skipped += lazy.calls._index is None
    assert skipped


def test_may_call_is_false_only_for_names_no_call_has():
    """`CallIndex.may_call` (the identifier tokens, then a `(` or `<` after the name) never
    says no for a name the tree finds called: every identifier of every source, and cases where
    a comment, a splice or template arguments stand between a name and its arguments."""
    tricky = b"""void g() {
  f1 /* c */ (1); f2\\\n(2); f3<int>(3); obj.f4(4); ns::f5(5); p->f6 (6);
  f7 // c
  (7);
  int f8 = 1; f9 < 2;
}
"""
    sources = [*_sources(), ("tricky.cu", tricky)]
    checked = 0
    for name, data in sources:
        full = _ctx(name, data)
        called = full.calls.names()
        for ident in _ctx(name, data).idents:
            text = ident.decode("latin-1")
            if text in called:
                assert full.calls.may_call([text]), (name, text)
                checked += 1
    assert checked > 100
    ctx = _ctx("tricky.cu", tricky)
    assert {"f1", "f2", "f3", "f4", "f5", "f6", "f7"} <= ctx.calls.names()
    assert not ctx.calls.may_call(["f8"])


def test_ident_matcher_is_the_joined_search():
    patterns = [
        (rb"cudaLaunch\w+|__cluster_\w+|this_cluster", 0),
        (rb"lane_?id|tid|warp_?size", re.I),
        (rb"SM(?:80|90)_(?!TMA)\w+|\w*Idx", 0),  # a look-ahead: one identifier at a time
        (rb"[^_]+_t|__\w+", 0),  # `[^_]` matches a newline: matches across lines are redone
    ]
    files = [identifiers(d) for _, d in _sources()]
    files.append({b"x", b"SM90_TMA_LOAD", b"SM80_16x8x8", b"uint32_t"})
    for pat, flags in patterns:
        matcher = IdentMatcher(pat, flags)
        full = re.compile(pat, flags).fullmatch
        answers = []
        for idents in files + files[::-1]:  # the memo filled, then asked again
            want = {i for i in idents if full(i)}
            assert matcher.matching(idents) == want
            assert matcher(idents) == bool(want)
            answers.append(bool(want))
        assert True in answers and False in answers


@pytest.mark.parametrize("rx", [_WARP_LITERAL, _OP_LITERAL, _LITERAL_32], ids=["any", "op", "32"])
def test_literal_scan_is_the_look_behind_regex(rx):
    with_look_behind = re.compile(rb"(?<![0-9])" + rx.pattern)
    cases = [d for _, d in _sources()] + [
        b"x & 31; y % 0x20u; z >> 05; 132 1031 0x05 0b11111 3.5 31.0 uint32_t 64 0100 6432",
        b"31", b"a 032", b"0X1f 0x001F 00005ull",
    ]  # fmt: skip
    for data in cases:
        want = [m.span() for m in with_look_behind.finditer(data)]
        assert [m.span() for m in matches_after(rx, data, DIGITS)] == want


def test_pt101_candidates_hold_every_reportable_binary_expression():
    rule = WarpSizeLiteral()
    checked = 0
    for name, data in _sources():
        ctx = _ctx(name, data)
        reportable = []
        for b in ctx.nodes("binary_expression"):
            op = b.child_by_field_name("operator")
            right = b.child_by_field_name("right")
            if op is None or right is None or op.type not in ("&", "%", "/", ">>"):
                continue
            if rule._kind(ctx, op.type, right) is not None:
                reportable.append(b.id)
        candidates = [b.id for b in WarpSizeLiteral._op_candidates(ctx)]
        assert set(reportable) <= set(candidates), name
        order = {i: k for k, i in enumerate(b.id for b in ctx.nodes("binary_expression"))}
        assert [order[i] for i in candidates] == sorted(order[i] for i in candidates)
        checked += len(reportable)
    assert checked


def test_pt101_reads_no_tree_without_an_operator_before_a_literal():
    """`_op_candidates` parses only when some 5/31/32 literal may be the right operand of `&`,
    `%`, `/` or `>>` (`warp._operator_before`); operators hidden behind splices, `//` and
    `/* */` comments still count."""
    tricky = [
        b"__device__ int f() { return threadIdx.x &\\\n 31; }\n",
        b"__device__ int f() { return threadIdx.x & // lane\n 31; }\n",
        b"__device__ int f() { return threadIdx.x & /* lane */ 31; }\n",
        b"__device__ int f() { return threadIdx.x & (~(31)); }\n",
        b"__device__ int f() { return threadIdx.x >>5; }\n",
    ]
    for data in tricky:
        ctx = _ctx("t.cu", data)
        reportable = [
            b.id
            for b in ctx.nodes("binary_expression")
            if WarpSizeLiteral._kind(
                ctx, b.child_by_field_name("operator").type, b.child_by_field_name("right")
            )
            is not None
        ]
        assert reportable, data
        assert set(reportable) <= {b.id for b in WarpSizeLiteral._op_candidates(ctx)}, data
    parsed = []

    def counting(data: bytes):
        parsed.append(data)
        return parse(data)

    plain = b"__device__ int f(int* a) { a[32] = 5; return g(31) + 32; }\n"
    ctx = RuleContext(SourceFile("p.cu", plain), None, RuleOptions(), parse=counting)
    assert WarpSizeLiteral._op_candidates(ctx) == [] and not parsed


def test_warp_collectives_from_identifiers_are_those_from_the_calls():
    for name, data in _sources():
        ctx = _ctx(name, data)
        got = [_span(c.node) for c in ctx.warp_collectives._calls]
        full = _ctx(name, data)
        wrappers = {n for n in full.calls.names() if WRAPPER_NAME.search(n)}
        assert got == [_span(c.node) for c in full.calls.named(COLLECTIVE | wrappers)], name


def test_drop_word_is_the_boundary_sub():
    rng = random.Random(11)
    alpha = "ab_1 $\u00e9*(,)"
    for _ in range(50000):
        text = "".join(rng.choice(alpha) for _ in range(rng.randint(0, 12)))
        word = "".join(rng.choice(alpha) for _ in range(rng.randint(1, 3)))
        want = re.sub(r"\b" + re.escape(word) + r"\b", "", text, count=1)
        assert _drop_word(text, word) == want, (text, word)


def test_walked_lists_are_the_queries():
    """Declarations and PT812's function declarators read from the file's walk are the lists
    their own queries give."""
    for name, data in _sources():
        own, shared = _ctx(name, data), _ctx(name, data)
        assert shared.walked("function_declarator") is None
        shared.nodes("declaration")  # the walk, as another rule would make it
        query = "[" + " ".join(f"({t})" for t in _DECL_TYPES) + "] @d"  # its own query
        want = [
            (d.name, _span(d.node))
            for n in own.captures(query).get("d", [])
            for d in _declarators(own, n)
        ]
        assert [(d.name, _span(d.node)) for d in shared.decls.in_scope(None)] == want
        fds = shared.walked("function_declarator")
        assert fds is not None
        assert [_span(n) for n in fds] == [
            _span(n) for n in own.captures("(function_declarator) @f").get("f", [])
        ]


def test_pt109_shim_names_hold_the_builtins_it_reports_before_70():
    """PT109's prefilter (a SYNC_SHIM_NAMES token) covers its calls before ROCm 7.0."""
    assert {n.encode() for n in DROPPED_BEFORE_70} <= _SYNC_SHIM_BYTES


def test_matches_after_is_the_look_behind_regex():
    """PT118's pattern without its `(?<![\\w$])`, searched with `matches_after`, finds what the
    pattern with the look-behind finds (also inside a match whose start is rejected)."""
    with_look_behind = re.compile(rb"(?<![\w$])" + CubLogicalWarp.RX.pattern)
    rng = random.Random(5)
    parts = [b"hipcub", b"cub", b"::", b" ", b"WarpReduce", b"WarpScan", b"<", b">", b"int", b","]
    parts += [b"a", b"$", b"_"]
    cases = [d for _, d in _sources()] + [b"acub::WarpReduce<hipcub::WarpScan<int>>"]
    cases += [b"".join(rng.choice(parts) for _ in range(rng.randint(0, 14))) for _ in range(20000)]
    for data in cases:
        want = [(m.span(), m.groups()) for m in with_look_behind.finditer(data)]
        assert [(m.span(), m.groups()) for m in matches_after(CubLogicalWarp.RX, data)] == want


def test_ident_matcher_starting_over_forgets_nothing(monkeypatch):
    """Past its memo's bound the matcher starts over: the file being matched is then matched in
    full (its identifiers seen before included)."""
    import porter.rules.base as B

    monkeypatch.setattr(B, "_IDENT_MEMO_MAX", 40)
    matcher = IdentMatcher(rb"\w*[Ii]dx\w*|tid")
    full = re.compile(rb"\w*[Ii]dx\w*|tid").fullmatch
    files = [identifiers(d) for _, d in _sources()]
    for idents in files + files[::-1]:
        assert matcher.matching(idents) == {i for i in idents if full(i)}
