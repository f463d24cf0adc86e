"""Table names decided from the bytes: is a name token a plain reference?

The rewriter reads the tree around a table name for four decisions: is it the name a
declaration declares (`int cudaFoo;`, a prototype `cudaError_t cudaMalloc(void**, size_t);`, an
enumerator), a member (`x.cudaStream`, a member initializer `: cudaStream(s)`), the name of an
elaborated type (`struct cudaDeviceProp p;`), or an `#undef`'s argument? A name whose
neighbouring tokens rule all four out is a plain reference, renamed like any other, and a file
whose names are all plain is ported without a parse (`CudaRewriter._lexical`).

The test is one-sided: `plain_reference` says True only where the tokens around the name leave
no other reading; anything else (a name after a type, `*`, `&`, `>`, `)`, `:`, `.`, `->`, a
keyword that starts a declaration, a comma in a declaration list or an enum body, a macro's
parameter list, a directive other than `#if`/`#ifdef`/`#ifndef`/`#elif`/`#define`'s body) sends
the file to the parser, which decides as before. The neighbours are found as the preprocessor
lexes: comments are skipped, splices are blanks, and a string literal is a token of its own.
"""

from __future__ import annotations

import bisect
import codecs
import re

from .includes import after_line
from .lex import BLANKS, WORD, directives

# a token before a name that makes it an operand, a statement's start or an argument
_OPERAND_AFTER = frozenset(b"([;=!?+-%^|/<")
# keywords after which a name is an operand or a type, never the name being declared
_EXPRESSION_KEYWORDS = frozenset(
    {
        b"return",
        b"case",
        b"else",
        b"do",
        b"throw",
        b"new",
        b"delete",
        b"sizeof",
        b"alignof",
        b"co_return",
        b"co_yield",
        b"co_await",
    }
)
# keywords (and CUDA's execution space words) that may precede a declaration's type
_QUALIFIERS = frozenset(
    {
        b"const",
        b"volatile",
        b"static",
        b"extern",
        b"inline",
        b"constexpr",
        b"consteval",
        b"constinit",
        b"mutable",
        b"register",
        b"thread_local",
        b"virtual",
        b"explicit",
        b"friend",
        b"typedef",
        b"typename",
        b"__host__",
        b"__device__",
        b"__global__",
        b"__forceinline__",
        b"__noinline__",
        b"__inline__",
        b"__shared__",
        b"__constant__",
        b"__managed__",
    }
)
# identifiers that may follow a declared name (`int cudaX __attribute__((unused));`)
_AFTER_DECLARATOR = frozenset(
    {b"__attribute__", b"__declspec", b"asm", b"__asm__", b"__asm", b"alignas", b"__align__"}
)
# the tokens after a name that make it a type in a declaration (`cudaStream_t s`, `__half* p`)
_TYPE_FOLLOWERS = frozenset({b"*", b"&", b"::", b"<"})
# words after which a name is an elaborated type, a member template, a label or a namespace
_NOT_BEFORE_TYPE = frozenset(
    {
        b"struct",
        b"class",
        b"union",
        b"enum",
        b"template",
        b"operator",
        b"goto",
        b"namespace",
        b"using",
    }
)
# tokens before `name::` that make it something other than a scope of a reference
_NOT_BEFORE_SCOPE = frozenset({b".", b"->", b"~", b'"'}) | _NOT_BEFORE_TYPE - {b"using"}
# directives whose text holds names as references (conditions, macro names tested)
_CONDITIONS = frozenset({b"if", b"elif", b"ifdef", b"ifndef", b"elifdef", b"elifndef"})
_DIRECTIVE_NAMES = frozenset(
    {
        *_CONDITIONS,
        b"define",
        b"undef",
        b"include",
        b"include_next",
        b"import",
        b"pragma",
        b"error",
        b"warning",
        b"line",
        b"else",
        b"endif",
        b"ident",
        b"sccs",
        b"assert",
        b"unassert",
    }
)
_HASH = re.compile(rb"#")
_TWO_BYTE = frozenset({b"->", b"::", b"&&", b">>", b"||", b"<<", b"++", b"--"})
_INCLUDES = frozenset({b"include", b"include_next", b"import"})
_HEADER_NAME = re.compile(rb"[ \t]*(<[^>\n]*>)")
_MACRO_HEAD = re.compile(rb"[ \t]*([A-Za-z_]\w*)(\([^)\n]*\))?")
_SCAN_LIMIT = 4096  # bytes a comma's enclosing bracket is searched back for
_LOOP_HEADS = frozenset({b"for", b"if", b"while", b"switch", b"catch"})
_CLOSERS = {0x29: 0x28, 0x5D: 0x5B, 0x7D: 0x7B}  # ) ] } -> their openers
_BRACKETS_AND_ENDS = frozenset(b"()[]{};:")
_PAIRS = ((b"(", b")"), (b"[", b"]"), (b"{", b"}"))
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"()[]{}")


