"""Which `#include` lines are directives, decided from the bytes as the preprocessor does
(porter.rewrite.lex.Directives), and the rewriter's two paths: a file whose only CUDA text is
its includes is not parsed, and must be decided exactly as the tree path decides it.

The expected answers below follow the C/C++ translation phases (splices, then comments and
literals, then directives); `test_expectations_are_the_preprocessors` checks each against clang's
own preprocessor, so they are not porter's output written down."""

from __future__ import annotations

import re
import subprocess
import time

import pytest
from conftest import ROOT
from sources import repo_files

from porter.engine import EngineOptions, process_one
from porter.mappings.index import load_index
from porter.parse import cuda as P
from porter.rewrite.cuda import CudaRewriter, PortOptions
from porter.rewrite.includes import include_directives
from porter.rewrite.lex import Directives
from porter.rules.base import RuleContext, RuleOptions
from porter.source import SourceFile

MARKER = b'#include "porter_marker.h"'
CUDA_INCLUDE = b"#include <cuda_runtime.h>"

# (name, text with @INC where the include line goes, is that line a directive?)
CASES = [
    ("top", b"@INC\nint x;\n", True),
    ("indented", b"  \t@INC\nint x;\n", True),
    ("after-line-comment", b"// a comment\n@INC\n", True),
    ("after-closed-block-comment", b"/* a\n   b */\n@INC\n", True),
    ("in-block-comment", b"/* a\n@INC\n*/\n", False),
    ("block-comments-do-not-nest", b"/* a /* b */\n@INC\n", True),
    ("second-comment-open", b"/* a */ /* b\n@INC\n*/\n", False),
    ("comment-opener-in-line-comment", b"// see /* here\n@INC\n", True),
    ("line-comment-spliced", b"// a comment \\\n@INC\n", False),
    ("line-comment-spliced-crlf", b"// a comment \\\r\n@INC\r\n", False),
    ("code-line-spliced", b"int a = 1; \\\n@INC\n", False),
    ("macro-body", b"#define M(a) a \\\n@INC\n", False),
    ("macro-body-two-splices", b"#define M(a) a \\\n  + 1 \\\n@INC\n", False),
    ("after-macro", b"#define M(a) a \\\n  + 1\n@INC\n", True),
    ("comment-then-splice", b"/* c */ \\\n@INC\n", True),
    ("string-with-comment-opener", b'const char* s = "/*";\n@INC\nint t; // */\n', True),
    ("string-with-escaped-quote", b'const char* s = "\\" /*";\n@INC\n// */\n', True),
    ("char-quote", b"char q = '\"'; /* c */\n@INC\n", True),
    ("char-slash-and-star", b"char a = '/', b = '*';\n@INC\n", True),
    ("string-spliced", b'const char* s = "abc\\\n@INC\n";\n', False),
    ("string-then-comment", b'const char* s = "*/"; /* x\n@INC\n*/\n', False),
    ("unterminated-char", b"#error don't /* stop\n@INC\n// */\n", True),
    ("digit-separator", b"int n = 1'0; /* open\n@INC\n*/\n", False),
    ("hex-digit-separators", b"int n = 0x1'ab'cd; /* open\n@INC\n*/\n", False),
    ("float-digit-separator", b"double d = .5'0; /* open\n@INC\n*/\n", False),
    ("char-then-digit-separator", b"int n = 'a'1'0; /* open\n@INC\n*/\n", False),
    ("char-prefix", b"auto c = u8'a'; /* x */\n@INC\n", True),
    ("raw-string", b'const char* s = R"(\n@INC\n)";\n', False),
    ("raw-string-delimiter", b'const char* s = R"xy(a)"\n@INC\n)xy";\n', False),
    ("raw-string-prefixed", b'auto s = u8R"(\n@INC\n)";\n', False),
    ("raw-string-closed", b'auto s = LR"(a)";\n@INC\n', True),
    ("not-a-raw-prefix", b'#define FOOR\nauto s = FOOR"(" ;\n@INC\nint x = 0; // )"\n', True),
    ("header-name-comment-opener", b'#include "dir/*x.h"\n@INC\n// */\n', True),
    ("angled-header-name-comment-opener", b"#include <dir/*x.h>\n@INC\n// */\n", True),
    ("struct-body", b"struct S {\n@INC\n  int x;\n};\n", True),
    ("enum-body", b"enum E {\n  A,\n@INC\n  B\n};\n", True),
    ("function-body", b"void f() {\n@INC\n}\n", True),
    ("initializer", b"int t[] = {\n@INC\n};\n", True),
    ("concatenated-string", b'const char* s = "a"\n@INC\n"b";\n', True),
    ("after-identifier", b"FOO\n@INC\n", True),
    ("syntax-error", b"int a = (1 + ;\n@INC\nint b = ];\n", True),
    ("crlf", b"int a;\r\n@INC\r\nint b;\r\n", True),
    ("lone-cr", b"int a;\r@INC\rint b;\r", True),
]


