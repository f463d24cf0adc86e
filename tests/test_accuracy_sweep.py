"""Faults the accuracy sweep over real CUDA code porter had not seen found (benchmarks/corpus.py's
packages outside the default run: torch-cluster, torch-sparse, mamba-ssm, gsplat, warp-lang), each
tested as a class."""

from __future__ import annotations

import pytest

from porter.engine import EngineOptions, process_one
from porter.rewrite.cuda import PortOptions

DRIVER_2D_FILLS = b"""#include <cuda.h>
CUresult f(CUdeviceptr d, size_t pitch, size_t w, size_t h, CUstream s) {
    CUresult r = cuMemsetD2D8(d, pitch, 1, w, h);
    return r == CUDA_SUCCESS ? cuMemsetD2D8_v2(d, pitch, 2, w, h) : r;
}
"""


@pytest.mark.parametrize(
    ("rocm", "want"),
    [((7, 2), "hipMemsetD2D8"), ((7, 1), "hipMemset2D"), ((6, 4), "hipMemset2D")],
)
def test_driver_2d_fill_takes_the_driver_counterpart_where_rocm_has_it(rocm, want):
    """cuMemsetD2D8 (the 8-bit member of the cuMemsetD2D{8,16,32} family) becomes ROCm 7.2's
    hipMemsetD2D8 like its siblings, and the byte-wise hipMemset2D only before 7.2."""
    opts = EngineOptions(port=PortOptions(rocm_version=rocm))
    out = process_one("t.cpp", DRIVER_2D_FILLS, opts).new_data.decode()
    assert out.count(f"{want}(d, pitch,") == 2, out
    assert "cuMemsetD2D8" not in out
