"""`find_asm_sites` decides from the bytes, as the preprocessor lexes them, what it used to ask
the tree: whether an `asm` keyword is in a comment or literal, whether it is in a `#define` body,
and where the statement ends. On every fixture and example source and on cases built for each
question it gives the sites the tree gave (start, end, template, in_macro, family); where the two
differ, tree-sitter's error recovery misread the text and the preprocessor's answer is checked."""

from __future__ import annotations

import pytest
from conftest import ROOT
from sources import repo_files

from porter.analysis import asm as A
from porter.parse.cuda import COMMENT_TYPES, STRING_TYPES, in_comment_or_string, parse
from porter.rewrite.lex import lex_code_spans
from porter.rules.base import RuleContext, RuleOptions
from porter.source import SourceFile

_NOT_CODE = COMMENT_TYPES | STRING_TYPES


def tree_sites(data: bytes) -> list[A.AsmSite]:
    """The sites as the tree decided them (what `find_asm_sites` did before it lexed): a keyword
    whose node is in a comment or string node is no site, one whose smallest node is a
    `preproc_arg` is in a macro (the body lexed by `lex_code_spans` for its own comments and
    strings, the scan stopping at the node's end), and a statement the grammar read as a
    `gnu_asm_expression` ends where that node ends."""
    root = parse(data).root_node
    out = []
    for m in A._asm_candidates(data):
        kw0, kw1 = m.start(1), m.end(1)
        node = root.descendant_for_byte_range(kw0, kw1)
        asm_node = node
        while asm_node is not None and asm_node.type != "gnu_asm_expression":
            if asm_node.type in _NOT_CODE:
                break
            asm_node = asm_node.parent
        if asm_node is not None and asm_node.type in _NOT_CODE:
            continue
        in_macro, limit = node.type == "preproc_arg", len(data)
        if in_macro:
            body = data[node.start_byte : node.end_byte]
            if any(a <= kw0 - node.start_byte < b for a, b in lex_code_spans(body)):
                continue
            limit = node.end_byte
        template, end = A._lex_asm(data, m.end() - 1, limit)
        if asm_node is not None and asm_node.start_byte == kw0:
            end = asm_node.end_byte
        site = A.AsmSite(kw0, end, template, in_macro=in_macro)
        A.classify(site)
        out.append(site)
    for m in A._wrapper_candidates(data):
        if in_comment_or_string(root, m.start(), m.end()):
            continue
        name = m.group(2).decode()
        site = A.AsmSite(m.start(), m.end(), A._ptx_name_to_template(name), libcu_ptx=name)
        A.classify(site)
        if not site.ptx:
            site.ptx, site.family = True, "generic"
        out.append(site)
    return out


def _key(s: A.AsmSite) -> tuple:
    return (s.start, s.end, s.template, s.in_macro, s.family, s.libcu_ptx)


def lexed_sites(data: bytes) -> list[A.AsmSite]:
    ctx = RuleContext(SourceFile("t.cu", data), None, RuleOptions(), parse=parse)
    return A.find_asm_sites(ctx)


def _spans(data: bytes, sites: list[A.AsmSite]) -> list[tuple[bytes, bool]]:
    return [(data[s.start : s.end], s.in_macro) for s in sites]


def _sources() -> list[tuple[str, bytes]]:
    return [(str(p.relative_to(ROOT)), p.read_bytes()) for p in repo_files()]


def test_same_sites_as_the_tree_on_fixtures_and_examples():
    sources = _sources()
    assert len(sources) > 150
    found = 0
    for name, data in sources:
        want = [_key(s) for s in tree_sites(data)]
        assert [_key(s) for s in lexed_sites(data)] == want, name
        found += len(want)
    assert found > 40  # the fixtures hold asm in code, in macros, in comments and strings


