"""Shared test fixtures.

Tests that need an external tool (the HIP compiler, the ROCm headers, hipify-perl, pre-commit,
git) skip with a reason when it is missing, unless PORTER_REQUIRE_TOOLCHAIN=1 (set by CI), in
which case a missing tool is a failure.
"""

from __future__ import annotations

import csv
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
REQUIRE = os.environ.get("PORTER_REQUIRE_TOOLCHAIN") == "1"


def need(condition: bool, reason: str) -> None:
    """Skip (locally) or fail (in CI) when a required tool is missing."""
    if condition:
        return
    if REQUIRE:
        pytest.fail(f"PORTER_REQUIRE_TOOLCHAIN=1 but {reason}")
    pytest.skip(reason)


def rocm_prefix(version: str = "7.2") -> Path:
    """The unpacked ROCm prefix made by scripts/setup-rocm.sh (its usr/ folder)."""
    env = "PORTER_ROCM_PREFIX" if version == "7.2" else "PORTER_ROCM64_PREFIX"
    base = Path(os.environ.get(env, f"/opt/porter-rocm/{version}"))
    usr = base / "usr"
    need(
        (usr / "include" / "hip" / "hip_runtime.h").is_file(),
        f"ROCm {version} headers not found under {base} (run scripts/setup-rocm.sh)",
    )
    return usr


@pytest.fixture(scope="session")
def rocm72() -> Path:
    return rocm_prefix("7.2")


@pytest.fixture(scope="session")
def rocm64() -> Path:
    return rocm_prefix("6.4")


@pytest.fixture(scope="session")
def hip_clang() -> str:
    exe = shutil.which("clang++-22")
    need(exe is not None, "clang++-22 not installed (run scripts/setup-rocm.sh)")
    return exe


def edit_table_row(folder: Path, table: str, cuda: str, **changes: str) -> None:
    """Change the last row of mappings table TABLE (in FOLDER) whose cuda name is CUDA: the
    checker tests mutate a copy of the tables and expect the check to see it."""
    path = folder / f"{table}.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        fields = reader.fieldnames
        rows = list(reader)
    hit = [r for r in rows if r["cuda"] == cuda]
    assert hit, cuda
    hit[-1].update(changes)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
