"""The rewriter's and the completeness check's fast paths give what the long way gives. Each is
checked against the computation it replaced (kept here, or reached by undoing the shortcut) on
every fixture and example source, every header under /usr/local/cuda/include (where present),
built cases and seeded random and mutated texts."""

from __future__ import annotations

import random

import pytest
from built_texts import rewrite_sources as _sources

from porter.mappings.index import MappingIndex, load_index
from porter.rewrite import invariant
from porter.rewrite.cuda import CudaRewriter, PortOptions
from porter.rewrite.edits import apply
from porter.rewrite.lex import NameFilter, table_names
from porter.source import SourceFile


@pytest.fixture(scope="module")
def index() -> MappingIndex:
    return load_index()


@pytest.fixture(scope="module")
def sources() -> list[tuple[str, bytes]]:
    return _sources()


def test_names_outside_relevant_are_never_leftovers(index):
    """The check looks for `index.relevant`'s names, not every table name: a name outside
    `relevant` maps to itself in every row, from every ROCm version on, so the identity test of
    `leftovers` skips it wherever it stands."""
    identity = invariant._mapped_to_itself(index)
    others = table_names(index) - index.relevant
    assert others
    for raw in others:
        name = raw.decode()
        assert name in identity
        for version in ((0,), (5, 0), (6, 4), (7, 2), (99,)):
            row = MappingIndex.pick(index.by_name[name], version)
            assert row is not None and row.since <= version and name in (row.hip, row.roc)


def _leftovers(index, src: SourceFile, new: bytes, rw, fast: bool):
    """`leftovers` as the engine calls it (`fast`: with the rewriter's names), or from the
    output alone."""
    same = new == src.data
    kw = {}
    if fast:
        kw = {
            "idents": rw.idents if same and rw.idents else None,
            "input_idents": rw.idents or None,
            "input_names": rw.names if rw.idents else None,
            "input_hits": rw.name_hits if same and rw.idents else None,
        }
    edits = rw.edits.edits
    return invariant.leftovers(
        index, src, new, edits, rw.findings, rw.declared, (), rw.pp, (7, 2), **kw
    )


def test_leftovers_from_the_rewriters_names(index, sources, monkeypatch):
    """`leftovers` given the rewriter's names and their offsets finds what it finds from the
    output alone, and what it found when it looked for every table name (the filter it used
    before, put back here as the reference)."""
    rewriter = CudaRewriter(index, PortOptions())
    tables = NameFilter(table_names(index))
    files = found = 0
    for rel, data in sources:
        src = SourceFile(rel, data)
        rw = rewriter.run(src)
        new = apply(data, rw.edits.edits) if len(rw.edits) else data
        fast = _leftovers(index, src, new, rw, True)
        slow = _leftovers(index, src, new, rw, False)
        with monkeypatch.context() as m:
            m.setattr(invariant, "names_of", lambda _index: tables)
            before = _leftovers(index, src, new, rw, False)
        assert fast == slow == before, rel
        files += bool(rw.names)
        found += len(fast)
    assert files > 100 and found > 10


EDIT_TEXTS = [b"", b"cudaMalloc", b"x cudaFree(", b"cuBarBaz", b"hipMalloc", b"_", b"a", b"CUDA_Q"]


def test_leftovers_of_random_edits(index, sources):
    """With edits that write CUDA names, join tokens or split them (a table fault, a deletion
    between two names), `leftovers` given the input's names finds what it finds from the
    output alone."""
    from porter.findings import Edit

    rewriter = CudaRewriter(index, PortOptions())
    rnd = random.Random(7)
    written = 0
    for rel, data in sources:
        if len(data) > 20000:
            continue
        src = SourceFile(rel, data)
        rw = rewriter.run(src)
        for _ in range(2):
            points = sorted(rnd.sample(range(len(data) + 1), min(len(data) + 1, rnd.randint(0, 8))))
            edits = [Edit(a, b, rnd.choice(EDIT_TEXTS)) for a, b in zip(points[::2], points[1::2])]
            new = apply(data, edits)
            want = invariant.leftovers(index, src, new, edits, [])
            got = invariant.leftovers(
                index,
                src,
                new,
                edits,
                [],
                input_idents=rw.idents or None,
                input_names=rw.names if rw.idents else None,
            )
            assert got == want, (rel, edits)
            written += sum(x.written for x in got)
    assert written > 10


