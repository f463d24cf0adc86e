"""The byte-level lexers' fast paths give what the long way gives. Each fast path (one regex
match per comment or literal, the `#include` lines found from their `#`, ...) is checked against
the implementation it replaced, kept here as the reference, on every fixture and example source,
on seeded random texts built from the pieces the lexing depends on (splices, CRLF, comments,
literals, raw strings, digit separators, header names, unterminated comments, non-ASCII bytes),
and on cases built for them."""

from __future__ import annotations

import random
import re

import pytest
from built_texts import LEX_PIECES as PIECES
from built_texts import LINE_PIECES, SPAN_CASES
from built_texts import lex_random_texts as _random_texts
from built_texts import lex_sources as _sources

from porter.rewrite import lex as L
from porter.rewrite.lex import comment_and_literal_spans

# -- the references: the implementations the fast paths replaced ------------------------------

_LEX_START = re.compile(rb"/[/*]|[\"']")
_BLANKS = re.compile(rb"[ \t]*")


def reference_comment_and_literal_spans(data: bytes, end: int) -> list[tuple[int, int]]:
    """lex.comment_and_literal_spans one token at a time, as it was before the `_TOKEN` regex."""
    spans: list[tuple[int, int]] = []
    search = _LEX_START.search
    i = 0
    line = last = 0
    header_line, header = -1, None
    floor, separator = 0, -1
    while i < end:
        m = search(data, i, end)
        if m is None:
            break
        i = m.start()
        nl = data.rfind(b"\n", last, i)
        if nl >= 0:
            line = nl + 1
        last = i
        if header_line != line:
            header_line, header = line, None
            blanks = _BLANKS.match(data, line)
            assert blanks is not None
            if data[blanks.end()] == 0x23:
                header = L._HEADER_NAME_OPEN.match(data, line)
        c = data[i]
        if header is not None and header.end() >= i:
            i = header.end() + 1
            continue
        if c == 0x2F:
            j = L._line_comment_end(data, i) if data[i + 1] == 0x2F else data.find(b"*/", i + 2)
            j = len(data) if j < 0 else (j if data[i + 1] == 0x2F else j + 2)
        elif c == 0x27 and L._digit_separator(data, i, floor, separator):
            separator = i
            i += 1
            continue
        else:
            j = L._literal_end(data, i)
        spans.append((i, j))
        i = floor = j
    return spans


# lex._TOKEN and _spans_before as they were before the tokens were taken in one pass (each
# `_TOKEN` match looked at in a Python loop, every #include line's header name found first)
_TOKEN_BEFORE = re.compile(
    rb"//(?:[^\\\n]++|\\\r?\n|\\)*+"
    rb"|/\*(?:[^*]++|\*(?!/))*+(?:\*/)?"
    rb'|"(?:[^"\\\n]++|\\\r\n|\\.)*+"?'
    rb"|'(?:[^'\\\n]++|\\\r\n|\\.)*+'?",
    re.DOTALL,
)
_HEADER_HASH = re.compile(rb"#[ \t]*(?:include|include_next|import)[ \t]*[<\"]")


def _reference_header_names(data: bytes) -> list[tuple[int, int]]:
    out = []
    for h in _HEADER_HASH.finditer(data):
        line = data.rfind(b"\n", 0, h.start()) + 1
        if data[line : h.start()].strip(b" \t"):
            continue
        m = L._HEADER_NAME_OPEN.match(data, line)
        if m is not None:
            out.append((line, m.end()))
    return out


