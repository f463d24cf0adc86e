"""scripts/check_mappings.py: the tables agree with the pinned headers and API lists (CI runs it
here), and the checker does find drift.

The checker reads the ROCm 6.4 / 7.2 prefixes of scripts/setup-rocm.sh, the CUDA toolkit headers
and the committed API lists pinned by scripts/inputs.lock; it is run as a program (no generator
is imported).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, edit_table_row, need, rocm_prefix

CHECKER = ROOT / "scripts" / "check_mappings.py"
CUDA = Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))


@pytest.fixture(scope="module")
def inputs():
    rocm_prefix("7.2")
    rocm_prefix("6.4")
    need((CUDA / "cuda_runtime_api.h").is_file(), f"CUDA headers not found in {CUDA}")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(CHECKER), *args], capture_output=True, text=True, timeout=300
    )


def test_tables_have_no_drift(inputs):
    res = _run("--max-drift", "50")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "no drift" in res.stdout
    assert "ROCm 6.2, 6.3, 6.4, 7.0, 7.1, 7.2, 10.0" in res.stdout


@pytest.mark.parametrize(
    "table,cuda,changes,message",
    [
        # a HIP name no checked release declares
        ("runtime", "cudaMalloc", {"hip": "hipMallocNoSuchThing"}, "declared by no checked ROCm"),
        # a name first in 7.1 claimed for every release
        (
            "runtime",
            "cudaOccupancyAvailableDynamicSMemPerBlock",
            {"hip_since": ""},
            "hip_since - but",
        ),
        # a removal no checked release shows
        ("runtime", "cudaMalloc", {"hip_removed": "7.2"}, "hip_removed 7.2 but"),
        # a CUDA name CUDA 13 still declares, marked removed
        ("runtime", "cudaMemcpy", {"status": "removed"}, "status removed but CUDA"),
        # a roc name rocBLAS does not declare
        ("blas", "cublasSgemm", {"roc": "rocblas_sgemm_nonexistent"}, "roc name"),
    ],
)
def test_drift_is_found(inputs, tmp_path, table, cuda, changes, message):
    tables = tmp_path / "mappings"
    shutil.copytree(ROOT / "mappings", tables)
    edit_table_row(tables, table, cuda, **changes)
    res = _run("--tables", str(tables), "--max-drift", "20")
    assert res.returncode == 1, res.stdout + res.stderr
    assert message in res.stdout and cuda in res.stdout, res.stdout


def test_a_changed_api_list_is_drift(inputs, tmp_path, monkeypatch):
    """The committed lists are the ones the lock pins: an edited list fails the check."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import api_sources

    lock = api_sources.Lock.load()
    data = tmp_path / "lock"
    shutil.copy(api_sources.LOCK, data)
    text = data.read_text()
    rel = "scripts/data/api/rocm_bindings.tsv"
    text = text.replace(lock.lists[rel], "0" * 64)
    data.write_text(text)
    problems = api_sources.Lock.load(data).list_problems()
    assert any(rel in p for p in problems), problems
