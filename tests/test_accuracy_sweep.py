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


def _tag_rows():
    from porter.mappings.index import load_index
    from porter.rewrite.names import maps_tag_to_tag

    rows = [
        r
        for rs in load_index().by_name.values()
        for r in rs
        if maps_tag_to_tag(r) and r.supported and not r.hip_since and r.cuda.endswith("_st")
    ]
    return sorted({r.cuda: r for r in rows}.values())


def test_a_cuda_tag_keeps_its_keyword_when_hip_has_a_tag(rocm72, hip_clang, tmp_path):
    """`typedef struct CUstream_st* cudaStream_t;` (cupy's and warp's no-CUDA stubs): the HIP
    name of a tag row is a tag too, so the keyword stays (`struct ihipStream_t*`), which also
    declares it where no HIP header is included; a typedef HIP name (`hipDeviceProp_t`) drops
    it. Every tag row, written elaborated, is ported and compiled, with and without the HIP
    headers."""
    from porter import verify

    rows = _tag_rows()
    assert len(rows) > 30
    lines = []
    for i, r in enumerate(rows):
        lines.append(f"void use_{i}(struct {r.cuda}* p);")
    body = "\n".join(lines) + "\nvoid use_prop(struct cudaDeviceProp* p);\n"
    for name, head in (
        ("with.cpp", "#include <cuda.h>\n#include <cuda_runtime.h>\n"),
        ("bare.cpp", ""),
    ):
        out = process_one(name, (head + body).encode(), EngineOptions()).new_data.decode()
        assert "struct ihipStream_t* p" in out and "hipDeviceProp_t* p" in out, out[:400]
        if not head:
            out = out.replace("void use_prop(hipDeviceProp_t* p);\n", "")
        unit = tmp_path / name
        unit.write_text(out)
        res = verify.compile_file(unit, ["gfx942"], include_dirs=[str(tmp_path)])
        assert res.ok, res.stderr_tail


STUB_HEADER = b"""#pragma once
#if WITH_GPU
#include <cuda.h>
#include <cuda_runtime_api.h>
CUresult device_of(CUdevice* dev, CUcontext ctx);
cudaError_t sync_on(cudaStream_t s);
#else
typedef int CUdevice;
typedef struct CUctx_st* CUcontext;
typedef struct CUstream_st* cudaStream_t;
#endif
int count_devices(CUdevice* first);
"""


def test_a_stand_in_beside_a_cuda_include_is_ported_with_its_uses(rocm72, hip_clang, tmp_path):
    """warp's `#if WP_ENABLE_CUDA #include <cuda.h> ... #else typedef int CUdevice; #endif`: the
    stand-ins serve the build without CUDA; on AMD the other branch means CUDA's names, so they
    are renamed with their uses. The port compiles for gfx942 with the GPU branch and as plain
    C++ (no HIP headers) without it; a vendor switch's own definitions stay the project's."""
    from porter import verify

    out = process_one("stub.h", STUB_HEADER, EngineOptions()).new_data.decode()
    assert "typedef int hipDevice_t;" in out and "hipError_t device_of(hipDevice_t* dev" in out
    assert "typedef struct ihipStream_t* hipStream_t;" in out, out
    (tmp_path / "stub.h").write_text(out)
    unit = tmp_path / "use.cpp"
    unit.write_text('#include "stub.h"\nint count_devices(hipDevice_t* first) { return 0; }\n')
    res = verify.compile_file(
        unit, ["gfx942"], extra_flags=["-DWITH_GPU=1"], include_dirs=[str(tmp_path)]
    )
    assert res.ok, res.stderr_tail
    import subprocess

    host = subprocess.run(
        [hip_clang, "-x", "c++", "-fsyntax-only", "-DWITH_GPU=0", str(unit)],
        capture_output=True,
        text=True,
    )
    assert host.returncode == 0, host.stderr
    vendor = b"""#ifdef __HIP_PLATFORM_AMD__
#include <hip/hip_runtime.h>
typedef hipStream_t cudaStream_t;
#else
#include <cuda_runtime.h>
#endif
void f(cudaStream_t s);
"""
    assert process_one("v.h", vendor, EngineOptions()).new_data == vendor


def test_a_namespace_the_project_declares_in_cuda_is_its_own(tmp_path, capsys):
    """mamba-ssm's ROCm branch declares `namespace cuda { namespace std = ::std; }`: its
    `::cuda::std::forward` is the project's own name (no PT002), in every file of the project;
    a project without that alias still gets the finding."""
    import json

    from porter.cli import main

    hdr = (
        b"#pragma once\n#ifndef USE_ROCM\n#include <cuda/std/type_traits>\n#else\n"
        b"namespace cuda {\n    namespace std = ::std;\n}\n#endif\n"
    )
    use = (
        b'#include "compat.cuh"\n#include <utility>\n'
        b"template <class T> __device__ T take(T&& v) { return ::cuda::std::forward<T>(v); }\n"
    )
    for with_alias in (True, False):
        root = tmp_path / ("alias" if with_alias else "plain")
        root.mkdir()
        (root / "compat.cuh").write_bytes(hdr if with_alias else b"#pragma once\n")
        (root / "use.cu").write_bytes(use)
        main(["check", str(root), "--no-cache", "--format", "json", "--exit-zero", "-q"])
        found = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
        assert ("PT002" in found) is not with_alias, found


def test_tag_rows_name_hip_tags(rocm72):
    """The rows whose note says their CUDA tag maps to a HIP tag (`maps_tag_to_tag`, which keeps
    `struct` in `struct CUstream_st*`) name a struct, union or enum tag in ROCm 7.2's HIP
    headers (the others drop the keyword: their HIP name is a typedef, which may also be a
    tag)."""
    import re

    from porter.mappings.index import load_index
    from porter.rewrite.names import maps_tag_to_tag

    text = "\n".join(
        p.read_text(errors="replace")
        for p in (rocm72 / "include").rglob("*.h*")
        if p.is_file() and ("hip" in p.parts[-2] or "hip" in p.name)
    )
    tags = set(re.findall(r"\b(?:struct|union|enum)\s+(?:class\s+)?([A-Za-z_]\w*)", text))
    wrong = []
    for rows in load_index().by_name.values():
        for r in rows:
            if not r.hip or (r.hip_since and r.since > (7, 2)):
                continue
            if maps_tag_to_tag(r) and r.hip not in tags:
                wrong.append((r.cuda, r.hip))
    assert not wrong, wrong[:10]
    assert sum(maps_tag_to_tag(r) for rs in load_index().by_name.values() for r in rs) > 90