def reference_token_loop_spans(data: bytes, end: int) -> list[tuple[int, int]]:
    """lex._spans_before as it was: one `_TOKEN` match at a time, in a Python loop."""
    spans: list[tuple[int, int]] = []
    append = spans.append
    headers = _reference_header_names(data) if b"#" in data else []
    headers.append((len(data) + 1, -1))
    k = -1
    next_line, header_end = headers[0][0], -1
    floor, separator = 0, -1
    pos = 0
    while pos < end:
        for m in _TOKEN_BEFORE.finditer(data, pos):
            i = m.start()
            c = data[i]
            if i >= end or (c == 0x2F and i + 2 > end):
                return spans
            if i >= next_line:
                while headers[k + 1][0] <= i:
                    k += 1
                next_line, header_end = headers[k + 1][0], headers[k][1]
            if i <= header_end:
                pos = header_end + 1
                break
            j = m.end()
            if c == 0x27:
                if (
                    i > floor
                    and data[i - 1] in L._PP_NUMBER_BYTES
                    and L._digit_separator(data, i, floor, separator)
                ):
                    separator = i
                    pos = i + 1
                    break
            elif c == 0x22 and i > 0 and data[i - 1] == 0x52:
                j = L._literal_end(data, i)
                if j != m.end():
                    append((i, j))
                    pos = floor = j
                    break
            append((i, j))
            floor = j
        else:
            break
    return spans


# -- inputs ------------------------------------------------------------------------------------

# -- the checks --------------------------------------------------------------------------------


def _check_spans(data: bytes, end: int) -> None:
    got = L._spans_before(data, end)
    assert got == reference_comment_and_literal_spans(data, end), (data[:300], end)
    assert got == reference_token_loop_spans(data, end), (data[:300], end)


def test_comment_and_literal_spans_sources():
    for data in _sources():
        assert comment_and_literal_spans(data, len(data)) == reference_comment_and_literal_spans(
            data, len(data)
        ), data[:200]
        _check_spans(data, len(data))


def test_comment_and_literal_spans_random():
    for data in _random_texts(20261203, 4000):
        assert comment_and_literal_spans(data, len(data)) == reference_comment_and_literal_spans(
            data, len(data)
        ), data
    for data in _random_texts(20261204, 3000, LINE_PIECES):
        _check_spans(data, len(data))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_comment_and_literal_spans_stop_before_end(seed):
    """Spans that start before `end` (a two-byte `//` or `/*` must lie before it)."""
    rnd = random.Random(seed)
    for pieces in (PIECES, LINE_PIECES):
        for data in _random_texts(seed, 500, pieces):
            _check_spans(data, rnd.randint(0, len(data)))