def _with(text: bytes, include: bytes) -> bytes:
    return text.replace(b"@INC", include)


def _hash_of(data: bytes, include: bytes) -> int:
    return data.index(include) + include.index(b"#")


@pytest.mark.parametrize("name,text,directive", CASES, ids=[c[0] for c in CASES])
def test_directive_decision(name, text, directive):
    data = _with(text, MARKER)
    assert Directives(data).starts_directive(_hash_of(data, MARKER)) is directive


@pytest.mark.parametrize("name,text,directive", CASES, ids=[c[0] for c in CASES])
def test_port_rewrites_an_include_only_where_it_is_a_directive(name, text, directive):
    opts = EngineOptions()
    for suffix in (".cu", ".h"):
        data = _with(text, CUDA_INCLUDE)
        first = process_one("m" + suffix, data, opts)
        assert first.new_data is not None
        assert (b"<cuda_runtime.h>" not in first.new_data) is directive, suffix
        again = process_one("m" + suffix, first.new_data, opts)
        assert again.new_data == first.new_data, f"{suffix}: a second port changes the output"


def test_expectations_are_the_preprocessors(tmp_path, hip_clang):
    """clang's preprocessor includes the marker header exactly where CASES says it is a
    directive."""
    clang = hip_clang
    (tmp_path / "porter_marker.h").write_bytes(b"porter_marker_included\n")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "*x.h").write_bytes(b"\n")
    wrong = []
    for name, text, directive in CASES:
        src = tmp_path / f"{name}.cpp"
        src.write_bytes(_with(text, MARKER))
        r = subprocess.run(
            [clang, "-x", "c++", "-std=c++17", "-E", "-w", "-I", str(tmp_path), str(src)],
            capture_output=True,
            timeout=60,
        )
        # a case may be an error to compile (an #include in a function-like macro's body, a
        # string spliced into a directive): -E still writes what it preprocessed
        if b"file not found" in r.stderr:
            wrong.append(f"{name}: {r.stderr.decode()[:300]}")
            continue
        if (b"porter_marker_included" in r.stdout) is not directive:
            wrong.append(f"{name}: clang {'does not include' if directive else 'includes'} it")
    assert not wrong, "\n".join(wrong)


def test_directive_decisions_stay_linear():
    """Files built to make a naive lexer quadratic: a 1 MB line of numbers with digit
    separators and of adjacent character literals, thousands of includes after an unclosed-
    looking `/*` (the file is lexed) and in a lone-CR file. Each is decided in well under the
    time a rescan per include or per quote would take (minutes)."""
    budget = 10.0  # seconds of CPU for all of them; the linear scans take a fraction of one
    separators = b"int n[] = {" + b"1'0'0'0, " * 110_000 + b"};\n"
    chars = b"char c[] = {" + b"'a'," * 250_000 + b"};\n"
    includes = b"#include <cuda_runtime.h>\n" * 5_000
    files = [
        separators + b"/* x\n" + MARKER + b"\n*/\n" + MARKER + b"\n",
        chars + b"/* x\n" + MARKER + b"\n*/\n" + MARKER + b"\n",
        b"// see /*\n" + includes,
        b"int a;\r" + includes.replace(b"\n", b"\r"),
    ]
    wanted = [[False, True], [False, True], [True] * 5_000, [True] * 5_000]
    start = time.process_time()
    for data, want in zip(files, wanted):
        d = Directives(data)
        hashes = [m.start() for m in re.finditer(rb"#include", data)]
        assert [d.starts_directive(h) for h in hashes] == want
    assert time.process_time() - start < budget


