"""--roc end to end: a project using cuBLAS, cuSOLVER, cuRAND and cuSPARSE
(fixtures/port/libs-roc-all) is ported with --roc, every library moves to its ROCm library, and
the output compiles with clang++-22 for gfx942 against the ROCm 7.2 headers."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES

from porter import verify
from porter.cli import main

VARIANT = FIXTURES / "port" / "libs-roc-all"
LIBRARY_CALLS = (
    "rocblas_sgemm(",
    "rocsolver_spotrf_batched(",
    "rocrand_create_generator(",
    "rocsparse_snnz(",
)
HIP_LIBRARY_PREFIXES = (
    "hipblas",
    "hipsolver",
    "hiprand",
    "hipsparse",
    "cublas",
    "cusolver",
    "curand",
    "cusparse",
)


def test_roc_port_of_four_libraries_compiles(tmp_path: Path, rocm72, hip_clang):
    out = tmp_path / "out"
    rc = main(["port", str(VARIANT / "input"), "-o", str(out), "-q", "-j", "1", "--roc"])
    assert rc == 0
    text = (out / "dense_pipeline.cu").read_text()
    for call in LIBRARY_CALLS:
        assert call in text, call
    assert not [p for p in HIP_LIBRARY_PREFIXES if p in text]
    res = verify.compile_file(out / "dense_pipeline.cu", ["gfx942"], rocm=rocm72.parent)
    assert res.ok, res.stderr_tail


def test_without_roc_the_same_project_stays_on_the_hip_libraries(tmp_path: Path):
    out = tmp_path / "out"
    main(["port", str(VARIANT / "input"), "-o", str(out), "-q", "-j", "1"])
    text = (out / "dense_pipeline.cu").read_text()
    assert "hipblasSgemm(" in text and "hipsolverDnSpotrfBatched(" in text
    assert "rocblas_" not in text and "rocsolver_" not in text
