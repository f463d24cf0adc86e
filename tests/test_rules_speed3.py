"""TriggerIndex learns which match strings each new identifier holds with one regex search (a
trie) over the new identifiers joined; the Python loop it replaces, which looked up every
position of every identifier by its first _GRAM bytes, is kept here as the reference.
IdentMatcher matches each joined identifier from the newline before it; the former `^...$`
search under re.M is kept here as the reference."""

from __future__ import annotations

import random
import re
import sys

from sources import cuda_headers, random_texts, repo_files

from porter import engine
from porter.rewrite.lex import identifiers
from porter.rules.base import _LINE_SENSITIVE, IdentMatcher
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
    index._search_match = re.compile(engine._trie_pattern(index._match)).search
    index._prefixes = {
        t: frozenset(p for p in index._match if t.startswith(p)) for t in index._match
    }
    idents = [b"abcd", b"abc", b"zab", b"bcd", b"xx", b"qq", b"a", b"cdab"]
    assert _learned(index, [idents]) == _reference(index._match, idents)
    assert index._by_ident[b"abcd"] == {b"ab", b"abcd", b"b", b"bc"}
    assert b"qq" not in index._by_ident and b"a" not in index._by_ident


# -- IdentMatcher: each line matched from the newline before it -----------------------------
def _old_hits(pattern: bytes, flags: int, batches) -> list[set[bytes]]:
    """The former IdentMatcher._learn (`^(?:pattern)$` under re.M over the joined identifiers):
    the hits among each batch of new identifiers (batches share none)."""
    full = re.compile(pattern, flags).fullmatch
    lines = (
        None
        if _LINE_SENSITIVE.search(pattern)
        else re.compile(rb"^(?:" + pattern + rb")$", flags | re.M).finditer
    )
    out = []
    for new in batches:
        found = [m.group() for m in lines(b"\n".join(new))] if lines is not None else None
        if found is None or any(b"\n" in f for f in found):
            out.append({i for i in new if full(i)})
        else:
            out.append(set(found))
    return out


def _new_hits(pattern: bytes, flags: int, batches) -> list[set[bytes]]:
    m = IdentMatcher(pattern, flags)
    return [m._learn(set(new)) & set(new) for new in batches]


def _rule_patterns() -> list[tuple[bytes, int]]:
    """Every IdentMatcher's pattern in porter's rule modules, and every other regex there (as
    bytes: any_ident may be asked with any of them), with extra patterns that can match across
    lines or hold groups and back-references."""
    found: dict[tuple[bytes, int], None] = {}
    for mod in list(sys.modules.values()):
        if not getattr(mod, "__name__", "").startswith(("porter.rules.", "porter.analysis.")):
            continue
        for v in vars(mod).values():
            if isinstance(v, IdentMatcher):
                found[(v._pattern, v._flags)] = None
            elif isinstance(getattr(v, "pattern", None), str | bytes) and hasattr(v, "flags"):
                pat = v.pattern if isinstance(v.pattern, bytes) else v.pattern.encode()
                flags = v.flags & (re.I | re.S | re.X)
                try:
                    re.compile(pat, flags)
                except (re.error, TypeError):
                    continue
                found[(pat, flags)] = None
    extra = [
        (rb"\w+\s\w+", 0),  # a match may hold a newline
        (rb"[^z]*", 0),
        (rb"(?:a|ab)(c|bcd)", 0),
        (rb"(_+)\w*\1", 0),  # a back-reference to the pattern's own group
        (rb"cuda\w*|CU\w*", re.I),
        (rb".*", re.S),
    ]
    return [*found, *extra]


def _identifier_batches() -> list[list[bytes]]:
    seen: set[bytes] = set()
    batches = []
    for idents in _source_idents():
        batches.append(sorted(idents - seen))
        seen |= idents
    return [b for b in batches if b]


def test_ident_matcher_finds_what_the_multiline_search_found():
    """Every pattern of the rule modules, over every fixture's, example's and CUDA header's
    identifiers, batch by batch (the hits among each batch), against the former search."""
    import porter.rules.registry as registry

    registry.all_rules()  # (every rule module imported)
    batches = _identifier_batches()
    patterns = _rule_patterns()
    assert len(patterns) > 100, len(patterns)
    assert sum(map(len, batches)) > 10_000
    hit_any = 0
    for pat, flags in patterns:
        want = _old_hits(pat, flags, batches)
        assert _new_hits(pat, flags, batches) == want, (pat, flags)
        hit_any += any(want)
    assert hit_any > 50, hit_any


def test_ident_matcher_on_built_identifiers_and_the_definition():
    """Built identifiers (pieces of the patterns' words, digits, underscores) in random
    batches: the hits are the former search's and exactly the identifiers matched in full."""
    import porter.rules.registry as registry

    registry.all_rules()
    rnd = random.Random(11)
    patterns = _rule_patterns()
    words = sorted({w for p, _ in patterns for w in re.findall(rb"[A-Za-z_][A-Za-z0-9_]+", p)})
    pieces = [*words, *(w[:3] for w in words), b"_", b"0", b"x", b"a", b"ab", b"bcd", b"c"]
    idents = sorted(set(random_texts(rnd, pieces, 6000, 3)))
    rnd.shuffle(idents)
    batches = [idents[i : i + n] for i, n in zip(range(0, 6000, 500), [1, 7, 500] * 20)]
    batches = [b for b in batches if b]
    for pat, flags in patterns:
        got = _new_hits(pat, flags, batches)
        assert got == _old_hits(pat, flags, batches), (pat, flags)
        full = re.compile(pat, flags).fullmatch
        assert set().union(*got) == {i for b in batches for i in b if full(i)}, (pat, flags)