def test_comment_and_literal_spans_built():
    """Cases where the one-pass tokens are not the preprocessor's, alone, next to each other
    and next to ordinary tokens: each is lexed from there until the tokens agree again."""
    for data in SPAN_CASES:
        for text in (data, data * 3, b"// c\n" + data + b'"s" /* b */\n', data + b"\n" + data):
            for end in (len(text), len(text) // 2, len(text) - 1):
                _check_spans(text, max(end, 0))


# -- identifiers -------------------------------------------------------------------------------


def test_identifiers_are_the_regex_tokens():
    texts = _sources() + _random_texts(7, 2000) + [b"0x1F 1e10 123 0 _9 9_ a$b 1'000 u8R"]
    for data in texts:
        assert L.identifiers(data) == set(L.IDENT.findall(data)), data[:200]


# -- the completeness check's identifiers of an edited file ------------------------------------

EDIT_TEXTS = [b"", b"hip", b"hipMalloc", b" ", b"-", b"x1", b"cudaFree", b"9", b"::", b"\n", b"_"]


def _random_edits(rnd: random.Random, data: bytes):
    from porter.findings import Edit

    points = sorted(rnd.sample(range(len(data) + 1), min(len(data) + 1, rnd.randint(0, 8))))
    edits = []
    for a, b in zip(points[::2], points[1::2]):
        edits.append(Edit(a, b, rnd.choice(EDIT_TEXTS)))
    if points and rnd.random() < 0.3:
        edits.append(Edit(points[-1], points[-1], rnd.choice(EDIT_TEXTS)))  # an insertion
    return edits


def test_edited_identifiers_hold_the_new_tokens():
    """The input's tokens and `_edited_identifiers` hold every token of the edited bytes."""
    from porter.rewrite.edits import apply
    from porter.rewrite.invariant import _BackMap, _edited_identifiers

    rnd = random.Random(11)
    texts = [d for d in _sources() if len(d) < 20000] + _random_texts(5, 1500)
    for data in texts:
        for _ in range(3):
            edits = _random_edits(rnd, data)
            new = apply(data, edits)
            held = L.identifiers(data) | _edited_identifiers(new, _BackMap(edits))
            assert L.identifiers(new) <= held, (data, edits)


def test_leftovers_from_the_input_tokens():
    """`leftovers` given the input's tokens finds what it finds from the output's own."""
    from porter.mappings.index import load_index
    from porter.rewrite.edits import apply
    from porter.rewrite.invariant import leftovers
    from porter.source import SourceFile

    index = load_index()
    rnd = random.Random(12)
    texts = [d for d in _sources() if len(d) < 20000] + [
        b"cudaMalloc(&p, n); cudaFree(p); // cudaMemcpy\n#include <cuda_runtime.h>\n",
        b"int a = cuda_x; cudaStream_t s; x.cudaEvent; cub::Foo f; cudaError_t e;\n",
    ]
    for data in texts:
        src = SourceFile("f.cu", data)
        for _ in range(3):
            edits = _random_edits(rnd, data)
            new = apply(data, edits)
            want = leftovers(index, src, new, edits, [])
            got = leftovers(index, src, new, edits, [], input_idents=L.identifiers(data))
            assert got == want, (data[:200], edits)


# -- project declaration sites -----------------------------------------------------------------


def reference_declaration_sites(data: bytes, names) -> list[tuple[int, int]]:
    """names.project_declaration_sites as it was before the `(` pre-filter of function sites."""
    from porter.rewrite.names import _DECL_SITES, _FUNCTION_SITE_REVERSED

    out = []
    for rx, word_start in _DECL_SITES:
        for m in rx.finditer(data):
            if m.group(1) in names and not (
                word_start and m.start() > 0 and data[m.start() - 1] in L.WORD
            ):
                out.append(m.span(1))
    if b"{" in data:
        size = len(data)
        for m in _FUNCTION_SITE_REVERSED.finditer(data[::-1]):
            start, end = size - m.end(1), size - m.start(1)
            if data[start:end] in names:
                out.append((start, end))
    return out


DECL_PIECES = [
    b"cudaError_t",
    b"cudaMalloc",
    b"cudaStream_t",
    b"9cudaFree",
    b"cudaFree9",
    b"x",
    b" ",
    b"\t",
    b"\n",
    b"(",
    b")",
    b"{",
    b"}",
    b";",
    b"*",
    b"&",
    b"::",
    b"<int>",
    b",",
    b"=",
    b"typedef ",
    b"struct ",
    b"using ",
    b"#define ",
    b"static ",
    b"void ",
    b"return ",
    b"// c\n",
]


def test_declaration_sites_are_the_long_ways():
    from porter.mappings.index import load_index
    from porter.rewrite.lex import scanner_for
    from porter.rewrite.names import project_declaration_sites

    relevant = scanner_for(load_index()).relevant
    small = {b"cudaMalloc", b"cudaStream_t", b"cudaError_t", b"x", b"cudaFree9"}
    rnd = random.Random(13)
    texts = _sources() + [
        b"cudaError_t cudaMalloc(void** p, size_t n) {\n  return cudaSuccess;\n}\n",
        b"static inline cudaError_t\ncudaFree(void* p) { return 0; }\n",
        b"int f(int (*g)(int)) { return g(1); }\ncudaStream_t *cudaStreamCreate (int) {}\n",
    ]
    texts += [
        b"".join(rnd.choice(DECL_PIECES) for _ in range(rnd.randint(1, 40))) for _ in range(3000)
    ]
    # function definitions with random pieces around and inside their parts
    parts = [[b"", b"\n", b"static "], [b"cudaError_t", b"void", b"x", b"(", b"::"], [b" ", b"*"]]
    parts += [DECL_PIECES[:6], [b" ", b"", b"\t"], [b"(", b" (", b""], DECL_PIECES, [b")", b""]]
    parts += [[b" ", b"const ", b";", b""], [b"{", b"{ return 0; }", b""]]
    texts += [b"".join(rnd.choice(p) for p in parts) * rnd.randint(1, 3) for _ in range(3000)]
    for data in texts:
        for names in (relevant, small, frozenset(small)):
            assert list(project_declaration_sites(data, names)) == reference_declaration_sites(
                data, names
            ), data[:300]


# -- the completeness check's own lexer --------------------------------------------------------

_SPECIAL = re.compile(rb"[/\"']")


def reference_code_spans_to_skip(data: bytes) -> list[tuple[int, int]]:
    """invariant.code_spans_to_skip one special byte at a time, as it was before _SKIP_TOKEN."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(data)
    find = data.find
    while i < n:
        s = _SPECIAL.search(data, i)
        if s is None:
            break
        j = s.start()
        c = data[j]
        if c == 0x2F:
            nxt = data[j + 1 : j + 2]
            if nxt == b"/":
                e = find(b"\n", j)
                while e > 0 and data[e - 1 : e] == b"\\" and e + 1 < n:
                    e = find(b"\n", e + 1)
                e = n if e < 0 else e
            elif nxt == b"*":
                e = find(b"*/", j + 2)
                e = n if e < 0 else e + 2
            else:
                i = j + 1
                continue
            spans.append((j, e))
            i = e
        elif c == 0x27 and j > 0 and data[j - 1] in L.WORD and _reference_in_number(data, j):
            i = j + 1
        else:
            if (
                c == 0x22
                and j > 0
                and data[j - 1 : j] == b"R"
                and (j < 2 or data[j - 2] not in L.WORD or data[j - 2 : j - 1] in b"uUL8")
            ):
                m = re.match(rb'"([^()\\ \n]{0,16})\(', data[j : j + 20])
                if m:
                    close = b")" + m.group(1) + b'"'
                    e = find(close, j + m.end())
                    e = n if e < 0 else e + len(close)
                    spans.append((j, e))
                    i = e
                    continue
            e = j + 1
            while e < n and data[e] != c and data[e] != 0x0A:
                e += 2 if data[e] == 0x5C else 1
            e = min(e + 1, n)
            spans.append((j, e))
            i = e
    return spans


def _reference_in_number(data: bytes, j: int) -> bool:
    k = j
    while k > 0 and data[k - 1] in L.WORD:
        k -= 1
    return data[k : k + 1].isdigit()


def test_code_spans_to_skip_are_the_long_ways():
    from porter.rewrite.invariant import code_spans_to_skip

    texts = _sources() + _random_texts(17, 4000) + [b"//\\", b"// a\\\n", b'"\\', b"'a\\\n'"]
    for data in texts:
        assert code_spans_to_skip(data) == reference_code_spans_to_skip(data), data[:200]


def test_cuda_looking_is_looks_cuda():
    """The joined-tokens search (with its first-byte look-ahead) finds what `looks_cuda` says
    token by token (`LOOKING_PREFIXES` holds the first two bytes of every alternative)."""
    from porter.mappings.index import load_index

    index = load_index()
    tokens = set(L.table_names(index)) | {b"cuda", b"cudaX", b"cuFoo", b"CU_X", b"__nv_bf16"}
    tokens |= {b"make_cudaExtent", b"cublasLtX", b"NVRTC_ERROR", b"nvtxRangePush", b"cu", b"_"}
    for data in _sources():
        tokens |= L.identifiers(data)
    assert L.cuda_looking(tokens) == {t for t in tokens if L.CUDA_LOOKING_B.match(t)}
    assert L.cuda_looking(tokens) == {t for t in tokens if L.looks_cuda(t)}


@pytest.mark.parametrize("bound", [50, None])
def test_name_filter_is_the_set_formula(monkeypatch, bound):
    """NameFilter, which matches each identifier once and answers with one intersection, gives
    `idents & names | cuda_looking(idents - names)` for every source in turn, with the table
    names and with a subset of them, also when its bound makes it start over."""
    from porter.mappings.index import load_index

    if bound is not None:  # room for few identifiers: it starts over file after file
        monkeypatch.setattr(L.NameFilter, "MAX_SEEN", bound)
    tables = L.table_names(load_index())
    subset = frozenset(sorted(tables)[::3])
    sources = _sources()
    for names in (tables, subset):
        keep = L.NameFilter(names)
        largest = 0  # a file's identifiers are remembered whole, past the bound too
        for data in [*sources, *sources]:
            idents = L.identifiers(data)
            largest = max(largest, len(idents))
            assert keep(idents) == idents & names | L.cuda_looking(idents - names)
            assert len(keep._seen) <= max(L.NameFilter.MAX_SEEN, largest)


def test_cuda_include_decides_as_before():
    """invariant._cuda_include (one lookup per path, kept) decides each include path as the
    inline tests it replaced did."""
    from porter.mappings.index import load_index
    from porter.rewrite.includes import CUDA_HEADER, include_lines
    from porter.rewrite.invariant import _cuda_include

    index = load_index()
    quoted = {m.group(1) for data in _sources() for m in include_lines(data)}
    quoted |= {b"<" + h.encode() + b">" for h in index.headers}
    quoted |= {b'"' + h.encode() + b'"' for h in list(index.headers)[:50]}
    quoted |= {b"< cuda.h >", b'"hip/hip_runtime.h"', b"<cub/cub.cuh>", b"<vector>", b"<\xff.h>"}
    for q in sorted(quoted):
        path = q[1:-1].decode("utf-8", "replace").strip()
        if path.startswith("hip/") or not (
            CUDA_HEADER.match(path) or index.lookup_header(path, None) is not None
        ):
            want = None
        else:
            header = index.lookup_header(path, None)
            want = None if header is not None and header[1] == path else path
        assert _cuda_include(index, q) == want, q


# -- directive lines ---------------------------------------------------------------------------


def reference_directive_lines(
    d: L.Directives, hashes: re.Pattern[bytes], names: frozenset[bytes]
) -> list[tuple[int, bytes, int, int]]:
    """Directives.directive_lines as it was before the `#` at a line's start was taken without
    looking back for the line and block comments were looked for in files with a `/*` only."""
    data = d.data
    raw = d._raw
    out = []
    for m in hashes.finditer(data):
        h = m.start()
        line = data.rfind(b"\n", 0, h) + 1
        blank = True
        if h > line:
            before = data[line:h] if line else data[:h].removeprefix(L._BOM)
            if before.strip(b" \t"):
                if b"/" not in before:
                    continue
                blank = False
        n = L._NAME_AFTER_HASH.match(data, h + 1)
        name, name_end = (n.group(1), n.end()) if n is not None else d.name_after(h)
        if name not in names:
            continue
        if not (
            blank
            and not data.endswith(L._SPLICES, 0, line)
            and not (0 <= raw < h)
            and not d._comment_may_hold(h)
        ) and not d.starts_directive(h, line):
            continue
        j = data.find(b"\n", name_end) + 1
        if j and not data.endswith(L._SPLICES, 0, j) and data.find(b"/*", name_end, j) < 0:
            out.append((line, name, name_end, j))
        else:
            out.append((line, name, name_end, d.logical_end(name_end)))
    return out


def test_directive_lines_are_the_long_ways():
    """What the preprocessor model and the rewriter's byte paths ask for (their `#` patterns
    and names) on every source, random texts and the built cases."""
    from porter.analysis.preproc import _CANDIDATE, _CONDITIONAL
    from porter.rewrite.plain import _DIRECTIVE_NAMES, _HASH

    directive_pieces = [b"#if X\n", b"#  ifdef Y\n", b"# /* c */ if Z\n", b"#i\\\nf W\n"]
    directive_pieces += [b"#endif\n", b"#else // c\n", b"#define M(x) #x\n", b"x #if\n"]
    texts = _sources() + SPAN_CASES + _random_texts(21, 1500, LINE_PIECES + directive_pieces)
    texts += _random_texts(22, 1500, PIECES + directive_pieces)
    for data in texts:
        for hashes, names in ((_CANDIDATE, _CONDITIONAL), (_HASH, _DIRECTIVE_NAMES)):
            want = reference_directive_lines(L.Directives(data), hashes, names)
            assert L.Directives(data).directive_lines(hashes, names) == want, data[:300]