def _texts(sources) -> list[bytes]:
    """Every source, and texts built of the bytes the fast paths below look at."""
    rnd = random.Random(99)
    pieces = [b"\n", b"\r\n", b"\r", b"a", b"__device__", b"$", b"1", b"(", b")", b"[", b"]"]
    pieces += [b"{", b"}", b"\xc3\xa9", b" ", b"x__shared__", b"threadIdx_", b"/*", b"*/", b'"']
    built = [b"".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 60))) for _ in range(3000)]
    return [d for _, d in sources] + built


def test_device_words_are_identifier_tokens(sources):
    """`_has_device_code` looks only for the device words among the file's identifier tokens:
    a word found as a whole token is one of them."""
    from porter.rewrite.cuda import _DEVICE_WORDS
    from porter.rewrite.lex import find_word, identifiers

    hits = 0
    for data in _texts(sources):
        idents = identifiers(data)
        for w in _DEVICE_WORDS:
            if next(find_word(data, w), None) is not None:
                assert w in idents, (w, data[:200])
                hits += 1
    assert hits > 100


def reference_newline_of(data: bytes) -> bytes:
    """includes.newline_of before its one-search case."""
    if b"\r\n" in data:
        return b"\r\n"
    if b"\r" in data and b"\n" not in data:
        return b"\r"
    return b"\n"


def test_newline_of(sources):
    from porter.rewrite.includes import newline_of

    seen = set()
    for data in _texts(sources):
        assert newline_of(data) == reference_newline_of(data), data[:200]
        seen.add(newline_of(data))
    assert seen == {b"\n", b"\r\n", b"\r"}


_PAIRS = ((b"(", b")"), (b"[", b"]"), (b"{", b"}"))


def reference_balanced(plain) -> bool:
    """plain.PlainNames.balanced before its one-pass bracket count."""
    data = plain.data
    if all(data.count(o) == data.count(c) for o, c in _PAIRS):
        return True
    if plain._directives is None:
        plain._directive_at(0)
    cut = sorted([*plain.spans, *((d[0], d[3]) for d in plain._directives)])
    pieces, pos = [], 0
    for a, b in cut:
        if a > pos:
            pieces.append(data[pos:a])
        pos = max(pos, b)
    pieces.append(data[pos:])
    code = b"".join(pieces)
    return all(code.count(o) == code.count(c) for o, c in _PAIRS)


def test_balanced(sources):
    from porter.rewrite.names import LexicalContexts
    from porter.rewrite.plain import PlainNames

    answers = set()
    for data in _texts(sources):
        spans, starts = LexicalContexts(data).spans()
        got = PlainNames(data, spans, starts).balanced()
        assert got == reference_balanced(PlainNames(data, spans, starts)), data[:200]
        answers.add(got)
    assert answers == {True, False}


def reference_position(src: SourceFile, offset: int) -> tuple[int, int]:
    """SourceFile.position from line_starts alone, as it was."""
    import bisect

    starts = src.line_starts
    line = bisect.bisect_right(starts, offset) - 1
    if src.data.isascii():
        return line + 1, offset - starts[line] + 1
    prefix = src.data[starts[line] : offset]
    try:
        col = len(prefix.decode("utf-8")) + 1
    except UnicodeDecodeError:
        col = len(prefix) + 1
    return line + 1, col


