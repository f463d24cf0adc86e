"""Names decided from the bytes (porter/rewrite/plain.py): a file whose table names are all plain
references is ported without a parse, and must be ported exactly as the tree would port it.

Two checks of the class, not of cases: (1) wherever `plain_reference` says a name token is a
plain reference, the tree agrees (it is code or opaque macro text, not a declared name, a member,
an elaborated type or `#undef`'s argument), over every fixture, example and a sample of CUDA's
own headers; (2) the rewriter's lexical path and its tree path give the same edits and findings
(PT003 aside) on every file the lexical path takes. Then the cases each rule of `plain` exists
for, which must go to the parser."""

from __future__ import annotations

import bisect
from pathlib import Path

import pytest
from sources import cuda_headers, repo_files

from porter.mappings.index import load_index
from porter.parse import cuda as P
from porter.rewrite.cuda import CudaRewriter, PortOptions
from porter.rewrite.lex import identifiers
from porter.rewrite.names import (
    Contexts,
    LexicalContexts,
    elaborated_keyword,
    in_undef,
    is_declaration_name,
)
from porter.rewrite.plain import PlainNames
from porter.source import SourceFile


def _sources() -> list[Path]:
    return repo_files() + cuda_headers("*.h")[:60]  # and a sample of CUDA's own headers


def _plain_hits(data: bytes, rw: CudaRewriter):
    """(pos, name) of each name token in code that `plain_reference` calls plain."""
    idents = identifiers(data)
    name_hits, _ = rw._candidates(data, idents)
    if not name_hits:
        return []
    ctx = LexicalContexts(data)
    spans, starts = ctx.spans()
    plain = PlainNames(data, spans, starts)
    out = []
    for pos, n in name_hits:
        k = bisect.bisect_right(starts, pos) - 1
        if k >= 0 and pos < spans[k][1] or plain.in_header_name(pos):
            continue
        if plain.plain_reference(pos, pos + len(n), type_like=True):
            out.append((pos, n))
    return out


@pytest.fixture(scope="module")
def rewriter() -> CudaRewriter:
    return CudaRewriter(load_index(), PortOptions())


def test_plain_is_a_reference_in_the_tree(rewriter):
    """Soundness of the one-sided test: every token it calls plain (even as a type-like name,
    its most permissive reading) the tree reads as a reference."""
    checked = 0
    wrong = []
    for path in _sources():
        data = path.read_bytes()
        hits = _plain_hits(data, rewriter)
        if not hits:
            continue
        root = P.parse(data).root_node
        if root.has_error:
            continue  # the lexical path takes balanced files only; errors read differently
        ctx = Contexts(data, root)
        for pos, n in hits:
            kind, node = ctx.at(pos, pos + len(n))
            checked += 1
            if kind == "opaque":
                ok = not in_undef(node)
            elif kind in ("code",):
                ok = (
                    not is_declaration_name(node)
                    and node.type != "field_identifier"
                    and elaborated_keyword(data, node) is None
                )
            else:
                ok = kind == "lexical"
            if not ok:
                wrong.append(f"{path.name}:{pos} {n.decode()} ({kind}, {node and node.type})")
    assert checked > 200
    assert not wrong, wrong[:10]


def _port_both(data: bytes, path: str = "x.h", **opts):
    """The rewriter's result without a tree (the lexical path when it applies) and with one."""
    index = load_index()
    lexical = CudaRewriter(index, PortOptions(**opts)).run(SourceFile(path, data))
    tree = CudaRewriter(index, PortOptions(**opts)).run(SourceFile(path, data), P.parse(data))

    def seen(res):
        edits = sorted((e.start, e.end, e.text) for e in res.edits.edits)
        found = sorted(
            (f.code, f.line, f.col, f.message) for f in res.findings if f.code != "PT003"
        )
        stats = (dict(res.stats.converted), res.stats.unsupported, res.stats.includes_added)
        return edits, found, stats, sorted(res.declared), res.uses_cuda

    return lexical, seen(lexical), seen(tree)


