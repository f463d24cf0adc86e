"""Porting fixtures: fixtures/port/<variant>/input is ported with the options in args and must
equal expected/ byte for byte; porting expected/ again changes nothing (Black's stability check);
and the ported sources compile for AMD targets with the real HIP compiler."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from conftest import FIXTURES, rocm_prefix

from porter.cli import main

VARIANTS = sorted(p for p in (FIXTURES / "port").iterdir() if (p / "input").is_dir())
# Fixtures that must not compile, on purpose.
NOT_COMPILABLE = {
    "syntax_error.cu",
    # libs/: keeps cudnnSetTensor4dDescriptor (no MIOpen call with the same signature) so that
    # the PT002 finding shows; MIOpen has no such name, so the file cannot compile.
    "cudnn_descriptors.cpp",
}


def _args(variant: Path) -> list[str]:
    f = variant / "args"
    return shlex.split(f.read_text()) if f.exists() else []


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda p: p.name)
def test_port_matches_expected(variant: Path, tmp_path: Path):
    out = tmp_path / "out"
    main(["port", str(variant / "input"), "-o", str(out), "-q", "-j", "1", *_args(variant)])
    got, want = _tree(out), _tree(variant / "expected")
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name].decode("utf-8", "replace") == want[name].decode("utf-8", "replace"), name
        assert got[name] == want[name], name


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda p: p.name)
def test_port_is_idempotent(variant: Path, tmp_path: Path):
    out = tmp_path / "again"
    main(["port", str(variant / "expected"), "-o", str(out), "-q", "-j", "1", *_args(variant)])
    assert _tree(out) == _tree(variant / "expected")


def _compile_units(variant: Path):
    for p in sorted((variant / "expected").rglob("*")):
        if p.suffix in (".cu", ".cpp", ".hip") and p.name not in NOT_COMPILABLE:
            yield p


@pytest.mark.parametrize(
    "unit",
    [u for v in VARIANTS for u in _compile_units(v)],
    ids=lambda p: f"{p.parent.parent.name}/{p.name}",
)
def test_ported_fixture_compiles(unit: Path, rocm72, hip_clang):
    from porter import verify

    variant = unit.parent
    while variant.name != "expected":
        variant = variant.parent
    variant = variant.parent
    args = _args(variant)
    archs = ["gfx942", "gfx90a"]
    rocm = None
    if "--rocm-version" in args and args[args.index("--rocm-version") + 1].startswith("6."):
        rocm = rocm_prefix("6.4").parent
    res = verify.compile_file(unit, archs, rocm=rocm, include_dirs=[str(unit.parent)])
    assert res.ok, res.stderr_tail


def test_syntax_error_fixture_reports_region():
    from porter.engine import EngineOptions, process_one

    data = (FIXTURES / "port" / "default" / "input" / "syntax_error.cu").read_bytes()
    res = process_one("syntax_error.cu", data, EngineOptions())
    assert any(f.code == "PT003" for f in res.findings)
    # the certain names outside the error region are still rewritten
    assert b"hipMemset(d, 0, 16)" in res.new_data and b"hipDeviceSynchronize()" in res.new_data
