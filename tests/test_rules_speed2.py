"""Declarations.in_scope takes a function's declarations from the file's walk (the nodes of the
declaration types the rules' one query found, in document order) instead of a query on the
function: the same nodes, in the same order, for every function and lambda of every fixture,
example and CUDA header (where present), and of seeded mutations of them (error trees). The
query is kept here as the reference."""

from __future__ import annotations

import random

from sources import CUDA_INCLUDE, cuda_headers, repo_files

from porter.analysis.decls import _DECL_TYPES, Declarations
from porter.analysis.targets import TARGETS
from porter.analysis.tree import walk
from porter.parse import cuda as P
from porter.parse.cuda import parse
from porter.rules.base import RuleContext, RuleOptions
from porter.source import SourceFile

_QUERY = "[" + " ".join(f"({t})" for t in _DECL_TYPES) + "] @d"  # what in_scope queried


def _sources() -> list[tuple[str, bytes]]:
    # and CUDA's own headers and a sample of CCCL's
    files = repo_files() + cuda_headers("*.h") + cuda_headers("cccl/**/*")[::8]
    return [(str(p), p.read_bytes()) for p in files]


def _mutated(data: bytes, rng: random.Random) -> bytes:
    """`data` with a few braces, parentheses or semicolons dropped or added (error trees)."""
    b = bytearray(data)
    for _ in range(3):
        if not b:
            break
        i = rng.randrange(len(b))
        if rng.random() < 0.5 and b[i : i + 1] in (b"{", b"}", b"(", b")", b";"):
            del b[i]
        else:
            b[i:i] = rng.choice((b"{", b"}", b"(", b";", b"[]"))
    return bytes(b)


def _scopes(root) -> list:
    return [n for n in walk(root) if n.type in ("function_definition", "lambda_expression")]


def _check(name: str, data: bytes) -> int:
    tree = parse(data)
    ctx = RuleContext(SourceFile(name, data), tree, RuleOptions())
    walked = ctx.nodes(*_DECL_TYPES)
    decls = Declarations(ctx)
    n = 0
    for fn in _scopes(tree.root_node):
        want = P.captures(_QUERY, fn).get("d", [])
        got = decls._within(walked, fn)
        assert len(got) == len(want) and all(a == b for a, b in zip(got, want)), (
            name,
            fn.start_byte,
        )
        n += 1
    return n


def test_the_walk_gives_what_the_query_on_each_function_gives():
    checked = sum(_check(name, data) for name, data in _sources())
    assert checked > 1000, checked


def test_the_same_on_mutated_sources():
    rng = random.Random(20261203)
    sources = [s for s in _sources() if len(s[1]) < 200_000]
    checked = 0
    for name, data in rng.sample(sources, min(300, len(sources))):
        checked += _check(name, _mutated(data, rng))
    assert checked > 100, checked


def test_nodes_at_the_ends_of_a_function_are_asked_their_ancestors():
    """A lambda declared at the start of a declaration, a function whose first byte starts a
    parameter declaration: nodes touching the scope's ends are in or out as the query says."""
    cases = [
        b"auto f = [](int a, int b = 2) { int c = a; return c + b; };\n",
        b"void g(int x) { auto h = [x](int y) { int z; return y; }; }\n",
        b"struct S { int m; void f(int p) { int q = p; } };\n",
        b"int k(int a) { return a; } int j;\n",
    ]
    for i, data in enumerate(cases):
        assert _check(f"case{i}.cu", data)