def test_lexical_path_ports_as_the_tree_does():
    taken = 0
    for path in _sources():
        data = path.read_bytes()
        if b"\0" in data:
            continue
        for opts in ({}, {"roc": True}, {"rewrite_comments": True, "rewrite_strings": True}):
            res, lex, tree = _port_both(data, path.name, **opts)
            if res.tree is None and lex[0]:
                taken += 1  # edited without a tree
            assert lex == tree, (path, opts)
    assert taken > 10  # the lexical path is taken on real files, not only skipped


PLAIN = [
    b"void f(float* d) { cudaMemset(d, 0, 16); cudaDeviceSynchronize(); }\n",
    b"cudaStream_t s; cudaError_t e = cudaSuccess;\n",
    b"#include <cub/cub.cuh>\nvoid f() { cub::DeviceReduce::Sum(0, n, a, b, c); }\n",
    b"#if CUDART_VERSION >= 11000\nint x;\n#endif\n",
    b"#define MY_MALLOC(p, n) cudaMalloc(p, n)\n",
    b"int f(int a) { return g(a, cudaGetLastError(), 3); }\n",
    b"static inline __half h(__half x) { return x; }\n",
    b"void f() { if (x) { y(); } cudaDeviceSynchronize(); }\n",
    b"void f() { (void)::cudaFree(p); }\n",
    # a template argument after a comma (not a declarator: one is never followed by `>`)
    b"bool b = is_same<T, __nv_bfloat16>::value && is_same<U, cudaStream_t>>::value;\n",
    # a launch or a namespace alias in a comment or a literal is none
    b"// k<<<1, 1>>>(); namespace cg = cooperative_groups;\nvoid f() { cudaFree(p); }\n",
    b'const char* s = "k<<<g, b>>>()"; void f() { cudaDeviceSynchronize(); }\n',
]

TREE = [
    b"enum E { cudaSuccess = 0, cudaErrorX };\n",  # enumerators the project declares
    b"cudaError_t cudaMalloc(void** p, size_t n);\n",  # a prototype
    b"void f(S* s) { s->cudaStream = 0; x.cudaEvent = 1; }\n",  # members
    b"struct S { S() : cudaStream(0) {} int cudaStream; };\n",  # member initializer
    b"#define F(cudaStream_t) cudaStream_t\n",  # a macro's parameter
    b"#undef cudaMalloc\n",
    b"void f() { struct cudaDeviceProp p; }\n",  # an elaborated type
    b"void f() { for (int a = 0, cudaX = 1; a < 2; ++a) {} }\n",  # a loop head's declarator
    b"int a, cudaStream;\n",  # a declarator in a list
    b"void g() { k<<<1, 1>>>(); cudaFree(p); }\n",  # a launch in code
    b"namespace cg = cooperative_groups;\nvoid f() { cudaFree(p); }\n",  # an alias in code
    b"// namespace\nnamespace ns = other; void f() { cudaFree(p); }\n",  # one after a comment
    b"#define L(k) k<<<1, 1>>>()\nvoid f() { cudaFree(p); }\n",  # a launch in a macro body
    b"void f() { cudaMemset(d, 0, 16; }\n",  # unbalanced: PT003 comes from the parse
    b"void f() { cudaMemcpy2D(a, 1, b, 1, 1, 1, cudaMemcpyDefault); }\n",  # a call transform?
]


@pytest.mark.parametrize("text", PLAIN)
def test_plain_files_are_not_parsed(text):
    res, lex, tree = _port_both(text)
    assert res.tree is None, text
    assert lex == tree


@pytest.mark.parametrize("text", TREE)
def test_other_files_are_parsed_and_port_as_before(text):
    res, lex, tree = _port_both(text)
    assert lex == tree
    if text.startswith(b"void f() { cudaMemcpy2D"):
        return  # parsed only when a row of the name has a call transform (tables decide)
    assert res.tree is not None, text


