"""The CUDA library parameter lists (scripts/data/api/cuda_library_arity.tsv, which the roc*/MIOpen
columns are checked against) come from pinned inputs (issue 7 §3, issue 8 §3): the wheels they
are made from are pinned by version and sha256 in scripts/inputs.lock (`arity = true`), the list
itself by sha256, and the rows of a pinned wheel rebuild from that wheel byte for byte.

The five wheels weigh about 1.4 GB together (`python scripts/roc_api.py --fetch all`, a few
seconds from the registry; .ci/run fetches them). A wheel missing from the cache skips its test
locally and fails it under PORTER_REQUIRE_TOOLCHAIN=1, as every other required input does."""

from __future__ import annotations

import shutil
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, need

sys.path.insert(0, str(ROOT / "scripts"))
import api_sources  # noqa: E402
import roc_api  # noqa: E402

LOCK = api_sources.Lock.load()
ARITY = LOCK.arity_wheels()


def _made_from() -> set[str]:
    """The wheels the committed list's header says it was made from (`name-version`)."""
    for line in roc_api.ARITY_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("# made by") and " from " in line:
            return {w.strip() for w in line.split(" from ", 1)[1].split(",")}
    raise AssertionError(f"{roc_api.ARITY_FILE.name}: no `# made by ... from` line")


def _wheel_stem(entry: dict) -> str:
    name, _, version = entry["requirement"].partition("==")
    return f"{name.replace('-', '_')}-{version}"


def _rows(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln and not ln.startswith("#")]


def test_the_list_is_made_from_exactly_the_pinned_wheels():
    assert ARITY, "scripts/inputs.lock pins no arity wheel"
    assert {_wheel_stem(e) for e in ARITY} == _made_from()
    for e in ARITY:
        assert "==" in e["requirement"] and len(e["sha256"]) == 64, e


def test_the_lock_pins_the_committed_list():
    assert api_sources.ARITY_LIST in LOCK.lists
    problems = [p for p in LOCK.list_problems() if api_sources.ARITY_LIST in p]
    assert not problems, problems


def test_an_edited_list_is_reported(tmp_path: Path):
    lock = tmp_path / "inputs.lock"
    text = api_sources.LOCK.read_text(encoding="utf-8")
    lock.write_text(text.replace(LOCK.lists[api_sources.ARITY_LIST], "0" * 64), encoding="utf-8")
    problems = api_sources.Lock.load(lock).list_problems()
    assert any(api_sources.ARITY_LIST in p for p in problems), problems


def test_arity_only_wheels_are_not_checked_cuda_releases():
    """A -cu12 library wheel read for its parameter lists does not make its major version a
    checked CUDA release (cuda_removed is decided by 11.8, 12.9 and 13.0 only)."""
    assert all(e.get("arity_only") or e.get("headers_only") for e in ARITY)
    releases = LOCK.cuda_releases()
    assert (12,) not in releases and (12, 9) in releases


def _headers_of(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as z:
        names = {n.split("/include/", 1)[1] for n in z.namelist() if "/include/" in n}
    return {h for h in roc_api.CUDA_HEADERS if h in names}


def _independent(entry: dict) -> bool:
    """Can the wheel's rows be rebuilt from it alone? (cuSOLVER's headers include cuBLAS's)"""
    return "cusolver" not in entry["requirement"]


@pytest.mark.parametrize("entry", [e for e in ARITY if _independent(e)], ids=_wheel_stem)
def test_a_pinned_wheel_rebuilds_its_rows(entry: dict):
    wheel = api_sources.cached_wheel(entry)
    fetch = f"python scripts/roc_api.py --fetch {entry['requirement'].partition('==')[0]}"
    need(wheel is not None, f"{entry['requirement']} not in {api_sources.WHEEL_CACHE} ({fetch})")
    need(shutil.which("clang++-22") is not None, "clang++-22 not installed (scripts/setup-rocm.sh)")
    need((roc_api.CUDA_INCLUDE / "cuda_runtime.h").is_file(), "CUDA headers not found")
    assert wheel is not None
    headers = _headers_of(wheel)
    assert headers, f"{wheel.name}: none of {roc_api.CUDA_HEADERS}"
    rebuilt = _rows(roc_api.build_cuda_arity([wheel]))
    committed = [
        r
        for r in _rows(roc_api.ARITY_FILE.read_text(encoding="utf-8"))
        if r.split("\t")[2] in headers
    ]
    assert rebuilt == committed


def test_the_whole_list_rebuilds_from_the_pinned_wheels():
    wheels = [api_sources.cached_wheel(e) for e in ARITY]
    need(
        all(w is not None for w in wheels),
        "not every pinned arity wheel is in the cache (about 1.4 GB: "
        "`python scripts/roc_api.py --fetch all`)",
    )
    need(shutil.which("clang++-22") is not None, "clang++-22 not installed (scripts/setup-rocm.sh)")
    text = roc_api.build_cuda_arity(sorted((w for w in wheels if w), key=lambda p: p.name))
    assert text == roc_api.ARITY_FILE.read_text(encoding="utf-8")
