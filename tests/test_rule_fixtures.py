"""Every rule fixture: expected findings exactly, fixes equal to the .fixed twin, and stable."""
from __future__ import annotations

from pathlib import Path

import pytest

from porter.rules.registry import all_rules
from rule_harness import apply_fixes, fixed_twin, parse_fixture, run_fixture

FIXTURE_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
FIXTURES = sorted(p for p in FIXTURE_DIR.glob("*") if p.is_file() and ".fixed" not in p.name
                  and p.suffix != ".md")


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture_findings(path: Path):
    expected, found, codes, _, res = run_fixture(path)
    assert codes, f"{path.name}: no expect/ok markers"
    assert not res.errors, f"{path.name}: {res.errors}"      # a rule that crashed reports nothing
    problems = []
    for line in sorted(set(expected) | set(found)):
        want, got = expected.get(line, set()), found.get(line, set())
        if want != got:
            problems.append(f"line {line}: expected {sorted(want)}, found {sorted(got)}")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", [p for p in FIXTURES if fixed_twin(p).exists()], ids=lambda p: p.name)
def test_fixture_fixes(path: Path):
    _, codes, opts = parse_fixture(path.read_text())
    fixed = apply_fixes(path, path.read_bytes(), codes, opts)
    want = fixed_twin(path).read_bytes()
    assert fixed.decode() == want.decode()
    again = apply_fixes(path, fixed, codes, opts)
    assert again == fixed, "fixing the fixed text changed it again"


def test_every_fixable_rule_has_a_fixed_twin():
    """A rule that offers a safe or unsafe fix has at least one fixture with a .fixed twin."""
    twins = " ".join(p.read_text() for p in FIXTURES if fixed_twin(p).exists())
    missing = [r.code for r in all_rules() if r.fix in ("safe", "unsafe") and r.code not in twins]
    assert not missing, f"rules with fixes but no .fixed fixture: {missing}"


def test_every_rule_has_a_fixture():
    texts = " ".join(p.read_text() for p in FIXTURES)
    missing = [r.code for r in all_rules() if not r.emitted_by_engine and f"expect: {r.code}" not in texts
               and f", {r.code}" not in texts]
    assert not missing, f"rules without an expect fixture: {missing}"