def test_unbalanced_file_keeps_pt003():
    from porter.engine import EngineOptions, process_one

    text = next(t for t in TREE if t.endswith(b"16; }\n"))
    res = process_one("x.h", text, EngineOptions())
    assert any(f.code == "PT003" for f in res.findings)


# Macros tree-sitter does not know make the next name look declared (an attribute macro before
# a return type, a statement macro before `return`, a namespace macro after a class): CCCL's
# `_CCCL_HIDE_FROM_ABI cudaError_t f()`, `_CCCL_DIAG_POP return cudaSuccess;`. Both paths rename
# them: the lexical one by their neighbours, the tree one because a tree with errors is checked
# against the same neighbours (`CudaRewriter._misread_declaration`).
MISREAD = b"""#define MY_ATTR
#define MY_POP
struct S {
  MY_ATTR cudaError_t count(int& n) const { return cudaSuccess; }
};
int g(int* p) {
  cudaMemset(p, 0, 4);
  MY_POP
  return cudaSuccess;
}
"""


def test_names_after_unknown_macros_are_renamed_with_and_without_tree():
    root = P.parse(MISREAD).root_node
    assert root.has_error  # the case: tree-sitter misreads the macros
    res, lex, tree = _port_both(MISREAD)
    assert res.tree is None
    assert lex == tree
    edited = {bytes(e.text) for e in res.edits.edits}
    assert {b"hipError_t", b"hipSuccess", b"hipMemset"} <= edited
    assert len(lex[0]) == 4  # every name: cudaError_t, both cudaSuccess, cudaMemset


def test_declarations_stay_declared_in_a_tree_with_errors():
    """The check of a misread tree renames references only: a real declaration beside an
    error region is still the project's own (a prototype, a member, an enumerator)."""
    text = (
        b"int cudaGetLastError(void);\n"
        b"struct S { int cudaStream; };\n"
        b"enum E { cudaErrorFoo = 3 };\n"
        b"void f() { broken( ; }\n"
    )
    assert P.parse(text).root_node.has_error
    index = load_index()
    res = CudaRewriter(index, PortOptions()).run(SourceFile("x.h", text), P.parse(text))
    assert not res.edits.edits, [(e.start, e.text) for e in res.edits.edits]


def test_include_position_from_the_bytes_is_the_trees():
    """Where `#include <hip/hip_runtime.h>` goes, read from the bytes, is where the tree puts
    it in every file whose tree has no error (where it has, the tree's top level may be broken,
    and the bytes' reading is used by both paths)."""
    from porter.rewrite.includes import include_position as tree_position
    from porter.rewrite.plain import include_position

    compared = 0
    for path in _sources():
        data = path.read_bytes()
        root = P.parse(data).root_node
        if root.has_error:
            continue
        spans, starts = LexicalContexts(data).spans()
        pos = include_position(PlainNames(data, spans, starts))
        assert pos == tree_position(data, root), path
        compared += 1
    assert compared > 150


@pytest.mark.parametrize(
    "text, before",
    [
        (b"// c\n#pragma once\n\n#include <a.h>\n", b"#include <a.h>"),
        (b"/* c */\n#ifndef G\n#define G\n// x\n#include <a.h>\nint x;\n#endif\n", b"#include"),
        (b"#ifndef G\n#define G\n\nvoid f();\n#endif\n", b"void f();"),
        (b"\xef\xbb\xbfint x;\n", b"int x;"),
        (b"/* a */ int x;\n", b"/* a */"),
    ],
)
def test_include_position_cases(text, before):
    from porter.rewrite.plain import include_position

    spans, starts = LexicalContexts(text).spans()
    pos = include_position(PlainNames(text, spans, starts))
    assert pos is not None and text[pos:].startswith(before), (pos, text[pos:])


def test_include_position_unsure_goes_to_the_tree():
    from porter.rewrite.plain import include_position

    for text in (b"#endif\nint x;\n", b'# 1 "a.cu"\nint x;\n', b"#ifndef G\nint x;\n"):
        spans, starts = LexicalContexts(text).spans()
        assert include_position(PlainNames(text, spans, starts)) is None, text
