"""Byte-level lexing shared by the rewriter and the rules: identifier tokens, whole-word search,
comment/string spans of opaque text (macro bodies, ERROR regions), and the candidate scanner
built once from the mapping tables."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache

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
_BLOCK_COMMENT = re.compile(rb"/\*.*?(?:\*/|\Z)", re.DOTALL)


def looks_cuda(name: bytes) -> bool:
    """Does this identifier token look like a CUDA API name?"""
    return name[:2] in LOOKING_PREFIXES and CUDA_LOOKING_B.match(name) is not None


# CUDA_LOOKING over identifiers joined one per line: one regex pass instead of a call per name
# (each name between newlines; the literal `\n` lets the regex engine skip to the next one)
assert CUDA_LOOKING_B.pattern.endswith(b"$")
_LOOKING_LINES = re.compile(rb"\n(" + CUDA_LOOKING_B.pattern[:-1] + rb")(?=\n)")


def cuda_looking(idents: Iterable[bytes]) -> set[bytes]:
    """The identifier tokens that look like CUDA API names: {n for n in idents if
    looks_cuda(n)}, from one search over the joined tokens (identifiers hold no newline)."""
    return set(_LOOKING_LINES.findall(b"\n" + b"\n".join(idents) + b"\n"))


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
    head, by_second = _qualified_heads(first, tuple(keys))
    starts: dict[str, list[int]] = {}
    for h in head.finditer(data):
        for key in by_second.get(h.group(1), ()):
            starts.setdefault(key, []).append(h.start())
    out = []
    for key in keys:
        rx = qualified_regex(key)
        last = -1
        for pos in starts.get(key, ()):
            if pos < last:
                continue  # inside the previous match, where finditer does not look
            m = rx.match(data, pos)
            if m is not None:
                out.append((m, key))
                last = m.end()
    return out


@cache
def _qualified_heads(first: bytes, keys: tuple[str, ...]):
    """(regex of `first :: <identifier>`, {second component: keys}) for qualified_matches."""
    by_second: dict[bytes, list[str]] = {}
    for key in keys:
        by_second.setdefault(key.split("::")[1].encode(), []).append(key)
    return re.compile(re.escape(first) + QUALIFIED_SEP + rb"([A-Za-z_][A-Za-z0-9_]*)"), by_second


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


def identifiers(data: bytes) -> set[bytes]:
    """Every distinct identifier-like token of a file (one C-speed pass)."""
    return set(IDENT.findall(data))


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