# -- the rewriter's paths ---------------------------------------------------------------------
INCLUDES = (
    b"#include <cuda_runtime.h>",
    b'#include "cuda_fp16.h"',
    b"#include <cuda/std/atomic>",
    b"#include <cub/cub.cuh>",
    b"#include <hip/hip_runtime.h>",
    b"#include <cuda_not_a_header.h>",
    b"#  include <cuda.h>",
)
TAILS = (b"", b"void g() { cudaStream_t t; cudaStreamCreate(&t); }\n", b"__global__ void k() {}\n")


def _sources():
    for p in repo_files():
        yield str(p.relative_to(ROOT)), p.read_bytes()
    for name, text, _ in CASES:
        for i, inc in enumerate(INCLUDES):
            for j, tail in enumerate(TAILS):
                data = _with(text, inc) + tail
                yield f"{name}-{i}-{j}.cu", data
                yield f"{name}-{i}-{j}.h", data + b"\n" + INCLUDES[(i + 1) % len(INCLUDES)] + b"\n"


def _result(r):
    return (
        [(e.start, e.end, e.text) for e in r.edits.edits],
        [(f.code, f.line, f.col, f.message, f.name) for f in r.findings],
        r.stats.to_dict(),
        r.uses_cuda,
        sorted(r.declared),
    )


@pytest.mark.parametrize(
    "opts", [PortOptions(), PortOptions(roc=True, roc_areas=frozenset({"blas", "solver"}))]
)
def test_include_only_files_are_decided_as_the_tree_decides_them(opts):
    """Every fixture, example and include case: the rewriter run as the engine runs it (no tree:
    a file with nothing but includes to decide is not parsed) gives the same edits, findings,
    counts and declared names as the rewriter given the file's tree. The one difference: a file
    decided without a tree gets no PT003 (the regions tree-sitter could not parse), since
    nothing was parsed."""
    rw = CudaRewriter(load_index(), opts)
    unparsed = 0
    faults = []
    for rel, data in _sources():
        fast = rw.run(SourceFile(rel, data))
        tree = rw.run(SourceFile(rel, data), P.parse(data))
        want = _result(tree)
        if fast.tree is None:
            unparsed += tree.tree is not None
            want = (want[0], [f for f in want[1] if f[0] != "PT003"], *want[2:])
        if _result(fast) != want:
            faults.append(rel)
    assert not faults, f"the paths disagree on {len(faults)} inputs: {faults[:10]}"
    assert unparsed >= len(CASES), "the include-only path was not taken"


# -- the rules' view ----------------------------------------------------------------------------
CUDNN_INCLUDE = b"#include <cudnn.h>"


def _reports_cudnn(data: bytes) -> bool:
    """Does PT851 (a rule reading `ctx.includes`) report the `#include <cudnn.h>`?"""
    return any(f.code == "PT851" for f in process_one("m.cu", data, EngineOptions()).findings)


