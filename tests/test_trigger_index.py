"""TriggerIndex's shortcuts select what the plain substring test selects: each pending text
trigger's literal search, the selection kept per set of identifier triggers (bounded), and the
text triggers' identifier gates, which leave out short runs (`h`
of `mma.h`) when the trigger has a longer one."""

from __future__ import annotations

from built_texts import prefilter_sources as _sources

from porter import engine
from porter.rewrite.lex import identifiers
from porter.rules.registry import all_rules


def _rules() -> list:
    return [r() for r in all_rules() if not r.emitted_by_engine and "cuda" in r.languages]


def _plain(rules, data: bytes) -> list:
    return [r for r in rules if not r.triggers or any(t in data for t in r.triggers)]


def test_each_text_trigger_search_keeps_the_selection():
    """Each pending text trigger is looked for with its own literal search: the selection stays
    the plain one, on the sources and on them again (every identifier then known)."""
    rules = _rules()
    index = engine.TriggerIndex(rules)
    sources = list(_sources())
    for name, data in [*sources, *sources]:
        assert index.rules_for(data, identifiers(data)) == _plain(rules, data), name
    assert any(b"<<<" in d for _, d in sources), "no source holds a text trigger"


def test_the_bounded_plan_cache_keeps_the_selection(monkeypatch):
    """The selection kept per set of identifier triggers (the rules they select, the text
    triggers left to look for) is the plain one, when kept and when made again: with room for
    one set only, the cache starts over at each new set, within its bound."""
    rules = _rules()
    sources = list(_sources())
    for bound in (1, engine._PLANS_MAX):
        monkeypatch.setattr(engine, "_PLANS_MAX", bound)
        index = engine.TriggerIndex(rules)
        for name, data in [*sources, *sources]:
            assert index.rules_for(data, identifiers(data)) == _plain(rules, data), name
            assert len(index._plans) <= bound
    assert len(index._plans) > 1, "every source holds the same identifier triggers"


def test_a_text_trigger_only_in_the_file_is_found_when_others_are_pending():
    """A pending trigger is found wherever it is (the first, the last, one that overlaps
    another's place)."""
    rules = _rules()
    index = engine.TriggerIndex(rules)
    body = b"__global__ void k(int* p) { p[threadIdx.x] = 0; }\n"
    texts = [t for t in index.text_triggers if not index._runs[t]]
    assert len(texts) > 2, texts
    for t in texts:
        for data in (t + b"\n" + body, body + t, body + b"x" + t + b"x"):
            assert index.rules_for(data, identifiers(data)) == _plain(rules, data), t


def test_short_runs_are_no_gates_when_a_longer_one_is():
    rules = _rules()
    index = engine.TriggerIndex(rules)
    for t, runs in index._runs.items():
        whole = engine.TriggerIndex._IDENTLIKE.findall(t)
        assert set(runs) <= set(whole)
        if any(len(r) >= engine._GRAM for r in whole):
            assert all(len(r) >= engine._GRAM for r in runs), (t, runs)
        else:
            assert list(runs) == whole, (t, runs)
    # an identifier holding only a dropped short run (`h` of mma.h) is remembered as nothing
    data = b"int high_bits(int hh) { return hh; }\n"
    assert index.rules_for(data, identifiers(data)) == _plain(rules, data)
    assert b"high_bits" not in index._hitters and b"hh" not in index._hitters