class PlainNames:
    """Decides `plain_reference` for the name tokens of one file."""

    def __init__(self, data: bytes, spans: list[tuple[int, int]], starts: list[int]):
        self.data = data
        self.spans, self.starts = spans, starts
        self._directives: list[tuple[int, bytes, int, int]] | None = None
        self._lines: list[int] = []

    # -- tokens -------------------------------------------------------------------------------
    def _span_at(self, pos: int) -> tuple[int, int] | None:
        k = bisect.bisect_right(self.starts, pos) - 1
        if k >= 0 and pos < self.spans[k][1]:
            return self.spans[k]
        return None

    def _is_comment(self, span: tuple[int, int]) -> bool:
        return self.data[span[0]] == 0x2F  # /

    def _back(self, pos: int) -> int:
        """The offset of the last byte of the token before `pos`, skipping blanks, splices,
        comments and directive lines (-1: none). A literal's last byte is its own token's."""
        data, i = self.data, pos - 1
        while i >= 0:
            c = data[i]
            if c in BLANKS:
                i -= 1
                continue
            span = self._span_at(i)
            if span is not None and self._is_comment(span):
                i = span[0] - 1
                continue
            d = self._directive_at(i)
            if d is not None:
                i = d[0] - 1
                continue
            return i
        return -1

    def prev_token(self, pos: int) -> bytes:
        """The token that ends before `pos` (b"" at the file's start, b'"' for a literal)."""
        i = self._back(pos)
        if i < 0:
            return b""
        return self._token_ending(i)[1]

    def _token_ending(self, i: int) -> tuple[int, bytes]:
        """(start, text) of the token whose last byte is at `i` (text b'"' for a literal)."""
        data = self.data
        span = self._span_at(i)
        if span is not None:
            return span[0], b'"'
        if data[i] in WORD:
            j = i
            while j > 0 and data[j - 1] in WORD:
                j -= 1
            return j, data[j : i + 1]
        two = data[i - 1 : i + 1] if i > 0 else b""
        if two in _TWO_BYTE:
            return i - 1, two
        return i, data[i : i + 1]

    def _token_start(self, pos: int) -> int:
        """The offset where the token `prev_token(pos)` returns starts (-1: none)."""
        i = self._back(pos)
        return -1 if i < 0 else self._token_ending(i)[0]

    def next_token(self, pos: int) -> bytes:
        """The token that starts at or after `pos` (b"" at the file's end, b'"' for a literal),
        skipping blanks, splices, comments and directive lines."""
        data, i, n = self.data, pos, len(self.data)
        while i < n:
            c = data[i]
            if c in BLANKS:
                i += 1
                continue
            span = self._span_at(i)
            if span is not None:
                if not self._is_comment(span):
                    return b'"'
                i = span[1]
                continue
            d = self._directive_at(i)
            if d is not None and d[0] <= i:
                i = d[3]
                continue
            if c in WORD:
                j = i
                while j < n and data[j] in WORD:
                    j += 1
                return data[i:j]
            two = data[i : i + 2]
            if two in _TWO_BYTE:
                return two
            return data[i : i + 1]
        return b""

    # -- directives ---------------------------------------------------------------------------
    def _directive_at(self, pos: int) -> tuple[int, bytes, int, int] | None:
        if self._directives is None:
            self._directives = directives(self.data).directive_lines(_HASH, _DIRECTIVE_NAMES)
            self._lines = [d[0] for d in self._directives]
        k = bisect.bisect_right(self._lines, pos) - 1
        if k >= 0 and pos < self._directives[k][3]:
            return self._directives[k]
        return None

    def in_header_name(self, pos: int) -> bool:
        """Is `pos` inside the `<...>` header name of an `#include` (a string to the tree)?"""
        d = self._directive_at(pos)
        if d is None or d[1] not in _INCLUDES:
            return False
        m = _HEADER_NAME.match(self.data, d[2])
        return m is not None and m.start(1) <= pos < m.end(1)

    def balanced(self) -> bool:
        """Do the file's code brackets pair up in number (outside comments, literals and
        directive lines)? A file whose brackets do not (`int n {` for `int n) {`) has a syntax
        error for the parser to report (PT003), so it is not decided from its bytes."""
        brackets = self.data.translate(None, _NOT_BRACKETS)  # one pass, then six short counts
        if all(brackets.count(o) == brackets.count(c) for o, c in _PAIRS):
            # every bracket of the file pairs up in number: those of the code do too, unless
            # comments and literals hold unpaired ones that exactly offset the code's (PT003 is
            # then missed; the port is the same either way)
            return True
        if self._directives is None:
            self._directive_at(0)
        assert self._directives is not None
        cut = sorted([*self.spans, *((d[0], d[3]) for d in self._directives)])
        pieces, pos = [], 0
        for a, b in cut:
            if a > pos:
                pieces.append(self.data[pos:a])
            pos = max(pos, b)
        pieces.append(self.data[pos:])
        code = b"".join(pieces)
        return all(code.count(o) == code.count(c) for o, c in _PAIRS)

    def _on_hash_line(self, pos: int) -> bool:
        """Does the physical line holding `pos` start with `#` (a directive porter did not
        list, such as a line marker or a null directive)?"""
        line = self.data.rfind(b"\n", 0, pos) + 1
        return self.data[line:pos].lstrip(b" \t").startswith(b"#")

    # -- the decision -------------------------------------------------------------------------
    def plain_reference(self, start: int, end: int, type_like: bool) -> bool:
        """Is the code token data[start:end] (outside comments and literals) surely a reference
        that is neither declared here, nor a member, nor an elaborated type, nor `#undef`'s
        argument? `type_like`: the tables know the name as a type or a macro only (never a
        declared entity followed by another identifier)."""
        d = self._directive_at(start)
        if d is not None:
            _, name, name_end, _ = d
            if name in _CONDITIONS:
                return True
            if name == b"define":
                head = _MACRO_HEAD.match(self.data, name_end)
                # in the macro's body, a name is opaque text the tree does not look into
                return head is not None and start >= head.end()
            return False
        if self._on_hash_line(start):
            return False
        before, after = self.prev_token(start), self.next_token(end)
        if after == b"::":
            # `ns::x`, `T::type`: a scope, never a member or a declared name (a qualified chain
            # `a::cudaX::b` is read as `_qualified_ok` reads it)
            if before == b"::":
                return self._qualified_ok(start)
            return before not in _NOT_BEFORE_SCOPE
        if after[:1].isalpha() or after[:1] == b"_":
            # `T x`: the name is the type of a declaration, unless it is a declared name
            # followed by an attribute, or follows what may end a type (`int cudaX MACRO;`)
            if after in _AFTER_DECLARATOR:
                return False
            return self._type_position(before, start, type_like)
        if after in _TYPE_FOLLOWERS:
            # a declared name is never followed by these: a type (`cudaStream_t* p`) or an
            # operand (`n * cudaX`), whichever the token before allows
            return self._type_position(before, start, type_like) or self._operand(
                before, start, after
            )
        return self._operand(before, start, after)

    def _type_position(self, before: bytes, start: int, type_like: bool) -> bool:
        """May the name be a type written after `before` (not the name being declared)?"""
        if before in (b"", b"(", b",", b"{", b"}", b";", b"<", b"=", b")"):
            return True
        if before in _QUALIFIERS or before in _EXPRESSION_KEYWORDS:
            return True
        if before == b"::":
            return self._qualified_ok(start)
        if before[:1].isalpha() or before[:1] == b"_":
            # a macro or a type before it: only a type or macro name is a type here
            return type_like and before not in _NOT_BEFORE_TYPE
        if before in (b">", b">>", b"*", b"&", b"&&"):
            return type_like  # after a type (`Foo<T> __half x`): likewise
        return False

    def _operand(self, before: bytes, start: int, after: bytes) -> bool:
        """May the name be an operand, a call or a statement's start after `before`?"""
        if before == b"" or before in _EXPRESSION_KEYWORDS:
            return True
        if before == b"::":
            return self._qualified_ok(start)
        if before == b",":
            # a template argument or a comparison's operand (`is_same<T, cudaX>`, `f(a, cudaX >
            # n)`): a name declared after a comma (a declarator or enumerator list, a macro's or
            # a lambda's parameters, a structured binding) is never followed by `>`
            return after in (b">", b">>") or self._in_call(start)
        if before == b"{":
            # not an enumerator (`enum { cudaX = 1, ... }`)
            return after not in (b"=", b",", b"}")
        if before == b"}":
            # a statement after a block (`} cudaFree(p);`), not a declarator after a struct's
            # body (`struct {...} cudaX;`)
            return after not in (b";", b",", b"=", b"[", b"{", b")", b":")
        if len(before) == 1 and before[0] in _OPERAND_AFTER:
            return True
        return before in (b"||", b"<<", b"++", b"--")

    def _qualified_ok(self, start: int) -> bool:
        """`a::b::cudaX` or `::cudaX`: the tree reads the name as part of a qualified name (a
        reference) unless the qualified name is a member (`x.A::cudaX`)."""
        pos = self._token_start(start)  # the `::`
        while True:
            before = self.prev_token(pos)
            if before[:1].isalpha() or before[:1] == b"_":
                pos = self._token_start(pos)
                if self.prev_token(pos) == b"::":
                    pos = self._token_start(pos)
                    continue
                return self.prev_token(pos) not in (b".", b"->", b"~", b"template", b"operator")
            return before not in (b".", b"->", b">", b"~")

    def _in_call(self, start: int) -> bool:
        """Is the comma before the name inside the parentheses of a call (or brackets), not a
        declaration list, an enum body, a member initializer list or a loop head?"""
        data = self.data
        i = self._token_start(start) - 1  # before the comma
        floor = max(0, i - _SCAN_LIMIT)
        depth: list[int] = []
        while i >= floor:
            c = data[i]
            if c not in _BRACKETS_AND_ENDS:
                i -= 1
                continue
            span = self._span_at(i)
            if span is not None:
                i = span[0] - 1
                continue
            d = self._directive_at(i)
            if d is not None:
                i = d[0] - 1  # a directive line is no part of the statement
                continue
            if c in _CLOSERS:
                depth.append(_CLOSERS[c])
            elif c in (0x28, 0x5B, 0x7B):  # ( [ {
                if depth:
                    if depth.pop() != c:
                        return False
                else:
                    if c == 0x7B:
                        return False
                    if c == 0x28 and self.prev_token(i) in _LOOP_HEADS:
                        return False
                    return True
            elif c == 0x3B and not depth:  # ;
                return False
            elif c == 0x3A and not depth and data[i - 1 : i + 2].count(b":") == 1:
                return False  # a member initializer list's `:` (not a `::`)
            i -= 1
        return False