def test_rules_see_the_directives_the_rewriter_rewrites():
    """Over every case, with and without CUDA code after it (a file the engine parses and one it
    does not), and with and without a tree: `ctx.includes`, which every rule reads, lists the
    include exactly where the rewriter rewrites it, which is exactly where it is a directive;
    end to end, PT851 reports `#include <cudnn.h>` exactly there too."""
    index = load_index()
    opts = EngineOptions()
    wrong = []
    for name, text, directive in CASES:
        for j, tail in enumerate(TAILS):
            data = _with(text, CUDA_INCLUDE) + tail
            at = _hash_of(data, CUDA_INCLUDE)
            ported = process_one("m.cu", data, opts).new_data
            assert ported is not None
            rewritten = b"<cuda_runtime.h>" not in ported
            for tree in (None, P.parse(data)):
                ctx = RuleContext(SourceFile("m.cu", data), tree, RuleOptions(), index)
                seen = any(i.start == at and i.path == "cuda_runtime.h" for i in ctx.includes)
                if {seen, rewritten} != {directive}:
                    wrong.append(
                        f"{name}-{j} (tree: {tree is not None}): rules {seen}, "
                        f"rewriter {rewritten}, preprocessor {directive}"
                    )
            if _reports_cudnn(_with(text, CUDNN_INCLUDE) + tail) is not directive:
                wrong.append(f"{name}-{j}: PT851 disagrees with the preprocessor")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    "text,directive",
    [
        # each decided wrongly by tree-sitter's preproc_include nodes, which the rules read when
        # the file was parsed (porter <= the commit before this test)
        (b"struct S {\n@INC\n  int x;\n};\n", True),
        (b"enum E {\n  A,\n@INC\n  B\n};\n", True),
        (b"int t[] = {\n@INC\n};\n", True),
        (b'const char* s = "a"\n@INC\n"b";\n', True),
        (b"#error don't /* stop\n@INC\n// */\n", True),
        (b"int a = 1; \\\n@INC\n", False),
        # each decided wrongly from block-comment spans, which the rules read when it was not
        (b'const char* s = R"(\n@INC\n)";\n', False),
        (b"// a comment \\\n@INC\n", False),
        (b"#define M(a) a \\\n@INC\n", False),
        (b'const char* s = "/*";\n@INC\nint t; // */\n', True),
        (b"// see /* here\n@INC\n", True),
        (b'#include "dir/*x.h"\n@INC\n// */\n', True),
    ],
)
def test_rules_decide_where_the_old_deciders_did_not(text, directive):
    """PT851 reports an include in a struct or initializer and not one in a raw string or
    after a line splice, whether the file is parsed (a CUDA name follows) or not."""
    data = _with(text, CUDNN_INCLUDE)
    assert _reports_cudnn(data) is directive
    assert _reports_cudnn(data + b"void g() { cudaStream_t t; }\n") is directive
    found = [d.start for d in include_directives(data) if d.path == "cudnn.h"]
    assert found == ([_hash_of(data, CUDNN_INCLUDE)] if directive else [])


def test_include_directives_spans():
    """Each directive's `#`, path start and end, and path, in order (a BOM, spaces around `#`,
    quotes, CRLF); a computed include and `#include_next` are not listed."""
    data = (
        b'\xef\xbb\xbf#include "a.h"\r\n  #  include < b/c.h >\r\n#include M\r\n'
        b"#include_next <d.h>\r\n"
    )
    b = data.index(b"#  include")
    assert include_directives(data) == [
        (3, 17, "a.h", 12),
        (b, b + 20, "b/c.h", b + 11),
    ]


# -- PT003 (documented in porter/rules/api.py): only for files porter parses ---------------------
PAIRED_ERROR = b"int a = 1 + ;\n"  # a syntax error whose brackets pair up
SYNTAX_ERROR = b"int a = (1 + ;\n"


@pytest.mark.parametrize(
    "text,reported",
    [
        # only include lines of CUDA text: ported without a parse, so no PT003
        (CUDA_INCLUDE + b"\n" + SYNTAX_ERROR, False),
        (b'#include "cuda_fp16.h"\n' + SYNTAX_ERROR + b"#include <vector>\n", False),
        # names, device code, qualified names, a vendor switch: decided from the bytes
        # (CudaRewriter._lexical) unless the brackets do not pair up, a likely syntax error that
        # the parse reports
        (CUDA_INCLUDE + b"\n" + SYNTAX_ERROR + b"cudaStream_t s;\n", True),
        (SYNTAX_ERROR + b"void f() { cudaDeviceSynchronize(); }\n", True),
        (CUDA_INCLUDE + b"\n" + SYNTAX_ERROR + b"__global__ void k() {}\n", True),
        (b"#include <thrust/sort.h>\n" + SYNTAX_ERROR + b"auto p = thrust::cuda::par;\n", True),
        (SYNTAX_ERROR + b"__global__ void k() {}\n", True),
        (CUDA_INCLUDE + b"\n#ifdef __HIP_PLATFORM_AMD__\n#endif\n" + SYNTAX_ERROR, True),
        (CUDA_INCLUDE + b"\n" + PAIRED_ERROR + b"cudaStream_t s;\n", False),
        (PAIRED_ERROR + b"void f() { cudaDeviceSynchronize(); }\n", False),
        (CUDA_INCLUDE + b"\n" + PAIRED_ERROR + b"__global__ void k() {}\n", False),
        (b"#include <thrust/sort.h>\n" + PAIRED_ERROR + b"auto p = thrust::cuda::par;\n", False),
        (PAIRED_ERROR + b"__global__ void k() {}\n", False),
        (CUDA_INCLUDE + b"\n#ifdef __HIP_PLATFORM_AMD__\n#endif\n" + PAIRED_ERROR, False),
        # a kernel launch or a declaration of a table name is read from the tree
        (CUDA_INCLUDE + b"\n" + SYNTAX_ERROR + b"void h() { k<<<1, 1>>>(); }\n", True),
        (CUDA_INCLUDE + b"\n" + PAIRED_ERROR + b"void h() { k<<<1, 1>>>(); }\n", True),
        (PAIRED_ERROR + b"typedef int cudaStream_t;\n", True),
        # no CUDA text at all
        (SYNTAX_ERROR, False),
    ],
)
def test_pt003_only_for_parsed_files(text, reported):
    for suffix in (".cu", ".h"):
        r = process_one("m" + suffix, text, EngineOptions())
        assert any(f.code == "PT003" for f in r.findings) is reported, suffix
        assert r.new_data is not None
        if CUDA_INCLUDE in text or b"__global__" in text:
            assert b"<hip/hip_runtime.h>" in r.new_data  # the unparsed file is still ported


