"""Byte-level lexing shared by the rewriter and the rules: identifier tokens, whole-word search,
comment/string spans of opaque text (macro bodies, ERROR regions), and the candidate scanner
built once from the mapping tables."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from operator import methodcaller

from ..mappings.index import MappingIndex

# Identifiers that look like CUDA API names: reported when neither mapped nor declared by the
# project.
CUDA_LOOKING = re.compile(
    r"(?:cuda[A-Z]\w*|make_cuda[A-Z]\w*|cu[A-Z][a-z]\w*|CU_[A-Z0-9_]+|CUDA_[A-Z0-9_]+|CUDART_[A-Z0-9_]+"
    r"|(?:cublas|cublasLt|cusparse|cufft|curand|cusolver|cudnn|nvrtc|nvtx|cutensor)[A-Z_]\w*"
    r"|(?:CUBLAS|CUSPARSE|CUFFT|CURAND|CUSOLVER|CUDNN|NVRTC|CUTENSOR)_\w+|__nv_\w+)$"
)
CUDA_LOOKING_B = re.compile(CUDA_LOOKING.pattern.encode())
# first two bytes of every name CUDA_LOOKING can match (a cheap pre-filter)
LOOKING_PREFIXES = frozenset({b"cu", b"CU", b"nv", b"NV", b"__", b"ma"})
QUALIFIED_SEP = rb"\s*::\s*"
IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")
# what may stand between two tokens outside comments: blanks, and the backslash of a splice
BLANKS = frozenset(b" \t\r\n\f\v\\")
_BLOCK_COMMENT = re.compile(rb"/\*.*?(?:\*/|\Z)", re.DOTALL)


def looks_cuda(name: bytes) -> bool:
    """Does this identifier token look like a CUDA API name?"""
    return name[:2] in LOOKING_PREFIXES and CUDA_LOOKING_B.match(name) is not None


# CUDA_LOOKING over identifiers joined one per line: one regex pass instead of a call per name
# (each name between newlines; the literal `\n` lets the regex engine skip to the next one, and
# a name whose first byte starts none of CUDA_LOOKING's alternatives is passed at that byte)
assert CUDA_LOOKING_B.pattern.endswith(b"$")
_LOOKING_FIRST = bytes(sorted({p[0] for p in LOOKING_PREFIXES}))
_LOOKING_LINES = re.compile(
    rb"\n(?=[" + _LOOKING_FIRST + rb"])(" + CUDA_LOOKING_B.pattern[:-1] + rb")(?=\n)"
)


def cuda_looking(idents: Iterable[bytes]) -> set[bytes]:
    """The identifier tokens that look like CUDA API names: {n for n in idents if
    looks_cuda(n)}, from one search over the joined tokens (identifiers hold no newline)."""
    return set(_LOOKING_LINES.findall(b"\n" + b"\n".join(idents) + b"\n"))


class NameFilter:
    """``idents & names | cuda_looking(idents - names)`` for the identifier sets of a tree's
    files, one after another: a file's identifiers are matched against the names and the CUDA
    look once, when first seen (a tree's files share most of them), and each file's answer is
    then one set intersection. Remembers at most MAX_SEEN identifiers (it starts over past
    that)."""

    MAX_SEEN = 100_000

    def __init__(self, names: frozenset[bytes]):
        self.names = names
        self._seen: set[bytes] = set()
        self._wanted: set[bytes] = set(names)  # the names and the CUDA-looking ones seen

    def __call__(self, idents: set[bytes]) -> set[bytes]:
        new = idents - self._seen
        if new:
            if len(self._seen) + len(new) > self.MAX_SEEN:
                self._seen = set()
                self._wanted = set(self.names)
                new = set(idents)
            self._seen |= new
            self._wanted |= cuda_looking(new - self.names)
        return idents & self._wanted


@lru_cache(maxsize=4)
def table_names(index: MappingIndex) -> frozenset[bytes]:
    """The tables' (ASCII) names as bytes: `n in table_names(index)` is
    `n.decode("ascii", "replace") in index.by_name` for an identifier token."""
    return frozenset(k.encode() for k in index.by_name if k.isascii())


@dataclass
class Scanner:
    relevant: frozenset[bytes]  # table names worth looking at
    qualified: dict[bytes, list[str]]  # first component -> qualified keys, longest first


@lru_cache(maxsize=4)
def scanner_for(index: MappingIndex) -> Scanner:
    quals: dict[bytes, list[str]] = {}
    for key in sorted(index.qualified, key=lambda k: -len(k)):
        quals.setdefault(key.split("::")[0].encode(), []).append(key)
    return Scanner(index.relevant, quals)


@cache
def qualified_regex(key: str) -> re.Pattern[bytes]:
    """`a::b::c` with any spacing around the `::` (compiled on first use: most files use none)."""
    parts = [re.escape(p.encode()) for p in key.split("::")]
    return re.compile(QUALIFIED_SEP.join(b"(" + p + b")" for p in parts) + rb"(?![\w$])")


def qualified_matches(data: bytes, first: bytes, keys: list[str]) -> list[tuple[re.Match, str]]:
    """What ``qualified_regex(key).finditer(data)`` finds for each key sharing the first component
    `first` (keys in the given order, each key's matches in document order), from one scan for
    `first :: second`: a scan of the whole file per key cost a quarter of the rewriter's time on
    headers that name `cuda::` or `cub::` everywhere."""
    head, by_second, by_third = _qualified_heads(first, tuple(keys))
    starts: dict[str, list[int]] = {}
    for h in head.finditer(data):
        second, third = h.groups()
        for key in by_second.get(second, ()):
            starts.setdefault(key, []).append(h.start())
        if third is not None:
            for key in by_third.get((second, third), ()):
                starts.setdefault(key, []).append(h.start())
    out = []
    for key in keys:
        found = starts.get(key)
        if found is None:
            continue  # no head of it: its regex is not compiled (most keys, most runs)
        rx = qualified_regex(key)
        last = -1
        for pos in found:
            if pos < last:
                continue  # inside the previous match, where finditer does not look
            m = rx.match(data, pos)
            if m is not None:
                out.append((m, key))
                last = m.end()
    return out


@cache
def _qualified_heads(first: bytes, keys: tuple[str, ...]):
    """(regex of `first :: <identifier>`, which also reads the `:: <identifier>` after it
    without taking it, {second component: keys of two}, {(second, third component): longer
    keys}) for qualified_matches: a key of three or more components is tried only where its
    third follows (`cuda::std::` is written everywhere in libcu++, the keys under it are few).
    Each group is the whole identifier there, as a key's match needs its components to be."""
    by_second: dict[bytes, list[str]] = {}
    by_third: dict[tuple[bytes, bytes], list[str]] = {}
    for key in keys:
        parts = [p.encode() for p in key.split("::")]
        if len(parts) == 2:
            by_second.setdefault(parts[1], []).append(key)
        else:
            by_third.setdefault((parts[1], parts[2]), []).append(key)
    ident = rb"([A-Za-z_][A-Za-z0-9_]*)"
    head = re.escape(first) + QUALIFIED_SEP + ident + rb"(?:(?=" + QUALIFIED_SEP + ident + rb"))?"
    return re.compile(head), by_second, by_third


class Span:
    """A (start_byte, end_byte) pair shaped like a tree-sitter node, for byte-only paths."""

    __slots__ = ("end_byte", "start_byte")

    def __init__(self, start: int, end: int):
        self.start_byte, self.end_byte = start, end


def block_comment_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every /* ... */ comment. A `/*` inside a string literal would be taken
    for a comment: callers use this only to decide whether a line-start directive is code."""
    if b"/*" not in data:
        return []
    return [m.span() for m in _BLOCK_COMMENT.finditer(data)]


def in_spans(spans: list[tuple[int, int]], pos: int) -> bool:
    i = bisect.bisect_right(spans, (pos, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]


# identifier bytes kept, every other byte a space: the file's runs of [A-Za-z0-9_] by split()
_RUNS = bytes(c if c in WORD and c != 0x24 else 0x20 for c in range(256))
_LSTRIP_DIGITS = methodcaller("lstrip", b"0123456789")


_FIRST_LETTER = 0x3A  # in a run, the bytes below `:` are the digits


def identifiers(data: bytes) -> set[bytes]:
    """Every distinct identifier-like token of a file: ``set(IDENT.findall(data))``. From the
    runs of identifier bytes (C-level translate and split, faster than the regex engine): in a
    run, IDENT matches from its first non-digit to its end (`0x1F` holds `x1F`). Only the runs
    that start with a digit (numbers, a few per file) are stripped. The set `hold_identifiers`
    made of equal bytes is returned (once) instead of a new one: callers only read it."""
    if _held:
        found = _held.pop(data, None)
        if found is not None:
            _held_size[0] -= len(data)
            return found
    return _identifiers(data)


def _identifiers(data: bytes) -> set[bytes]:
    found = set(data.translate(_RUNS).split())
    numbers = {w for w in found if w[0] < _FIRST_LETTER}
    if numbers:
        found -= numbers
        found.update(map(_LSTRIP_DIGITS, numbers))
        found.discard(b"")
    return found


def hold_identifiers(data: bytes) -> set[bytes] | None:
    """`identifiers(data)`, also held for the next `identifiers` call with equal bytes (the
    project pre-pass computes them before the port of the same bytes, usually the same object:
    the engine takes the pre-pass's read), while the sources held total at most _HELD_BYTES;
    None (nothing computed) past that."""
    found = _held.get(data)
    if found is not None:  # a file of the same bytes as one held
        return found
    if _held_size[0] + len(data) > _HELD_BYTES:
        return None
    found = _held[data] = _identifiers(data)
    _held_size[0] += len(data)
    return found


def release_identifiers() -> None:
    """Let go of every set `hold_identifiers` holds (those of a previous run's files)."""
    _held.clear()
    _held_size[0] = 0


# hold_identifiers' sets by the bytes they are of, and those bytes' total size (CCCL: 12.7 MB
# of source, 27 MB of sets)
_held: dict[bytes, set[bytes]] = {}
_held_size = [0]
_HELD_BYTES = 16 * 2**20


def matches_after(rx, data, not_after=WORD) -> Iterator:
    """The matches of the pattern `rx` in `data` (bytes, or str with a str pattern) whose first
    element does not follow one in `not_after`, in order: what `(?<![\\w$])` (by default)
    before the pattern finds, without the look-behind that costs a pattern the regex engine's
    fast scan for its first bytes (a rejected match's own text is searched again, as the
    look-behind would)."""
    search = rx.search
    pos = 0
    while True:
        m = search(data, pos)
        if m is None:
            return
        start = m.start()
        if start and data[start - 1] in not_after:
            pos = start + 1
            continue
        yield m
        pos = m.end()


def find_word(data: bytes, word: bytes) -> Iterator[int]:
    """Offsets of `word` as a whole identifier token."""
    n = len(word)
    pos = data.find(word)
    while pos >= 0:
        if (pos == 0 or data[pos - 1] not in WORD) and (
            pos + n >= len(data) or data[pos + n] not in WORD
        ):
            yield pos
        pos = data.find(word, pos + n)


_LEX_SPECIAL = re.compile(rb"[/\"']")


def lex_code_spans(text: bytes) -> list[tuple[int, int]]:
    """Spans of comments, strings and char literals inside opaque text (a macro body)."""
    spans = []
    i, n = 0, len(text)
    search = _LEX_SPECIAL.search
    while i < n:
        m = search(text, i)
        if m is None:
            break
        i = m.start()
        c = text[i : i + 1]
        if c == b"/" and text[i + 1 : i + 2] == b"/":
            j = text.find(b"\n", i)
            j = n if j < 0 else j
            spans.append((i, j))
            i = j
        elif c == b"/" and text[i + 1 : i + 2] == b"*":
            j = text.find(b"*/", i + 2)
            j = n if j < 0 else j + 2
            spans.append((i, j))
            i = j
        elif c in (b'"', b"'"):
            j = i + 1
            while j < n and text[j : j + 1] != c:
                j += 2 if text[j : j + 1] == b"\\" else 1
            spans.append((i, min(j + 1, n)))
            i = j + 1
        else:
            i += 1
    return spans


def line_end(data: bytes, pos: int) -> int:
    """Offset just past the end of the line holding `pos` (after its newline, if any)."""
    j = data.find(b"\n", pos)
    return len(data) if j < 0 else j + 1


# -- preprocessing directives ------------------------------------------------------------------
# What the preprocessor takes for a directive is decided by translation phases 1-4 (C17 5.1.1.2,
# C++ [lex.phases]): backslash-newlines are spliced, comments and literals are tokens, and a
# directive is a `#` that is the first token of a logical line. porter decides each `#include`
# line this way, from the bytes, in every file: a file whose only CUDA text is its includes needs
# no parse, and a file decides its includes the same way whether or not it has CUDA names (a
# second port decides as the first).
_SPLICE = re.compile(rb"\\\r?\n")
_LEX_START = re.compile(rb"/[/*]|[\"']")
_STRING_BODY = {
    b'"': re.compile(rb'(?:[^"\\\n]|\\\r\n|\\.)*', re.DOTALL),
    b"'": re.compile(rb"(?:[^'\\\n]|\\\r\n|\\.)*", re.DOTALL),
}
_RAW_PREFIXES = frozenset({b"R", b"LR", b"uR", b"UR", b"u8R"})
_RAW_PREFIX_MAX = 3
_RAW_DELIMITER = re.compile(rb'[^ ()\\\t\v\f\r\n"]{0,16}\(')
_IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_PP_NUMBER_BYTES = _IDENT_BYTES | frozenset(b".'")
_DIGITS = frozenset(b"0123456789")
# an #include's header name, open on the line up to a position: `<` and `"` there delimit a path,
# not a literal, and `/*` inside it opens no comment
_HEADER_NAME_OPEN = re.compile(rb"[ \t]*#[ \t]*(?:include|include_next|import)[ \t]*[<\"][^>\"\n]*")


_BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark: the compiler drops it from the file's start


def _after_bom(data: bytes, line: int) -> int:
    """Where the line starting at `line` starts after a byte order mark (the file's first)."""
    return 3 if line == 0 and data.startswith(_BOM) else line


_SPLICES = (b"\\\n", b"\\\r\n")  # what a line that a splice continues ends with


def _spliced(data: bytes, nl: int) -> bool:
    """Does the line ending with the newline at `nl` end with a splice (backslash-newline)?"""
    k = nl - 1
    if k >= 0 and data[k] == 0x0D:  # \r\n
        k -= 1
    return k >= 0 and data[k] == 0x5C  # backslash


def _line_comment_end(data: bytes, i: int) -> int:
    """End of the `//` comment at `i`: its newline, past every spliced one."""
    j = data.find(b"\n", i)
    while j >= 0 and _spliced(data, j):
        j = data.find(b"\n", j + 1)
    return len(data) if j < 0 else j


def _literal_end(data: bytes, i: int) -> int:
    """End of the string or character literal whose quote is at `i`: after its closing quote, or
    at the newline that ends it unterminated. A raw string (`R"d(...)d"`, with the prefixes
    C++11 allows) ends at its own delimiter."""
    q = data[i : i + 1]
    if q == b'"':
        j = i
        while j > i - _RAW_PREFIX_MAX and j > 0 and data[j - 1] in _IDENT_BYTES:
            j -= 1
        if data[j:i] in _RAW_PREFIXES and not (j > 0 and data[j - 1] in _IDENT_BYTES):
            d = _RAW_DELIMITER.match(data, i + 1)
            if d is not None:
                close = b")" + data[i + 1 : d.end() - 1] + b'"'
                k = data.find(close, d.end())
                return len(data) if k < 0 else k + len(close)
    m = _STRING_BODY[q].match(data, i + 1)
    assert m is not None  # the body pattern matches the empty string
    end = m.end()
    return end + 1 if data[end : end + 1] == q else end


def _digit_separator(data: bytes, i: int, floor: int, separator: int) -> bool:
    """Is the `'` at `i` a digit separator (`1'000'000`, C++14) inside a pp-number? No
    pp-number starts before `floor` (the end of the last comment or literal); `separator` is
    the last `'` found to be one (-1: none): reaching it, the number is the same one. Each byte
    is looked back over once (a long line of numbers or characters stays linear)."""
    if data[i + 1 : i + 2] == b"" or data[i + 1] not in _IDENT_BYTES:
        return False
    j = i
    while j > floor and data[j - 1] in _PP_NUMBER_BYTES:
        j -= 1
        if j == separator:
            return True
    if j < i and data[j] == 0x2E:  # `.5'0`
        j += 1
        return j < i and data[j] in _DIGITS
    return data[j] in _DIGITS


_BLANKS = re.compile(rb"[ \t]*")
# a directive name right after its `#` and blanks, not followed by a backslash (a splice may
# continue it): what most directives are; `Directives.name_after` reads the others
_NAME_AFTER_HASH = re.compile(rb"[ \t]*+([A-Za-z_][A-Za-z0-9_]*+)(?!\\)")


# One token of phases 1-3 each: a `//` comment (splices continue it: a newline after a backslash,
# or after a backslash and a CR), a `/* */` comment (to the file's end when unterminated), a
# string or character literal (its body as `_STRING_BODY` reads it, then the closing quote when
# there is one). The alternatives start with `/`, `"` or `'`: the regex engine skips to those
# bytes itself, and each comment or literal is one match. A comment's lines are read by
# single-byte loops (`[^\n]*+`, `[^*]++`), the regex engine's fastest.
_TOKEN = re.compile(
    rb"//[^\n]*+(?:(?<=\\)\n[^\n]*+|(?<=\\\r)\n[^\n]*+)*+"
    rb"|/\*(?:[^*]++|\*(?!/))*+(?:\*/)?"
    rb'|"(?:[^"\\\n]++|\\\r\n|\\.)*+"?'
    rb"|'(?:[^'\\\n]++|\\\r\n|\\.)*+'?",
    re.DOTALL,
)
_span = re.Match.span
# Where the tokens `_TOKEN` finds one after another may not be the preprocessor's (each found
# with the regex engine's scan for a literal): a `'` between a pp-number byte and an identifier
# byte (maybe a digit separator: `_digit_separator`), the `"` of `R"` (maybe a raw string), and
# an `#include` whose header name, up to its end (`_HEADER_NAME_OPEN`), holds a `"`, a `'`, a
# `//` or a `/*` (where a token may start: a quoted name's own `"`, or `<a//b>`).
_RAW_QUOTE = re.compile(rb'R"')  # where a raw string may start (`data.find(b'R"')`)
_SEPARATOR_QUOTE = re.compile(rb"'(?<=[A-Za-z0-9_.']')(?=[A-Za-z0-9_])")
_RISKY_HEADER = re.compile(
    rb"#[ \t]*+i(?:nclude(?:_next)?+|mport)[ \t]*+"
    rb"""(?:"|<[^>"'/\n]*+(?:/(?![/*])[^>"'/\n]*+)*+[/"'])"""
)


def _header_lines(data: bytes, hashes: Iterator[re.Match]) -> list[tuple[int, int]]:
    """(start of the line, end of the open header name) of each `#` among `hashes` (matches
    from a `#` to where an `#include`'s header name opens, at least) that is the first byte
    after blanks of its line, where `_HEADER_NAME_OPEN` matches: on such a line, a `/`, `"` or
    `'` up to that end is part of the header name."""
    out = []
    for h in hashes:
        line = data.rfind(b"\n", 0, h.start()) + 1
        if data[line : h.start()].strip(b" \t"):
            continue
        m = _HEADER_NAME_OPEN.match(data, line)
        if m is not None:
            out.append((line, m.end()))
    return out


def comment_and_literal_spans(data: bytes, end: int) -> list[tuple[int, int]]:
    """(start, end) of every comment and string or character literal that starts before `end`,
    as the preprocessor's phases 1-3 lex them: splices continue `//` comments and literals, a
    raw string spans lines, a `'` inside a number separates digits, and an `#include`'s header
    name (`<a/*b>`) is neither a comment nor a literal. Linear in the file's size. Each comment
    or literal is one `_TOKEN` match, all of them found in one pass; what a match cannot decide
    (a raw string's prefix before a `"`, a `'` after a pp-number's byte, a header name) is
    decided from there on one token at a time, as one byte at a time (`_literal_end`,
    `_digit_separator`), until the tokens are the pass's again. The last whole file's spans are
    kept: the rewriter's lexical contexts and the directive deciders of the same bytes object
    ask for them in turn (the list is shared: callers only read it)."""
    whole = end == len(data)
    if whole and data is _last_spans[0]:
        return _last_spans[1]
    spans = _spans_before(data, end)
    if whole:
        _last_spans[:] = (data, spans)
    return spans


_last_spans: list = [None, []]  # (bytes, comment_and_literal_spans of all of them)


def _spans_before(data: bytes, end: int) -> list[tuple[int, int]]:
    """comment_and_literal_spans, computed: `_TOKEN`'s matches, one after another, where no
    token needs a closer look; from each one that may (see `_SEPARATOR_QUOTE`), `_lex_from`."""
    tokens = list(map(_span, _TOKEN.finditer(data)))
    if end < len(data):  # the tokens that start before `end` (a `//` or `/*` wholly)
        k = bisect.bisect_left(tokens, (end - 1,))
        if k < len(tokens) and tokens[k][0] == end - 1 and data[end - 1] != 0x2F:
            k += 1
        del tokens[k:]
    if not tokens:
        return tokens
    # the tokens that may need a closer look, by their index
    look = []
    size = len(tokens)
    left = bisect.bisect_left
    if b"'" in data:
        for m in _SEPARATOR_QUOTE.finditer(data):
            i = m.start()
            k = left(tokens, (i,))
            if k < size and tokens[k][0] == i:
                look.append(k)
    for m in _RAW_QUOTE.finditer(data):
        i = m.start() + 1
        k = left(tokens, (i,))
        if k < size and tokens[k][0] == i:
            look.append(k)
    headers = _header_lines(data, _RISKY_HEADER.finditer(data)) if b"#" in data else []
    for line, header_end in headers:
        k = left(tokens, (line,))
        if k < size and tokens[k][0] <= header_end:
            look.append(k)
    if not look:
        return tokens
    look.sort()
    headers.append((len(data) + 1, -1))  # a sentinel: no line starts there
    spans: list[tuple[int, int]] = []
    k = 0  # tokens[k:] are still to take
    for t in look:
        if t < k:
            continue  # passed by `_lex_from`
        spans += tokens[k:t]
        k = _lex_from(data, tokens[t][0], end, spans, headers, tokens)
        if k < 0:
            return spans
    spans += tokens[k:]
    return spans


def _lex_from(
    data: bytes,
    pos: int,
    end: int,
    spans: list[tuple[int, int]],
    headers: list[tuple[int, int]],
    tokens: list[tuple[int, int]],
) -> int:
    """Lex from the token that starts at `pos`, as the preprocessor does, one token at a time,
    appending to `spans`, until a later token starts where one of `tokens` does, in no header
    name (from there on, the tokens are those): its index in `tokens`, -1 at `end`. `headers`:
    (start of the line, end of the open header name) of every `#include` line where a token
    may start in its header name, in order, then a sentinel."""
    append = spans.append
    floor = spans[-1][1] if spans else 0  # the end of the last comment or literal
    separator = -1  # the last `'` found to be a digit separator (-1: none yet)
    k = bisect.bisect_right(headers, (pos, len(data) + 1)) - 1  # the last line starting at pos
    next_line, header_end = headers[k + 1][0], headers[k][1] if k >= 0 else -1
    first = pos
    while pos < end:
        for m in _TOKEN.finditer(data, pos):
            i = m.start()
            c = data[i]
            if i >= end or (c == 0x2F and i + 2 > end):  # `/`: a two-byte opener
                return -1
            if i >= next_line:
                while headers[k + 1][0] <= i:
                    k += 1
                next_line, header_end = headers[k + 1][0], headers[k][1]
            if i <= header_end:  # inside an #include's header name
                pos = header_end + 1
                break
            if i != first:
                t = bisect.bisect_left(tokens, (i,))
                if t < len(tokens) and tokens[t][0] == i:
                    return t
            j = m.end()
            if c == 0x27:  # '
                if (
                    i > floor
                    and data[i - 1] in _PP_NUMBER_BYTES
                    and _digit_separator(data, i, floor, separator)
                ):
                    separator = i
                    pos = i + 1
                    break
            elif c == 0x22 and i > 0 and data[i - 1] == 0x52:  # `R"`: maybe a raw string
                j = _literal_end(data, i)
                if j != m.end():
                    append((i, j))
                    pos = floor = j
                    break
            append((i, j))
            floor = j
        else:
            break
    return -1


class Directives:
    """Which line-start `#` of a file begin a preprocessing directive (see above). Most files
    are decided without lexing: a `#` is a directive when its line continues no other line, the
    last `/*` before it is closed before it, and no raw string precedes it; otherwise the file is
    lexed, once. Asked in ascending order (as `_includes` asks), each byte is searched once."""

    def __init__(self, data: bytes):
        self.data = data
        raw = _RAW_QUOTE.search(data)  # the regex engine finds it in half find's time
        self._raw = -1 if raw is None else raw.start()
        self._spans: list[tuple[int, int]] | None = None
        self._pos = 0  # the last `#` asked about: the comment state below holds up to it
        self._open = -1  # the last `/*` before it (-1: none)
        self._closed = True  # a `*/` follows that `/*` before it
        self._found: dict[frozenset[bytes], list[tuple[int, bytes, int, int]]] = {}

    def _comment_may_hold(self, pos: int) -> bool:
        """May a block comment hold `pos`? (Its last `/*` is not closed before it.)"""
        data = self.data
        if pos < self._pos:  # asked out of order: from the start
            self._pos, self._open, self._closed = 0, -1, True
        q = data.rfind(b"/*", max(0, self._pos - 1), pos)
        if q >= 0:
            self._open = q
            self._closed = data.find(b"*/", q + 2, pos) >= 0
        elif not self._closed:
            self._closed = data.find(b"*/", max(self._open + 2, self._pos - 1), pos) >= 0
        self._pos = pos
        return not self._closed

    def no_long_token_open(self, pos: int) -> bool:
        """True when no token that spans lines may be open at `pos`: no `R"` (a raw string)
        precedes it and the last `/*` before it is closed before it. A cheap test, sure when
        True (a splice, which continues the others, is the caller's to rule out); when False,
        `spans` decides. Asked in ascending order, each byte is searched once."""
        return not (0 <= self._raw < pos) and not self._comment_may_hold(pos)

    def spans(self) -> list[tuple[int, int]]:
        """The file's comment and literal spans (`comment_and_literal_spans`), lexed once."""
        if self._spans is None:
            self._spans = comment_and_literal_spans(self.data, len(self.data))
        return self._spans

    def starts_directive(self, hash_pos: int, line: int | None = None) -> bool:
        """Does the `#` at `hash_pos` (on a physical line which starts at `line`, when the
        caller knows it) begin a directive? It does when nothing but blanks, splices and
        comments precede it on its logical line (`/* c */ #if X` is one) and it is in no
        comment or literal."""
        data = self.data
        if line is None:
            nl = data.rfind(b"\n", 0, hash_pos)
            line = max(nl, data.rfind(b"\r", nl + 1, hash_pos)) + 1
        continued = line > 0 and data[line - 1] == 0x0A and _spliced(data, line - 1)
        blank = not data[_after_bom(data, line) : hash_pos].strip(b" \t")
        may_comment = self._comment_may_hold(hash_pos)
        if blank and not continued and not (0 <= self._raw < hash_pos) and not may_comment:
            return True
        spans = self.spans()
        if in_spans(spans, hash_pos):
            return False
        if blank and not continued:
            return True
        # a directive only if nothing but blanks, splices and comments precede the `#` on its
        # logical line: back over spliced newlines and newlines inside comments (`/* a`
        # newline `b */ #if X`), then blank the comments (not the literals: tokens)
        start = line
        while start > 0 and (_spliced(data, start - 1) or in_spans(spans, start - 1)):
            start = data.rfind(b"\n", 0, start - 1) + 1
        start = _after_bom(data, start)
        text = bytearray(data[start:hash_pos])
        first = max(0, bisect.bisect_right(spans, (start, -1)) - 1)
        for a, b in spans[first:]:
            if a >= hash_pos:
                break
            if b > start and data[a] == 0x2F:  # a comment (`/`), not a literal
                text[max(a, start) - start : min(b, hash_pos) - start] = b" " * (
                    min(b, hash_pos) - max(a, start)
                )
        return not _SPLICE.sub(b"", bytes(text)).strip()

    def directive_lines(
        self, hashes: re.Pattern[bytes], names: frozenset[bytes]
    ) -> list[tuple[int, bytes, int, int]]:
        """(start of the `#`'s physical line, name, offset after the name, `logical_end` of the
        name) of each directive whose name is in `names`, among the `#`s `hashes` finds (it
        must find each such `#`): what `starts_directive`, `name_after` and `logical_end` say,
        with their common case (a `#` after blanks, on a line of its own) decided inline. The
        list is kept (not to be changed): a later question about names among these is answered
        from it, filtered (which `#`s `hashes` looked at does not matter: each pattern finds every
        `#` its names need), so the callers that share a bytes object (`directives`) scan it once.
        """
        found = self._found.get(names)
        if found is not None:
            return found
        for wider, lines in self._found.items():
            if names <= wider:
                found = self._found[names] = [d for d in lines if d[1] in names]
                return found
        found = self._found[names] = self._scan(hashes, names)
        return found

    def _scan(
        self, hashes: re.Pattern[bytes], names: frozenset[bytes]
    ) -> list[tuple[int, bytes, int, int]]:
        data = self.data
        raw = self._raw
        out = []
        comments = b"/*" in data  # else no block comment may hold a `#`
        match_name = _NAME_AFTER_HASH.match
        for m in hashes.finditer(data):
            h = m.start()
            blank = True
            if h and data[h - 1] != 0x0A:  # else the `#` starts its line
                line = data.rfind(b"\n", 0, h) + 1
                if h > line:
                    before = data[line:h] if line else data[:h].removeprefix(_BOM)
                    if before.strip(b" \t"):
                        if b"/" not in before:
                            continue  # a token precedes the `#` on its line (only a comment may)
                        blank = False
            else:
                line = h
            n = match_name(data, h + 1)
            name, name_end = (n.group(1), n.end()) if n is not None else self.name_after(h)
            if name not in names:
                continue
            # starts_directive's first test, then the rest of it when that does not decide
            if not (
                blank
                and not data.endswith(_SPLICES, 0, line)
                and not (0 <= raw < h)
                and not (comments and self._comment_may_hold(h))
            ) and not self.starts_directive(h, line):
                continue
            # logical_end: the line's newline, when no splice or comment opener is on the line
            j = data.find(b"\n", name_end) + 1
            if j and not data.endswith(_SPLICES, 0, j) and data.find(b"/*", name_end, j) < 0:
                out.append((line, name, name_end, j))
            else:
                out.append((line, name, name_end, self.logical_end(name_end)))
        return out

    def name_after(self, hash_pos: int) -> tuple[bytes, int]:
        """(directive name, offset after it) of the directive whose `#` is at `hash_pos`: the
        identifier after the `#` and any blanks, splices and comments, with splices inside it
        removed (`#if` backslash-newline `def X` is `#ifdef X`). b"" when none follows."""
        data = self.data
        m = _NAME_AFTER_HASH.match(data, hash_pos + 1)
        if m is not None:
            return m.group(1), m.end()
        i, n = hash_pos + 1, len(data)
        while i < n:  # blanks, splices and comments before the name
            s = _SPLICE.match(data, i)
            if data[i] in b" \t":
                i += 1
            elif s is not None:
                i = s.end()
            elif data.startswith(b"/*", i):
                j = data.find(b"*/", i + 2)
                i = n if j < 0 else j + 2
            else:
                break
        name = bytearray()
        while i < n:
            s = _SPLICE.match(data, i)
            if s is not None:
                i = s.end()
            elif data[i] in _IDENT_BYTES and (name or data[i] not in _DIGITS):
                name.append(data[i])
                i += 1
            else:
                break
        return bytes(name), i

    def logical_end(self, pos: int) -> int:
        """Offset after the newline that ends the logical line holding `pos` (the file's end
        when none does): the first newline from `pos` on that is neither spliced nor inside a
        comment (`#if A /* newline */ || B` is one line)."""
        data = self.data
        j = pos
        while True:
            j = data.find(b"\n", j)
            if j < 0:
                end = len(data)
                break
            if not _spliced(data, j):
                end = j + 1
                break
            j += 1
        q = data.rfind(b"/*", pos, end)
        if q < 0 or data.find(b"*/", q + 2, end) >= 0:
            return end  # every comment opened on the line closes on it
        spans = self.spans()
        j = data.find(b"\n", pos)
        while j >= 0 and (_spliced(data, j) or in_spans(spans, j)):
            j = data.find(b"\n", j + 1)
        return len(data) if j < 0 else j + 1


# the Directives of the last few bytes objects asked about: the rewriter, the rules, the #if
# model and the project pre-pass ask about the same bytes object of a file one after another
_shared: list[Directives] = []
_SHARED = 4


def directives(data: bytes) -> Directives:
    """The one `Directives` of this bytes object (by identity) while it is among the last few
    asked about: its lexing and its directive lines are computed once for all who ask."""
    for d in _shared:
        if d.data is data:
            return d
    d = Directives(data)
    _shared.insert(0, d)
    del _shared[_SHARED:]
    return d