# cases where the tree and the preprocessor agree: the same sites either way
AGREE = {
    "comments": b'// asm("mov.u32 %0, %%laneid;");\n/* asm volatile("trap;"); */\n'
    b'__device__ void f() { asm("membar.gl;"); }\n',
    "string": b'const char* s = "asm(\\"mov.u32 %0, %%laneid;\\")";\n'
    b'__device__ void f() { asm("membar.gl;"); }\n',
    "raw string over lines": b'const char* s = R"x(asm("membar.gl;");\n asm("bar.sync 0;"))x";\n'
    b'__device__ void f() { asm("membar.cta;"); }\n',
    "strings after parse errors": b'int x = ) ( ; "abc\nconst char* s = "asm(\\"membar.gl;\\")";\n'
    b'__device__ void f() { int a[ = {; const char *p = "x; asm(\\"bar.sync 0;\\");"; }\n'
    b'void g( { "asm(\\"membar.sys;\\")" }\n__device__ void h() { asm("bar.sync 0;"); }\n',
    "prefixed and concatenated strings": b'void f() { x = u8"asm(\\"membar.gl;\\")"; '
    b'y = L"a" "asm(\\"membar.cta;\\")" U"b"; asm("membar.sys;"); }\n',
    "macro bodies with comments and strings": b'#define A asm volatile("membar.gl;") '
    b'/* asm("trap;") */\n#define B /* c */ asm("bar.sync 0;") // asm("x")\n'
    b'#define C puts("asm(\\"membar.gl;\\")"); asm("bar.sync 1;")\nint y;\n',
    "__asm__ __volatile__": b'__device__ void f() { __asm__ __volatile__("mov.u32 %0, %%clock;"'
    b' : "=r"(c)); __asm volatile ("membar.gl;"); asm goto("bra %l0;" :::: L); }\n',
    "spliced lines": b'#define A \\\n  asm volatile( \\\n    "membar.gl;" \\\n    ::: "memory")\n'
    b'__device__ void f() { asm \\\nvolatile("bar.sync 0;"); }\n',
    "quote character in a macro": b'#define A f(\'"\'); asm("membar.gl;")\n',
    "asm in #if 0": b'#if 0\n__device__ void f() { asm("membar.gl;"); }\n#endif\n',
    "unclosed in a macro": b'#define BEGIN asm volatile("membar.gl;" ::: "memory" \nint y;\n',
    "header name and digit separators": b'#include <asm("x")>\n'
    b'int n = 1\'000; asm("membar.gl;"); int c = \'"\'; asm("bar.sync 0;");\n',
    "CRLF lines": b'#define A asm("membar.gl;" \r\n'
    b'__device__ void f() { asm(\r\n "bar.sync 0;"); }\r\n',
    "asm text in a template": b"__device__ void f() { "
    b'asm("membar.gl; // asm(x)" ::: "memory"); }\n',
    "wrappers": b"#include <cuda/ptx>\n// cuda::ptx::mbarrier_arrive(x);\n"
    b'__device__ void f() { cuda::ptx::cp_async_bulk(a); puts("cuda::ptx::elect_sync(m)"); }\n',
}


@pytest.mark.parametrize("name", sorted(AGREE))
def test_same_sites_as_the_tree_on_built_cases(name: str):
    data = AGREE[name]
    want = [_key(s) for s in tree_sites(data)]
    assert want  # each case has sites
    assert [_key(s) for s in lexed_sites(data)] == want


# cases where tree-sitter's error recovery reads the text otherwise: (source, the sites the
# preprocessor's lexing gives, as (text, in_macro)). The tree's answer is asserted to differ, so
# that each case shows its class.
DIFFER = {
    # an operand the grammar cannot read (a macro call in place of `"l"(p)`): the tree's
    # gnu_asm_expression ends before it; the statement ends at the `)` closing `asm(`
    "macro operand": (
        b'#define P(x) "l"(x)\n'
        b'__device__ void f(int* p) { asm("ld.global.nc.b32 %0, [%1];" : "=r"(r) : P(p)); }\n',
        [(b'asm("ld.global.nc.b32 %0, [%1];" : "=r"(r) : P(p))', False)],
    ),
    # `/*` inside a string of a #define body: tree-sitter ends the body there (and reads the
    # string's rest as code, or a later asm as no site)
    "comment opener in a macro's string": (
        b'#define A asm volatile("mov.u32 %0, /* x */ %%laneid;" : "=r"(x))\n'
        b'#define B puts("/* x */ asm(\\"membar.gl;\\")")\n'
        b'#define C puts("/* x */ bar"); asm("bar.sync 0;")\nint y;\n',
        [
            (b'asm volatile("mov.u32 %0, /* x */ %%laneid;" : "=r"(x))', True),
            (b'asm("bar.sync 0;")', True),
        ],
    ),
    # an unclosed statement in a macro body with a comment after it: the body is the logical
    # line (a comment is white space), not the text before the comment
    "unclosed in a macro before a comment": (
        b'#define BEGIN asm volatile("membar.gl;" ::: "memory" /* c */\nint y;\n',
        [(b'asm volatile("membar.gl;" ::: "memory" /* c */', True)],
    ),
    # #pragma and #error text is not compiled code; `#define asm(x)` names a macro
    "other directives": (
        b'#pragma asm("membar.gl;")\n#error asm("bar.sync 0;")\n'
        b"#define asm(x) __asm__(x)\n#define __asm__(x) f(x)\n",
        [(b"__asm__(x)", True)],
    ),
    # a directive after a comment that spans lines (`/* a` newline `*/ #define`) or with a
    # comment between `#` and its name
    "directive after comments": (
        b'/* a\n */ #define A asm("membar.gl;")\n  /* b */ # /* c */ define B asm("bar.sync 0;")\n',
        [(b'asm("membar.gl;")', True), (b'asm("bar.sync 0;")', True)],
    ),
    # a wrapper call in a `//` comment of a #define body (the tree's body is opaque text)
    "wrapper in a macro's comment": (
        b"#define W cuda::ptx::fence_proxy_async(); // cuda::ptx::elect_sync(m)\n",
        [(b"ptx::fence_proxy_async", False)],
    ),
}


