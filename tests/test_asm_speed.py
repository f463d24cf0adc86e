"""The inline-asm analysis' fast paths give what the long way gives. Each one is checked against
the implementation it replaced, kept here as the reference: a site on a plain code line decided
without lexing the file (`_Lexed._plain`), the common statement read by one regex match
(`_STATEMENT`, `_OPERANDS`), dotted opcodes read as words (`_dotted_ops`), the PTX suffix test
as one search, the wrapper candidates' look-around tests on the file's bytes, and PT201's
suggestion as one alternation per opcode. Inputs: every fixture and example source, CUDA's
headers where present, cases built for each fast path, and seeded random texts built from the
pieces each one depends on (splices, CRLF, comments, literals, raw strings, directives, a byte
order mark, nested parentheses, `::`, non-ASCII letters)."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

import pytest
from sources import C_SUFFIXES, cuda_headers, repo_files

from porter.analysis import asm as A
from porter.rules import asm as RA

# -- the references: the implementations the fast paths replaced ------------------------------


def reference_lexed(data: bytes) -> A._Lexed:
    """`_Lexed` as it was: every position decided from the file's comment and literal spans."""
    lexed = A._Lexed(data)
    lexed._plain = lambda pos: False  # type: ignore[method-assign]
    return lexed


def reference_lex_asm(data: bytes, pos: int, limit: int) -> tuple[str, int]:
    """`_lex_asm` one token at a time (`_scan_parens` over the template, then the operands)."""
    parts: list[str] = []
    n = min(limit, len(data))
    depth, at = A._scan_parens(A._ASM_TOKEN.finditer(data, pos + 1, n), 1, parts)
    if depth and at >= 0:
        _, at = A._scan_parens(A._ASM_REST.finditer(data, at, n), depth, None)
    text = "".join(parts).replace("\\n", " ").replace("\\t", " ").replace("\\\n", " ")
    return text, at if at >= 0 else n


_SUFFIX_PART = re.compile(r"(?:" + A._PTX_SUFFIXES + r")$")


def reference_ptx_suffixes(dotted: str) -> bool:
    """One of the `.x.y` parts, split, matches a suffix whole."""
    return any(_SUFFIX_PART.match(s) for s in dotted.split(".")[1:])


def reference_dotted_ops(t: str) -> list[str]:
    return [
        m.group(1) + m.group(2) for m in A._DOTTED.finditer(t) if reference_ptx_suffixes(m.group(2))
    ]


def reference_classify(t: str):
    ops = reference_dotted_ops(t)
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


def reference_wrapper_candidates(data: bytes):
    """The wrapper candidates, each look-around test on a slice of the bytes."""
    if b"ptx" not in data:
        return
    bare_ok = (
        b"namespace ptx" in data
        or re.search(rb"namespace\s+\w+\s*=\s*cuda\s*::\s*ptx", data) is not None
    )
    for m in A._PTX_NS.finditer(data):
        if not A._word_start(data, m.start()):
            continue
        before = data[max(0, m.start() - 12) : m.start()]
        if not bare_ok and not re.search(rb"cuda\s*::\s*$", before):
            continue
        if not re.match(rb"\s*(?:\(|<)", data[m.end() : m.end() + 8]):
            continue
        yield m


def reference_find_asm_sites(data: bytes) -> list[A.AsmSite]:
    lexed = reference_lexed(data)
    out = []
    for m in A._asm_candidates(data):
        where = lexed.site_at(m.start(1))
        if where is None:
            continue
        in_macro, limit = where
        template, end = reference_lex_asm(data, m.end() - 1, limit)
        ops, special, ptx, family = reference_classify(template)
        out.append(A.AsmSite(m.start(1), end, template, in_macro, ptx, family, [*ops], [*special]))
    for m in reference_wrapper_candidates(data):
        if lexed.in_comment_or_literal(m.start()):
            continue
        name = m.group(2).decode()
        template = A._ptx_name_to_template(name)
        ops, special, ptx, family = reference_classify(template)
        if not ptx:
            ptx, family = True, "generic"
        out.append(
            A.AsmSite(m.start(), m.end(), template, False, ptx, family, [*ops], [*special], name)
        )
    return out


_SUGGEST_RX = [(re.compile(rx).match, text) for rx, text in RA._SUGGEST]


def reference_suggestion(ops: list[str]) -> str:
    for rx, text in _SUGGEST_RX:
        if any(rx(o) for o in ops):
            return text
    return "HIP intrinsics or `__builtin_amdgcn_*` builtins"


# -- inputs ------------------------------------------------------------------------------------

