"""Rule metadata and documentation: every rule has the fixed headings (Ruff's rule docs), a
rule that offers a fix says how safe it is (Ruff's "Fix safety"), and the declared fix kind is
the kind of fix the rule's fixtures get."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rule_harness import run_fixture

from porter.findings import Applicability
from porter.rules.base import DOC_HEADINGS
from porter.rules.registry import all_rules, get

RULES = all_rules()
FIX_SAFETY = "Fix safety"  # between "Use instead" and "References" (Ruff's order)
FIXTURE_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "rules"


def _section(doc: str, heading: str) -> str:
    """The text under `## heading`, up to the next `## ` heading."""
    start = doc.index(f"## {heading}\n") + len(f"## {heading}\n")
    nxt = doc.find("\n## ", start)
    return doc[start:] if nxt < 0 else doc[start:nxt]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_doc_headings(rule):
    doc = rule.doc()
    assert doc.splitlines()[0].strip(), f"{rule.code}: first line must be a one-line title"
    for h in DOC_HEADINGS:
        assert f"## {h}" in doc, f"{rule.code} {rule.name}: missing '## {h}'"
    order = [doc.index(f"## {h}") for h in DOC_HEADINGS]
    assert order == sorted(order), f"{rule.code}: headings out of order"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_fix_safety_section(rule):
    """A rule with a fix kind (safe, unsafe, display) explains it under `## Fix safety`, after
    `## Use instead` and before `## References`; a rule without a fix does not claim one."""
    doc = rule.doc()
    headings = re.findall(r"^## (.+)$", doc, re.MULTILINE)
    if rule.fix is Applicability.NONE:
        assert FIX_SAFETY not in headings, f"{rule.code} has no fix but a '## {FIX_SAFETY}'"
        return
    assert headings.count(FIX_SAFETY) == 1, f"{rule.code} (fix: {rule.fix}): no '## {FIX_SAFETY}'"
    i = headings.index(FIX_SAFETY)
    assert headings[i - 1] == "Use instead" and headings[i + 1] == "References", (
        f"{rule.code}: '## {FIX_SAFETY}' belongs between 'Use instead' and 'References'"
    )
    text = _section(doc, FIX_SAFETY)
    assert len(text.split()) >= 15, f"{rule.code}: the fix safety section says too little"
    if rule.fix is Applicability.DISPLAY:
        assert "never" in text and "Display only" in text, (
            f"{rule.code}: a display-only fix must say porter never applies it"
        )


@pytest.fixture(scope="module")
def fixture_fix_kinds() -> dict[str, set[Applicability]]:
    """Code -> the applicabilities of the fixes its findings carry, over every rule fixture."""
    kinds: dict[str, set[Applicability]] = {}
    paths = sorted(
        p
        for p in FIXTURE_DIR.glob("*")
        if p.is_file() and ".fixed" not in p.name and p.suffix != ".md"
    )
    assert paths
    for p in paths:
        res = run_fixture(p)[-1]
        for f in res.findings:
            kinds.setdefault(f.code, set())
            if f.fix is not None:
                kinds[f.code].add(f.fix.applicability)
    return kinds


@pytest.mark.parametrize(
    "rule", [r for r in RULES if not r.emitted_by_engine], ids=lambda r: r.code
)
def test_declared_fix_kind_matches_the_fixes(rule, fixture_fix_kinds):
    """The fix kind `porter rule` prints is what the rule's findings carry in its fixtures, and
    the fix safety section names each kind it applies (safe: by `porter port`; unsafe: with
    `--unsafe-fixes`)."""
    got = fixture_fix_kinds.get(rule.code, set())
    applied = {Applicability.SAFE, Applicability.UNSAFE}
    if rule.fix is Applicability.NONE:
        assert not got, f"{rule.code} declares no fix but its findings carry {sorted(got)}"
        return
    if rule.fix is Applicability.DISPLAY:
        assert not got & applied, f"{rule.code} is display-only but offers {sorted(got)} fixes"
        return
    assert got & applied, f"{rule.code} declares a {rule.fix} fix that no fixture produces"
    assert Applicability.DISPLAY not in got
    # `Rule.fix` is the best applicability its fixes have (porter.rules.base)
    best = Applicability.SAFE if Applicability.SAFE in got else Applicability.UNSAFE
    assert rule.fix is best, f"{rule.code} declares {rule.fix} but its best fix is {best}"
    text = _section(rule.doc(), FIX_SAFETY)
    if Applicability.SAFE in got:
        assert re.search(r"\b[Ss]afe\b", text), f"{rule.code}: applies safe fixes; say so"
    if Applicability.UNSAFE in got:
        assert "--unsafe-fixes" in text, (
            f"{rule.code}: applies unsafe fixes; say they need --unsafe-fixes"
        )


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_metadata(rule):
    assert isinstance(rule.fix, Applicability)
    assert rule.languages and set(rule.languages) <= {"cuda", "build", "python"}
    assert get(rule.code) is rule and get(rule.name) is rule


def test_names_unique():
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
