"""Rule metadata and documentation: every rule has the fixed headings (Ruff's rule docs)."""
from __future__ import annotations

import pytest

from porter.findings import Applicability
from porter.rules.base import DOC_HEADINGS
from porter.rules.registry import all_rules, get

RULES = all_rules()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_doc_headings(rule):
    doc = rule.doc()
    assert doc.splitlines()[0].strip(), f"{rule.code}: first line must be a one-line title"
    for h in DOC_HEADINGS:
        assert f"## {h}" in doc, f"{rule.code} {rule.name}: missing '## {h}'"
    order = [doc.index(f"## {h}") for h in DOC_HEADINGS]
    assert order == sorted(order), f"{rule.code}: headings out of order"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_metadata(rule):
    assert isinstance(rule.fix, Applicability)
    assert rule.languages and set(rule.languages) <= {"cuda", "build", "python"}
    assert get(rule.code) is rule and get(rule.name) is rule


def test_names_unique():
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