CASES = [
    b'__device__ void f() { asm("membar.gl;"); }\n',
    b'  asm volatile("mov.u32 %0, %%laneid;" : "=r"(x));\n',
    b'/* open\n asm("bar.sync 0;"); */ asm("membar.cta;");\n',
    b'/* a */ asm("membar.gl;");\n/**/\nasm("bar.sync 0;");\n',
    b'// x \\\nasm("membar.gl;");\nasm("bar.sync 1;");\n',
    b'const char* s = R"x(\nasm("membar.gl;");\n)x"; asm("bar.sync 0;");\n',
    b'#define A \\\n  asm("membar.gl;")\n asm("bar.sync 0;");\n',
    b'#define B asm("membar.gl;")\n#undef asm\n# if asm\n',
    b'\xef\xbb\xbfasm("membar.gl;");\n',
    b'\xef\xbb\xbf#define C asm("membar.gl;")\n',
    b'x = "\\\nasm(\\"membar.gl;\\")";\nasm("bar.sync 0;");\r\n',
    b"int c = '\\\n'; asm(\"membar.gl;\");\n",
    b'  \\\n asm("membar.gl;");\n',
    b'asm("ld.global.u32 %0, [%1];" : "=r"(r) : "l"((long)(p + (i * (2 / 1)))));\n',
    b'asm("st.global.u32 [%0], %1;" :: "l"(p) /* ) */, "r"(v) // )\n : "memory");\n',
    b'asm("x" : "=r"(a((((b))))));\nasm("y" : "=r"(a(((((b)))))));\n',
    b'asm("x" : "=r"(a) /* unterminated );\n',
    b'asm("x" : "=r"(")"), "r"(\'(\'));\n',
    b'asm(PREFIX "mov.b32 %0, 1;" : "=r"(x) : "r"((y)));\n',
    b"cuda::ptx::mbarrier_arrive(p); cuda :: ptx :: fence_proxy_async<x>(); ptx::f(1);\n",
    b"namespace ptx = cuda::ptx; ptx::tcgen05_mma(a); // cuda::ptx::g(1)\n",
    b"/* cuda::ptx::kind_t<K> k; */ cuda::ptx::elect_sync(m);\n",
    b"namespace ptx {}\ncuda::ptx::ptx::f(1); ptx::xptx::g<1>(); cuda::ptx::sem_release;\n",
]

PIECES = [
    b'asm("membar.gl;")',
    b'asm volatile("mov.u32 %0, %%laneid;" : "=r"(x))',
    b"asm(",
    b"__asm__ __volatile__ (",
    b'"ld.global.nc.f32 %0, [%1];"',
    b":",
    b'"=r"(x)',
    b"(",
    b")",
    b";",
    b"#",
    b"#define M ",
    b"#if 0",
    b"# include <a/*b>",
    b"/*",
    b"*/",
    b"//",
    b"/",
    b'"',
    b"'",
    b'R"(',
    b')"',
    b'R"d(',
    b')d"',
    b"\\",
    b"\\\n",
    b"\\\r\n",
    b"\n",
    b"\r\n",
    b" ",
    b"\t",
    b"x",
    b"1'0",
    b"cuda::ptx::",
    b"ptx::",
    b"mbarrier_arrive",
    b"<",
    b"namespace ptx",
    b"\xef\xbb\xbf",
    "é".encode(),
]


def _sources() -> list[bytes]:
    out = [p.read_bytes() for p in repo_files()]
    for p in cuda_headers(suffixes=C_SUFFIXES):  # CUDA's own headers: those with asm
        data = p.read_bytes()
        if b"asm" in data or b"ptx::" in data:
            out.append(data)
    return out + CASES


def _random_texts(seed: int, count: int, pieces: list[bytes] = PIECES) -> list[bytes]:
    rnd = random.Random(seed)
    return [b"".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 30))) for _ in range(count)]


def _fields(site: A.AsmSite):
    return (
        site.start,
        site.end,
        site.template,
        site.in_macro,
        site.ptx,
        site.family,
        site.ops,
        site.special,
        site.libcu_ptx,
    )


# -- the checks --------------------------------------------------------------------------------


def test_sources_hold_the_fast_and_slow_cases():
    """The sources reach both sides of each fast path (else the comparisons prove little)."""
    plain = lexed = whole = scanned = 0
    for data in _sources():
        lx = A._Lexed(data)
        for m in A._asm_candidates(data):
            if lx._plain(m.start(1)):
                plain += 1
            else:
                lexed += 1
            if A._STATEMENT.match(data, m.end()) is not None:
                whole += 1
            else:
                scanned += 1
    assert min(plain, lexed, whole, scanned) > 10, (plain, lexed, whole, scanned)


def test_find_asm_sites_sources():
    for data in _sources():
        got = [_fields(s) for s in A.find_asm_sites(SimpleNamespace(data=data))]
        assert got == [_fields(s) for s in reference_find_asm_sites(data)], data[:200]


@pytest.mark.parametrize("seed", [1, 2])
def test_find_asm_sites_random(seed):
    for data in _random_texts(seed, 1500):
        got = [_fields(s) for s in A.find_asm_sites(SimpleNamespace(data=data))]
        assert got == [_fields(s) for s in reference_find_asm_sites(data)], data


