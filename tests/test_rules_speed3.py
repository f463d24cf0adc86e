"""TriggerIndex learns which match strings each new identifier holds with one regex search (a
trie) over the new identifiers joined; the Python loop it replaces, which looked up every
position of every identifier by its first _GRAM bytes, is kept here as the reference."""

from __future__ import annotations

import random

from sources import cuda_headers, random_texts, repo_files

from porter import engine
from porter.rewrite.lex import identifiers
from porter.rules.registry import all_rules

_GRAM = 3  # the reference's look-up key length


def _rules() -> list:
    return [r() for r in all_rules() if not r.emitted_by_engine and "cuda" in r.languages]


def _reference(match: list[bytes], idents) -> dict[bytes, frozenset[bytes]]:
    """The former loop: identifier -> the match strings it holds, for those holding one."""
    short = [t for t in match if len(t) < _GRAM]
    by_gram: dict[bytes, list[bytes]] = {}
    for t in match:
        if len(t) >= _GRAM:
            by_gram.setdefault(t[:_GRAM], []).append(t)
    out = {}
    for i in idents:
        found = [t for t in short if t in i]
        for p in range(len(i) - _GRAM + 1):
            candidates = by_gram.get(i[p : p + _GRAM])
            if candidates is not None:
                found += [t for t in candidates if i.startswith(t, p)]
        if found:
            out[i] = frozenset(found)
    return out


def _learned(index: engine.TriggerIndex, batches) -> dict[bytes, frozenset[bytes]]:
    for batch in batches:
        index._learn(list(batch))
    assert set(index._by_ident) == index._hitters
    return dict(index._by_ident)


def _source_idents() -> list[set[bytes]]:
    files = repo_files() + cuda_headers()
    return [identifiers(p.read_bytes()) for p in files]


def test_the_trie_search_learns_what_the_position_loop_learned():
    """Every fixture's, example's and CUDA header's identifiers, file by file (as the engine
    meets them, each batch the identifiers not met before) and all at once."""
    index = engine.TriggerIndex(_rules())
    per_file = _source_idents()
    assert len(per_file) > 100, "too few sources"
    seen: set[bytes] = set()
    batches = []
    for idents in per_file:
        batches.append(idents - seen)
        seen |= idents
    want = _reference(index._match, seen)
    assert len(want) > 500, "few identifiers hold a match string: the test proves little"
    assert _learned(engine.TriggerIndex(_rules()), batches) == want
    assert _learned(engine.TriggerIndex(_rules()), [sorted(seen)]) == want


def test_overlapping_and_nested_match_strings():
    """Identifiers built of match strings, their parts and other identifier bytes: strings
    that overlap, nest (`__shfl` in `__shfl_sync`, `sync` and `_sync` in it), repeat, or sit at
    an identifier's ends, in random batches of random sizes."""
    index = engine.TriggerIndex(_rules())
    match = index._match
    rnd = random.Random(20261203)
    pieces = [*match, *(t[: len(t) // 2] for t in match), *(t[1:] for t in match)]
    pieces += [b"_", b"x", b"0", b"A", b"cu", b"CU", b"sy", b"nc"]
    idents = set(random_texts(rnd, pieces, 20_000, 4))
    idents |= {
        bytes(rnd.choice(b"_acdensuxyCSU") for _ in range(rnd.randint(1, 12)))
        for _ in range(20_000)
    }
    want = _reference(match, idents)
    assert len(want) > 10_000
    order = sorted(idents)
    rnd.shuffle(order)
    batches = []
    while order:
        n = rnd.choice((1, 2, 7, 100, 3000))
        batches.append(order[:n])
        order = order[n:]
    assert _learned(engine.TriggerIndex(_rules()), batches) == want


def test_small_sets_by_hand():
    """A trie of a few words: the longest at each position and its prefixes."""
    rules = _rules()
    index = engine.TriggerIndex(rules)
    index._match = [b"ab", b"abcd", b"b", b"bc", b"x"]
    index._search_match = engine.re.compile(engine._trie_pattern(index._match)).search
    index._prefixes = {
        t: frozenset(p for p in index._match if t.startswith(p)) for t in index._match
    }
    idents = [b"abcd", b"abc", b"zab", b"bcd", b"xx", b"qq", b"a", b"cdab"]
    assert _learned(index, [idents]) == _reference(index._match, idents)
    assert index._by_ident[b"abcd"] == {b"ab", b"abcd", b"b", b"bc"}
    assert b"qq" not in index._by_ident and b"a" not in index._by_ident