class NameContexts:
    """`LexicalContexts` for the name tokens of a file ported without its tree: a header name
    (`#include <cub/cub.cuh>`) is a string, as it is in the tree."""

    def __init__(self, lexical, plain: PlainNames):
        self.lexical, self.plain = lexical, plain

    def at(self, start: int, end: int) -> tuple[str, None]:
        if self.plain.in_header_name(start):
            return "string", None
        return self.lexical.at(start, end)


class _Unsure(Exception):
    """The file's top level is not what `include_position` reads from the bytes."""


def include_position(plain: PlainNames) -> int | None:
    """Where `includes.include_position` puts `#include <hip/hip_runtime.h>`, read from the
    bytes instead of the tree's top-level nodes (comments, directives, code): before the first
    top-level include (or the first include after the guard's `#define` inside a header guard
    that ends the file), else after the guard's `#define` / `#pragma once`, else after the
    leading comments (when nothing else shares their last line), else at the top. None when the
    top level holds what the tree may read otherwise (an `#else` or `#endif` without its `#if`,
    a `#` line that is no directive porter lists): the caller parses."""
    try:
        return _include_position(plain)
    except _Unsure:
        return None


def _include_position(plain: PlainNames) -> int:
    data = plain.data
    top = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    after, pos, n = top, top, len(data)
    leading = 0
    # the leading comments: the port's include goes after them, unless code shares their line
    while True:
        p = _skip_blanks(data, pos)
        span = plain._span_at(p) if p < n else None
        if span is None or span[0] != p or not plain._is_comment(span):
            break
        end = span[1]
        if data[end - 1 : end] == b"\n":
            end -= 1  # a `//` comment ends before its newline, as the tree's node does
        nxt = after_line(data, end)
        if data[end:nxt].strip():
            return after if leading else top
        after, pos, leading = nxt, nxt, leading + 1
    while True:
        p = _skip_blanks(data, pos)
        if p >= n:
            return after
        span = plain._span_at(p)
        if span is not None and span[0] == p and plain._is_comment(span):
            pos = span[1]
            continue
        d = _directive_starting(plain, p)
        if d is None:
            return after  # code
        name = d[1]
        if name == b"include":
            return p
        if name in (b"ifdef", b"ifndef"):
            return _in_guard(plain, d, after)
        if name in (b"else", b"elif", b"endif", b"elifdef", b"elifndef"):
            raise _Unsure
        if name in (b"define", b"if", b"include_next", b"import"):
            return after
        # a preproc_call (#pragma, #error, #undef ...): `#pragma once` moves the place after it
        if b"once" in data[p : d[3]]:
            after = after_line(data, d[3])
        pos = d[3]


