"""Every rule fixture: expected findings exactly, fixes equal to the .fixed twin, and stable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rule_harness import apply_fixes, fixed_twin, parse_fixture, run_fixture

from porter.rules.registry import all_rules

FIXTURE_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
FIXTURES = sorted(
    p for p in FIXTURE_DIR.glob("*") if p.is_file() and ".fixed" not in p.name and p.suffix != ".md"
)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture_findings(path: Path):
    expected, found, codes, _, res = run_fixture(path)
    assert codes, f"{path.name}: no expect/ok markers"
    assert not res.errors, f"{path.name}: {res.errors}"  # a rule that crashed reports nothing
    problems = []
    for line in sorted(set(expected) | set(found)):
        want, got = expected.get(line, set()), found.get(line, set())
        if want != got:
            problems.append(f"line {line}: expected {sorted(want)}, found {sorted(got)}")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "path", [p for p in FIXTURES if fixed_twin(p).exists()], ids=lambda p: p.name
)
def test_fixture_fixes(path: Path):
    _, codes, opts = parse_fixture(path.read_text())
    fixed = apply_fixes(path, path.read_bytes(), codes, opts)
    want = fixed_twin(path).read_bytes()
    assert fixed.decode() == want.decode()
    again = apply_fixes(path, fixed, codes, opts)
    assert again == fixed, "fixing the fixed text changed it again"


def _expected_codes(paths) -> set[str]:
    """Codes some `expect:` marker of these fixtures names (an `ok:` marker proves nothing)."""
    out: set[str] = set()
    for p in paths:
        expected, _, _ = parse_fixture(p.read_text())
        for codes in expected.values():
            out |= codes
    return out


def test_every_fixable_rule_has_a_fixed_twin():
    """A rule that offers a safe or unsafe fix has an `expect:` line in a fixture with a .fixed
    twin."""
    fixed = _expected_codes(p for p in FIXTURES if fixed_twin(p).exists())
    missing = [r.code for r in all_rules() if r.fix in ("safe", "unsafe") and r.code not in fixed]
    assert not missing, f"rules with fixes but no .fixed fixture: {missing}"


def test_every_rule_has_an_expect_fixture():
    """Every rule is expected somewhere: a code listed only under `ok:` does not count."""
    expected = _expected_codes(FIXTURES)
    missing = [r.code for r in all_rules() if not r.emitted_by_engine and r.code not in expected]
    assert not missing, f"rules without an expect fixture: {missing}"


def test_expect_markers_are_counted_and_ok_markers_are_not(tmp_path: Path):
    """The fixture parser itself: `ok:` names a code under test but expects nothing."""
    f = tmp_path / "PT999_probe.cu"
    f.write_text(
        "int a;  // ok: PT101, PT104\n// expect: PT105\nint b;\nint c;  // expect: PT106\n"
    )
    assert _expected_codes([f]) == {"PT105", "PT106"}
    expected, codes, _ = parse_fixture(f.read_text())
    assert expected == {3: {"PT105"}, 4: {"PT106"}} and codes == {
        "PT101",
        "PT104",
        "PT105",
        "PT106",
    }


# CONTRIBUTING.md: <CODE>_<kebab-case description>.<ext>, the fixed twin <stem>.fixed.<ext>.
# Build fixtures named after the file they stand for (cmakelists_*, makefile_*) are the build
# rules' own convention.
NAME = re.compile(
    r"PT\d{3,4}_[a-z0-9]+(?:-[a-z0-9]+)*(?:\.fixed)?"
    r"\.(?:cu|cuh|cpp|h|hpp|cmake|mk|py)"
)
BUILD_NAMED = ("cmakelists_", "makefile_")


def test_fixture_names():
    bad = [
        p.name
        for p in FIXTURE_DIR.iterdir()
        if p.is_file()
        and p.suffix != ".md"
        and not p.name.lower().startswith(BUILD_NAMED)
        and not NAME.fullmatch(p.name)
    ]
    assert not bad, f"fixture names not <CODE>_<kebab-description>.<ext>: {bad}"


@pytest.mark.parametrize(
    "path", [p for p in FIXTURES if NAME.fullmatch(p.name)], ids=lambda p: p.name
)
def test_fixture_tests_the_code_it_is_named_after(path: Path):
    _, codes, _ = parse_fixture(path.read_text())
    assert path.name.split("_")[0] in codes
