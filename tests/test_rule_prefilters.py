"""A rule's `wanted` prefilter (porter/rules/base.py `Rule.wanted`) lets the engine skip the rule,
and the parse it would need, on a file where the rule cannot report: on every fixture and
example source, and on cases built for each prefilter, a rule that finds something is wanted."""

from __future__ import annotations

import pytest
from built_texts import prefilter_sources as _sources

from porter.mappings.index import load_index
from porter.parse.cuda import parse
from porter.rewrite.lex import identifiers
from porter.rules.base import Rule, RuleContext, RuleOptions
from porter.rules.registry import all_rules
from porter.source import SourceFile


def _prefiltered():
    return [r() for r in all_rules() if r.wanted is not Rule.wanted and "cuda" in r.languages]


@pytest.mark.parametrize("rule", _prefiltered(), ids=lambda r: r.code)
def test_prefilter_never_drops_a_finding(rule):
    """Run the rule on every source (the tree parsed, as the engine does when the rule runs):
    where it reports, its prefilter says wanted; the prefilter also skips some triggered
    sources (it is not always true)."""
    index = load_index()
    reported = skipped = 0
    for name, data in _sources():
        idents = identifiers(data)
        if not any(t in data for t in rule.triggers):
            continue
        wanted = rule.wanted(idents, index, data)
        ctx = RuleContext(SourceFile(name, data), parse(data), RuleOptions(), index, idents)
        found = list(rule.check(ctx))
        if found:
            reported += 1
            assert wanted, (rule.code, name, [f.message for f in found][:2])
        elif not wanted:
            skipped += 1
    assert reported, f"{rule.code}: no source gives a finding, the test proves nothing"
    assert skipped, f"{rule.code}: the prefilter skipped no triggered source"


def test_trigger_index_is_the_plain_substring_test():
    """TriggerIndex.rules_for (identifier triggers looked up per distinct identifier, text
    triggers scanned only while they could add a rule) selects exactly the rules one of whose
    triggers is in the file, plus those without triggers, in registry order."""
    from porter.engine import TriggerIndex

    rules = [r() for r in all_rules() if not r.emitted_by_engine and "cuda" in r.languages]
    index = TriggerIndex(rules)
    for name, data in [*_sources(), ("all.cu", b"\n".join(d for _, d in _sources()))]:
        plain = [r for r in rules if not r.triggers or any(t in data for t in r.triggers)]
        assert index.rules_for(data) == plain, name
        assert index.rules_for(data, identifiers(data)) == plain, name


def test_trigger_index_starts_over_without_losing_a_files_triggers(monkeypatch):
    """When the identifiers it remembers pass their bound, TriggerIndex starts over: the file
    that crosses it still gets every rule its triggers select (before, its identifiers seen in
    earlier files were forgotten, and their rules silently skipped)."""
    from porter import engine

    monkeypatch.setattr(engine, "_TRIGGER_CACHE_MAX", 50)
    rules = [r() for r in all_rules() if not r.emitted_by_engine and "cuda" in r.languages]
    index = engine.TriggerIndex(rules)
    sources = list(_sources())
    for _ in range(2):
        for name, data in sources:
            plain = [r for r in rules if not r.triggers or any(t in data for t in r.triggers)]
            assert index.rules_for(data, identifiers(data)) == plain, name