def _in_guard(plain: PlainNames, d, after: int) -> int:
    """The place in a file whose first directive after the comments is `#ifdef`/`#ifndef`."""
    data = plain.data
    directives = plain._directives
    assert directives is not None
    k = directives.index(d)
    depth, end_k = 0, None
    for j in range(k, len(directives)):
        name = directives[j][1]
        if name in (b"if", b"ifdef", b"ifndef"):
            depth += 1
        elif name == b"endif":
            depth -= 1
            if depth == 0:
                end_k = j
                break
    if end_k is None:
        raise _Unsure  # an unterminated #ifdef
    # the guard ends the file: only comments and blanks follow its #endif
    pos = directives[end_k][3]
    while True:
        p = _skip_blanks(data, pos)
        if p >= len(data):
            break
        span = plain._span_at(p)
        if span is None or span[0] != p or not plain._is_comment(span):
            return after
        pos = span[1]
    # its first object-like #define at its own level (not in a nested #if, a brace or #else)
    depth, braces, last = 0, 0, d[3]
    found = None
    for j in range(k + 1, end_k):
        line, name, name_end, end = directives[j]
        braces += _brace_balance(plain, last, line)
        last = end
        if name in (b"if", b"ifdef", b"ifndef"):
            depth += 1
        elif name == b"endif":
            depth -= 1
        elif depth == 0 and name in (b"else", b"elif", b"elifdef", b"elifndef"):
            break
        elif depth == 0 and braces == 0 and name == b"define":
            head = _MACRO_HEAD.match(data, name_end)
            if head is not None and head.group(2) is None:
                found = j
                break
    if found is None:
        return after
    place = after_line(data, directives[found][3])
    # the guard's next item after the #define: an include there takes the port's include
    pos = place
    while True:
        p = _skip_blanks(data, pos)
        span = plain._span_at(p) if p < len(data) else None
        if span is not None and span[0] == p and plain._is_comment(span):
            pos = span[1]
            continue
        nd = _directive_starting(plain, p) if p < len(data) else None
        if nd is not None and nd[1] == b"include":
            return p
        return place


def _brace_balance(plain: PlainNames, start: int, end: int) -> int:
    """`{` minus `}` of the code in data[start:end] (comments and literals left out)."""
    data = plain.data
    total = 0
    i = data.find(b"{", start, end)
    j = data.find(b"}", start, end)
    if i < 0 and j < 0:
        return 0
    for k in range(start, end):
        c = data[k]
        if c in (0x7B, 0x7D) and plain._span_at(k) is None:
            total += 1 if c == 0x7B else -1
    return total


def _directive_starting(plain: PlainNames, p: int):
    """The directive whose `#` is at `p` (None: `p` is code). A `#` no listed directive
    starts is a line the tree may read otherwise: unsure."""
    if plain.data[p : p + 1] != b"#":
        return None
    d = plain._directive_at(p)
    if d is None or plain.data.find(b"#", d[0], p + 1) != p:
        raise _Unsure
    return d


def _skip_blanks(data: bytes, pos: int) -> int:
    n = len(data)
    while pos < n and data[pos] in BLANKS:
        if data[pos] == 0x5C and data[pos + 1 : pos + 2] not in (b"\n", b"\r"):
            return pos  # a backslash that splices no line is a token
        pos += 1
    return pos