@pytest.mark.parametrize("name", sorted(DIFFER))
def test_the_preprocessor_decides_where_the_tree_misreads(name: str):
    data, want = DIFFER[name]
    assert _spans(data, lexed_sites(data)) == want
    assert [_key(s) for s in tree_sites(data)] != [_key(s) for s in lexed_sites(data)]


def test_ptx_special_register_fix_on_the_lexed_end():
    """PT202's fix still finds the tree's statement for a site it lexed (the node it edits
    around), and none for a site in a macro."""
    data = (
        b"__device__ unsigned lane() { unsigned x; "
        b'asm volatile("mov.u32 %0, %%laneid;" : "=r"(x)); return x; }\n'
        b'#define LANE(x) asm("mov.u32 %0, %%laneid;" : "=r"(x))\n'
    )
    ctx = RuleContext(SourceFile("t.cu", data), None, RuleOptions(), parse=parse)
    code, macro = A.find_asm_sites(ctx)
    node = A.asm_node(ctx, code)
    assert node is not None and (node.start_byte, node.end_byte) == code.span
    assert A.asm_node(ctx, macro) is None


def _port(monkeypatch, data: bytes) -> tuple[int, list[str], bytes]:
    """(parses, finding codes, ported bytes) of one file through the engine, unsafe fixes on."""
    from porter.engine import EngineOptions, process_one
    from porter.parse import cuda as P

    parses = {"n": 0}
    real = P.parse

    def counted(text: bytes):
        parses["n"] += 1
        return real(text)

    monkeypatch.setattr(P, "parse", counted)
    r = process_one("k.cu", data, EngineOptions(unsafe_fixes=True))
    return parses["n"], sorted(f.code for f in r.findings), r.new_data


def test_a_file_with_only_asm_sites_is_not_parsed(monkeypatch):
    """The asm rules read the sites only: a file whose findings are all asm sites (in code, in
    a macro, a wrapper call) is not parsed; one with PT202's fixable `mov %0, %%laneid` is,
    for the fix, which edits the statement the tree read."""
    only_sites = (
        b"#include <cuda_runtime.h>\n"  # (a file without: the rewriter's tree places the HIP one)
        b"__device__ float ldg(const float* p) { float v;\n"
        b'  asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v; }\n'
        b'#define FENCE() asm volatile("fence.acq_rel.gpu;" ::: "memory")\n'
        b'__device__ void dep() { asm volatile("griddepcontrol.wait;" ::: "memory"); }\n'
    )
    parses, codes, _ = _port(monkeypatch, only_sites)
    assert (parses, codes) == (0, ["PT201", "PT201", "PT210"])
    fixable = b"#include <cuda_runtime.h>\n"
    fixable += (
        b'__device__ unsigned lane() { unsigned x;\n  asm("mov.u32 %0, %%laneid;" : "=r"(x));\n'
    )
    fixable += b"  return x; }\n"
    parses, codes, new = _port(monkeypatch, fixable)
    assert (parses, codes) == (1, ["PT202"])
    assert b"x = __lane_id();" in new