def test_position(sources):
    """`position` counting newlines on from the last offset (and from line_starts past its
    budget) gives what line_starts gives, whatever the order of the offsets asked."""
    rnd = random.Random(5)
    long_lines = [b"x" * 5000 + b"\n" + b"y" * 3000, b"\n" * 50 + b"z" * 9000 + b"\n"]
    for data in _texts(sources) + long_lines:
        n = len(data)
        cases = [
            sorted(rnd.randint(0, n) for _ in range(20)),  # in order: counted on
            [rnd.randint(0, n) for _ in range(20)],  # out of order: from the start, then starts
            sorted((rnd.randint(0, n) for _ in range(20)), reverse=True),
            [0, n, n + 3, n // 2, n, 0],  # the ends, and past the end
            [n // 2, n // 2, n // 2 + 1, n // 2 + 1],  # the same offset, the same line
        ]
        for offsets in cases:
            src, ref = SourceFile("f.cu", data), SourceFile("f.cu", data)
            for k, offset in enumerate(offsets):
                assert src.position(offset) == reference_position(ref, offset), (data[:80], k)


def _port(rewriter: CudaRewriter, rel: str, data: bytes):
    rw = rewriter.run(SourceFile(rel, data))
    return rw.uses_cuda, rw.edits.edits, [(f.code, f.line, f.col, f.message) for f in rw.findings]


def test_rewriter_against_its_references(index, sources, monkeypatch):
    """The rewriter ports every source as it did when `_has_device_code` searched for every
    device word, whether or not it is one of the file's tokens, and each include path was
    looked up in the tables every time (the references, put back); and as it does when it
    keeps one path's header row at a time (its bound)."""
    from porter.rewrite import cuda
    from porter.rewrite.lex import find_word

    def every_word(self, data: bytes, idents) -> bool:
        for w in cuda._DEVICE_WORDS:
            for pos in find_word(data, w):
                ctx, _ = self._ctx.at(pos, pos + len(w))
                if ctx in ("code", "lexical", "opaque"):
                    return True
        return False

    def looked_up(self, path: str):
        return self.index.lookup_header(path, None)

    fast = CudaRewriter(index, PortOptions())
    got = [_port(fast, rel, data) for rel, data in sources]
    assert len(fast._headers) > 100
    with monkeypatch.context() as m:
        m.setattr(cuda.CudaRewriter, "_has_device_code", every_word)
        m.setattr(cuda.CudaRewriter, "_header", looked_up)
        slow = CudaRewriter(index, PortOptions())
        for (rel, data), want in zip(sources, got):
            assert _port(slow, rel, data) == want, rel
    with monkeypatch.context() as m:
        m.setattr(cuda, "_MAX_PATHS_KEPT", 1)
        bounded = CudaRewriter(index, PortOptions())
        for (rel, data), want in zip(sources, got):
            assert _port(bounded, rel, data) == want, rel
        assert len(bounded._headers) <= 2
    assert sum(uses_cuda for uses_cuda, _, _ in got) > 100


def reference_qualified_matches(data: bytes, first: bytes, keys: list[str]):
    """lex.qualified_matches before the third component was read: every key sharing the
    second component tried at each `first :: second`."""
    import re

    from porter.rewrite.lex import QUALIFIED_SEP, qualified_regex

    by_second: dict[bytes, list[str]] = {}
    for key in keys:
        by_second.setdefault(key.split("::")[1].encode(), []).append(key)
    head = re.compile(re.escape(first) + QUALIFIED_SEP + rb"([A-Za-z_][A-Za-z0-9_]*)")
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
                continue
            m = rx.match(data, pos)
            if m is not None:
                out.append((m, key))
                last = m.end()
    return out


def test_qualified_matches(index, sources):
    """The qualified names found (keys, spans, groups) are those found trying every key of a
    second component, on every source and on texts built of the keys' components."""
    from porter.rewrite.lex import qualified_matches, scanner_for

    qualified = scanner_for(index).qualified
    parts = {p.encode() for keys in qualified.values() for k in keys for p in k.split("::")}
    pieces = sorted(parts) + [b"::", b" :: ", b"\n", b"$", b"x", b"_", b"1", b"(", b" "]
    rnd = random.Random(3)
    built = [b"".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 40))) for _ in range(4000)]
    found = 0
    for data in [d for _, d in sources] + built:
        for first, keys in qualified.items():
            if first not in data:
                continue
            got = [(m.span(), m.groups(), k) for m, k in qualified_matches(data, first, keys)]
            want = reference_qualified_matches(data, first, keys)
            assert got == [(m.span(), m.groups(), k) for m, k in want], data[:200]
            found += len(got)
    assert found > 1000