def test_plain_lines_at_every_identifier():
    """`site_at` and `in_comment_or_literal` at the start of every identifier of random texts
    (not only at asm keywords) answer as the spans do."""
    word = re.compile(rb"(?<![A-Za-z0-9_$])[A-Za-z_]")
    for data in _random_texts(3, 1500) + CASES:
        lexed, ref = A._Lexed(data), reference_lexed(data)
        for m in word.finditer(data):
            pos = m.start()
            assert lexed.site_at(pos) == ref.site_at(pos), (data, pos)
            assert lexed.in_comment_or_literal(pos) == ref.in_comment_or_literal(pos), (data, pos)


OPERAND_PIECES = [
    b'"=r"(x)',
    b'"l"(p)',
    b"(",
    b")",
    b"((",
    b"))",
    b":",
    b",",
    b"/",
    b"/* ) */",
    b"/*",
    b"*/",
    b"*",
    b"// )",
    b"//",
    b"\n",
    b'"',
    b'")"',
    b'"\\""',
    b"\\",
    b"'('",
    b"'",
    b" ",
    b"a",
    b'"mov.u32 %0, 1;"',
    b"M",
]


def test_lex_asm_random_statements():
    """The statement after `asm(`: random templates and operands (strings, comments, `/`,
    parentheses nested past `_OPERANDS`' levels, unterminated ones), at the file's end and at
    a limit inside it."""
    rnd = random.Random(11)
    for tail in _random_texts(4, 6000, OPERAND_PIECES):
        data = b"asm(" + tail
        for limit in (len(data), rnd.randint(4, len(data))):
            assert A._lex_asm(data, 3, limit) == reference_lex_asm(data, 3, limit), (data, limit)


def test_lex_asm_sources():
    for data in _sources():
        for m in A._asm_keywords(data):
            pos = m.end() - 1
            for limit in (len(data), pos + 40):
                assert A._lex_asm(data, pos, limit) == reference_lex_asm(data, pos, limit)


TEMPLATE_PIECES = [
    "ld",
    "mov",
    "cp",
    "cp.async",
    "shfl",
    "xmma",
    "ldu",
    "movx",
    ".global",
    ".u32",
    ".sync",
    ".b64",
    ".shared::cta",
    ".shared::cluster",
    "::",
    ".evict_first",
    ".foo",
    ".L2",
    ".",
    "%",
    "%%laneid",
    "%tid.x",
    "$",
    "_",
    "x",
    "1",
    " ",
    ";",
    "{",
    "}",
    "\u00e9",
    "\u00b2",
    "mbarrier.arrive",
    "st.shared::cta.b32",
    "trap;",
    "exit;",
    ".reg .pred p;",
]


def _random_templates(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    return [
        "".join(rnd.choice(TEMPLATE_PIECES) for _ in range(rnd.randint(0, 12)))
        for _ in range(count)
    ]


def test_dotted_ops_and_classes():
    templates = _random_templates(5, 8000)
    for data in _sources():
        templates += [s.template for s in A.find_asm_sites(SimpleNamespace(data=data))]
    for t in templates:
        assert A._dotted_ops(t) == reference_dotted_ops(t), t
        assert A._classify.__wrapped__(t) == reference_classify(t), t


def test_ptx_suffix_search_is_the_split_parts():
    rnd = random.Random(6)
    parts = ["u32", "b64", "shared::cta", "shared", "evict_last", "x", "foo", "L2", "", "é", ":"]
    for _ in range(20000):
        dotted = "".join("." + rnd.choice(parts) for _ in range(rnd.randint(1, 5)))
        assert A._ptx_suffixes(dotted) == reference_ptx_suffixes(dotted), dotted


def test_wrapper_candidates():
    pieces = [
        b"cuda",
        b"::",
        b" ",
        b"\n",
        b"ptx",
        b"cuda::ptx::",
        b"ptx::",
        b"f",
        b"_x",
        b"(",
        b"<",
    ]
    pieces += [b"namespace ptx", b"namespace p = cuda :: ptx;", b"x", b"1", b"\t", b"ptx::ptx::"]
    for data in _sources() + _random_texts(8, 4000, pieces):
        got = [m.span() for m in A._wrapper_candidates(data)]
        assert got == [m.span() for m in reference_wrapper_candidates(data)], data[:200]


def test_may_have_sites_remembers_one_file():
    """The candidates are kept for the last bytes object only: another one, even equal, is
    searched again."""
    a, b = b'asm("membar.gl;");', b"int x;"
    assert A.may_have_sites(a) and not A.may_have_sites(b) and A.may_have_sites(a)
    equal = bytes(bytearray(a))
    assert equal is not a and A.may_have_sites(equal)
    assert not A.may_have_sites(b"// no site\n")


def test_suggestions():
    ops_lists = []
    for data in _sources():
        ops_lists += [s.ops for s in A.find_asm_sites(SimpleNamespace(data=data))]
    rnd = random.Random(9)
    vocabulary = sorted({o for ops in ops_lists for o in ops}) + ["exit", "nanosleep.u32", "x"]
    ops_lists += [rnd.sample(vocabulary, rnd.randint(0, 4)) for _ in range(3000)]
    for ops in ops_lists:
        site = A.AsmSite(0, 0, "", ops=list(ops))
        assert RA.suggestion(site) == reference_suggestion(ops), ops