# -- files decided without a tree (CudaRewriter._lexical) ----------------------------------------
QUALIFIED = b"thrust::cuda::par"
LEXICAL_CASES = [
    b"auto p = " + QUALIFIED + b";\n",
    b"// " + QUALIFIED + b"\nint x;\n",
    b"/* " + QUALIFIED + b"\n */ int x;\n",
    b'const char* s = "' + QUALIFIED + b'";\n',
    b'const char* s = R"x(' + QUALIFIED + b')x";\n',
    b'const char* s = R"x(\n)" ' + QUALIFIED + b' \n)x"; auto q = ' + QUALIFIED + b";\n",
    b"#define P " + QUALIFIED + b"\n",
    b'#define S "' + QUALIFIED + b'"\n',
    b"// a comment \\\n " + QUALIFIED + b"\nauto q = " + QUALIFIED + b";\n",
    b"int n = 1'000; auto p = " + QUALIFIED + b"; char c = '\\'';\n",
    b"char c = '\"'; auto p = " + QUALIFIED + b'; // "\n',
    b"#if 0\nit's " + QUALIFIED + b"\n#endif\nauto q = " + QUALIFIED + b";\n",
    b"namespace tc = thrust::cuda;\nauto p = tc::par;\n",
    b"namespace /* x */ tc = thrust::cuda_cub;\n",
    b"auto p = thrust :: cuda :: par;\n",
    b"auto a = cuda::std::atomic<int>{};\n",
    b"__device__ int f();\n",
    b"// __device__\nint f();\n",
    b'const char* s = "__global__";\n',
    b"#define D __device__\n",
    b"/* __shared__ */ int threadIdx_x;\n",
    b"int a = (1 + ;\nauto p = " + QUALIFIED + b";\n__device__ int g();\n",
]
LEXICAL_HEADERS = (b"", b"#include <thrust/sort.h>\n", b"#include <hip/hip_runtime.h>\n")


def test_files_without_names_are_decided_as_the_tree_decides_them():
    """A file whose only CUDA text is qualified names, device code and includes is ported from
    its bytes alone: the same edits, findings (but PT003), counts and declared names as from
    its tree, with qualified names and device keywords in comments, literals (raw strings,
    character literals, digit separators), macro bodies and `#if 0` blocks."""
    rw = CudaRewriter(load_index(), PortOptions())
    lexical, faults = 0, []
    for i, case in enumerate(LEXICAL_CASES):
        for head in LEXICAL_HEADERS:
            for suffix in (".cu", ".h"):
                data = head + case
                fast = rw.run(SourceFile(f"m{i}{suffix}", data))
                tree = rw.run(SourceFile(f"m{i}{suffix}", data), P.parse(data))
                want = _result(tree)
                if fast.tree is None:
                    lexical += 1
                    want = (want[0], [f for f in want[1] if f[0] != "PT003"], *want[2:])
                if _result(fast) != want:
                    faults.append((suffix, data))
    assert not faults, faults[:5]
    assert lexical >= len(LEXICAL_CASES) * 2, "the lexical path was not taken"