def test_grouped_text_trigger_searches_select_what_the_substring_test_selects():
    """TriggerIndex looks for the text triggers that select the same rules and start with the
    same byte with one search: on seeded random texts made of triggers, their pieces and
    identifiers, the selection is the plain one (a rule is in when one of its triggers is a
    substring of the file)."""
    from porter import engine
    from porter.rewrite.lex import identifiers
    from porter.rules.registry import all_rules

    rules = [r() for r in all_rules() if not r.emitted_by_engine and "cuda" in r.languages]
    index = engine.TriggerIndex(rules)
    texts = index.text_triggers
    pieces = [*texts, *(t[:k] for t in texts for k in (1, 2)), *(t[1:] for t in texts)]
    pieces += [b" ", b"\n", b"threadIdx", b"__global__", b"__device__", b"x", b"3", b"+"]
    rng = random.Random(7)
    for _ in range(3000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        plain = [r for r in rules if not r.triggers or any(t in data for t in r.triggers)]
        assert index.rules_for(data, identifiers(data) or None) == plain, data


def _pt118_reference(rule, ctx):
    """CubLogicalWarp.check as it was: every match asked of the tree first."""
    from porter.analysis.lex import matches_after
    from porter.analysis.targets import fmt_targets

    w64 = ctx.options.wave64()
    if not w64:
        return
    for m in matches_after(rule.RX, ctx.data):
        if ctx.in_comment_or_string(m.start(1), m.end(1)):
            continue
        node = ctx.root.descendant_for_byte_range(m.start(1), m.end(1))
        if node is None or node.type in P.OPAQUE_TYPES:
            continue
        args = rule._split(m.group(2).decode("utf-8", "replace"))
        if len(args) != 1 or ctx.vendor.at(node).hands_off:
            continue
        yield rule.finding(
            ctx,
            (m.start(), m.end()),
            f"`{m.group(1).decode()}<{args[0]}>` uses the default logical warp"
            f", which hipCUB makes the wavefront (64 lanes on "
            f"{fmt_targets(w64)}): pass the logical warp size explicitly",
            targets=w64,
        )


_PT118_CASES = [
    b"// using W = cub::WarpReduce<int>;\n__global__ void k() { cub::WarpReduce<int> w; }\n",
    b"/* cub::WarpScan<int> */ void f() { hipcub::WarpScan<float, 16> s; }\n",
    b"#define R cub::WarpReduce<int> // cub::WarpReduce<long>\nvoid g() { R r; }\n",
    b'const char* s = "cub::WarpReduce<int>"; // cub::WarpScan<int>\n',
    b"//! cub::WarpReduce<int> \\\n cub::WarpReduce<short> w;\nvoid h() {}\n",
    b"/* unclosed cub::WarpReduce<int>\n",
    b"#if defined(__HIP_PLATFORM_AMD__)\ncub::WarpReduce<int> a;\n#endif\n",
]


def test_pt118_reads_comments_and_arguments_from_the_bytes():
    """PT118 skips a name in a comment and a launch with other than one template argument
    before it reads the tree: the same findings as the tree-first check on every source and
    built case, and no parse for CUB's documented-only warp_reduce.cuh."""
    from porter.rules.coop import CubLogicalWarp

    rule = CubLogicalWarp()
    sources = [(n, d) for n, d in _sources() if b"WarpReduce" in d or b"WarpScan" in d]
    sources += [(f"case{i}.cu", d) for i, d in enumerate(_PT118_CASES)]
    reported = 0
    for name, data in sources:
        for opts in ({}, {"targets": ()}):
            got = list(rule.check(_lazy_ctx(name, data, **opts)))
            want = list(_pt118_reference(rule, _lazy_ctx(name, data, **opts)))
            assert got == want, name
            reported += bool(got)
    assert reported, "no source gives a finding, the test proves nothing"
    header = CUDA_INCLUDE / "cccl" / "cub" / "warp" / "warp_reduce.cuh"
    if header.is_file():
        ctx = _lazy_ctx(str(header), header.read_bytes())
        assert not list(rule.check(ctx)) and ctx._tree is None


def _lazy_ctx(name: str, data: bytes, **options) -> RuleContext:
    """A context that parses on a rule's first read of the tree, as the engine makes it."""
    from porter.rewrite.lex import identifiers

    return RuleContext(
        SourceFile(name, data), None, RuleOptions(**options), idents=identifiers(data), parse=parse
    )


_PT205_CASES = [
    b"#include <mma.h>\nusing namespace nvcuda;\n"
    b"__global__ void k() { wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> a;\n"
    b" wmma::mma_sync(c, a, b, c, true); a.x[3] = 0; }\n",
    b"#include <cuda/std/__cmath/gamma.h>\nint f(int x) { return x; }\n",
    b"#include <rocwmma/rocwmma.hpp>\nvoid g() { rocwmma::fragment<acc, 16, 16, 16, float> f; }\n",
    b"// wmma \xc3\xa9\nvoid h() { ns::mma_sync(d, a, b, c, s); }\n",
    b"#include <mma.h>\nvoid k() { nvcuda::wmma::mma_sync(d, a, b, c, true); }\n",
    b"#define M 8\nstruct T { wmma::fragment<wmma::accumulator, M, 32, 16, float> acc; };\n",
]


def test_pt205_needs_no_tree_without_fragment_or_mma_sync():
    """PT205 reads no tree for a file whose identifier tokens hold neither `fragment` nor
    `mma_sync` (ASCII, no `$`): the same findings as with the shortcut off (both words among
    the identifiers) on every source that triggers the rule and built cases, and no parse for
    the CCCL headers that trigger it only by a header name (`gamma.h`, `tcgen05_mma.h`)."""
    from porter.rules.asm import WmmaApi

    rule = WmmaApi()
    sources = [(n, d) for n, d in _sources() if any(t in d for t in rule.triggers)]
    sources += [(f"case{i}.cu", d) for i, d in enumerate(_PT205_CASES)]
    reported = 0
    for name, data in sources:
        for opts in ({}, {"targets": tuple(TARGETS[a] for a in ("gfx90a", "gfx1030"))}):
            got = list(rule.check(_lazy_ctx(name, data, **opts)))
            ref = _lazy_ctx(name, data, **opts)
            ref._idents = ref.idents | {b"fragment", b"mma_sync"}  # the shortcut never taken
            assert got == list(rule.check(ref)), name
            reported += bool(got)
    assert reported, "no source gives a finding, the test proves nothing"
    for rel in ("cuda/std/detail/libcxx/include/cmath", "cuda/__ptx/instructions/tcgen05_mma.h"):
        header = CUDA_INCLUDE / "cccl" / rel
        if header.is_file():
            ctx = _lazy_ctx(str(header), header.read_bytes())
            list(rule.check(ctx))
            assert ctx._tree is None, rel


def test_ident_matcher_answers_from_a_known_hit_as_the_full_match_does():
    """IdentMatcher(idents) is True at once when an identifier it matched before is among
    `idents` (its new identifiers then learned later): asked first (before `matching`), in
    order and again in reverse, it answers what matching every identifier in full answers, and
    `matching` still finds every match (the identifiers it did not learn then are learned)."""
    import re

    from porter.rewrite.lex import identifiers
    from porter.rules.base import IdentMatcher

    patterns = [
        (rb"threadIdx|blockDim|lane_?id|tid", re.I),
        (rb"cuda\w+|__\w+_sync", 0),
        (rb"SM(?:80|90)_(?!TMA)\w+|\w*Idx", 0),
    ]
    files = [identifiers(d) for _, d in _sources()]
    rng = random.Random(11)
    words = sorted(set().union(*files))
    files += [set(rng.sample(words, rng.randint(0, 40))) for _ in range(300)]
    for pat, flags in patterns:
        matcher = IdentMatcher(pat, flags)
        full = re.compile(pat, flags).fullmatch
        seen_true = 0
        for idents in files + files[::-1]:
            want = {i for i in idents if full(i)}
            assert matcher(idents) == bool(want)
            seen_true += bool(want)
        for idents in files:
            assert matcher.matching(idents) == {i for i in idents if full(i)}
        assert seen_true, pat
