"""scripts/check_mappings.py reports roc drift: a roc* name its own library does not declare (even
when another ROCm library does), and a roc* or MIOpen function whose parameter count is not the
CUDA function's."""

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
    need(shutil.which("clang++-22") is not None, "clang++-22 not installed")


EDITS = [
    # declared by rocSPARSE, not by rocBLAS: the whole-prefix name check cannot see it
    (
        "blas",
        "cublasSgemm_v2",
        {"roc": "rocsparse_scsrmv"},
        "roc name rocsparse_scsrmv not declared by the ROCm 6.4 rocblas/rocblas.h headers",
    ),
    # a rocBLAS function of another shape (12 parameters, cublasSgemm takes 14)
    ("blas", "cublasSgemv_v2", {"roc": "rocblas_sgemm"}, "roc name rocblas_sgemm takes [14]"),
    # a MIOpen function of another shape
    ("dnn", "cudnnActivationForward", {"hip": "miopenCreate"}, "MIOpen name miopenCreate takes"),
    # a workspace query's roc name must be a success status (the value its call becomes)
    (
        "solver",
        "cusolverDnSpotrf_bufferSize",
        {"roc": "rocsolver_spotrf"},
        "roc name rocsolver_spotrf is no success status of solver",
    ),
    # a roc:drop_args transform that leaves a parameter too many
    (
        "solver",
        "cusolverDnSpotrf",
        {"transform": "roc:drop_args:5"},
        "roc name rocsolver_spotrf takes [6]",
    ),
    # a name the headers do not (or no longer) declare
    (
        "solver",
        "cusolverDnSpotrfBatched",
        {"roc": "rocsolver_spotrf_batched_gone"},
        "not declared by the ROCm 7.2 rocsolver/rocsolver.h headers",
    ),
]


def test_roc_drift_is_found(inputs, tmp_path):
    """One checker run over a copy of the tables with every edit (the checker takes seconds)."""
    tables = tmp_path / "mappings"
    shutil.copytree(ROOT / "mappings", tables)
    for table, cuda, changes, _ in EDITS:
        edit_table_row(tables, table, cuda, **changes)
    res = subprocess.run(
        [sys.executable, str(CHECKER), "--tables", str(tables), "--max-drift", "50"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 1, res.stdout + res.stderr
    for _, cuda, _, message in EDITS:
        line = [x for x in res.stdout.splitlines() if f" {cuda}: " in x and message in x]
        assert line, f"{cuda}: {message!r} not reported:\n{res.stdout}"
