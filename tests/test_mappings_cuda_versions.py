"""CUDA 12 call forms of functions CUDA 13 gave another parameter (max_args rows), and the C++
overloads of cuda_runtime.h (args:N=NAME rows), against the CUDA 13 and ROCm 7.2 headers and
through the engine."""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import ROOT, need

from porter.engine import EngineOptions, process_one
from porter.mappings.index import load_index
from porter.rewrite.cuda import PortOptions
from porter.rules.base import RuleOptions

sys.path.insert(0, str(ROOT / "scripts"))
from api_sources import CUDA_INCLUDE, cuda_header_files, rocm_header_files  # noqa: E402
from cuda_names import scan_headers  # noqa: E402

INDEX = load_index()
MAX_ARGS_ROWS = sorted(
    (
        r
        for rows in INDEX.by_name.values()
        for r in rows
        if re.fullmatch(r"max_args:\d+", r.transform) and "CUDA 13" in r.notes
    ),
    key=lambda r: r.cuda,
)


@lru_cache(maxsize=1)
def _cuda():
    need((CUDA_INCLUDE / "cuda.h").is_file(), f"CUDA headers not found in {CUDA_INCLUDE}")
    return scan_headers(cuda_header_files(), drop_internal=True)


@lru_cache(maxsize=1)
def _hip(usr: Path):
    return scan_headers(p for p in rocm_header_files(usr) if "/include/hip/" in p.as_posix())


def test_the_cuda13_graph_apis_have_cuda12_rows():
    names = {r.cuda for r in MAX_ARGS_ROWS}
    for n in (
        "cudaGraphAddDependencies",
        "cudaGraphRemoveDependencies",
        "cudaGraphGetEdges",
        "cudaGraphNodeGetDependencies",
        "cudaGraphNodeGetDependentNodes",
        "cudaStreamUpdateCaptureDependencies",
        "cudaGraphAddNode",
        "cuGraphAddDependencies",
        "cuGraphAddNode",
        "cuStreamUpdateCaptureDependencies",
        "cuCtxCreate",
    ):
        assert n in names, n


@pytest.mark.parametrize("row", MAX_ARGS_ROWS, ids=lambda r: r.cuda)
def test_max_args_rows_match_the_headers(row, rocm72):
    """CUDA 13 declares more than N parameters (its form is reported); the HIP function takes N
    (some of them may have defaults)."""
    n = int(row.transform.split(":")[1])
    cuda = _cuda().functions.get(row.cuda)
    hip = _hip(rocm72).functions.get(row.hip)
    assert cuda and min(cuda) > n, (row.cuda, cuda)
    assert hip and n <= max(hip), (row.hip, hip)


def _port(text: str):
    opts = EngineOptions(port=PortOptions(), rules=RuleOptions(), run_rules=False)
    return process_one("forms.cu", text.encode(), opts)


@pytest.mark.parametrize("row", MAX_ARGS_ROWS, ids=lambda r: r.cuda)
def test_cuda12_form_maps_and_cuda13_form_is_reported(row):
    n = int(row.transform.split(":")[1])
    short = ", ".join(f"a{i}" for i in range(n))
    long = ", ".join(f"a{i}" for i in range(n + 1))
    res = _port(f"void f() {{ {row.cuda}({short}); }}\nvoid g() {{ {row.cuda}({long}); }}\n")
    out = res.new_data.decode().splitlines()
    assert f"{row.hip}({short})" in out[-2], out
    assert f"{row.cuda}({long})" in out[-1], out
    assert [f.line for f in res.findings if f.code == "PT002" and f.name == row.cuda] == [2]


def test_cxx_overload_event_create_with_flags(rocm72):
    hip = _hip(rocm72).functions
    assert 2 in hip["hipEventCreateWithFlags"] and 1 in hip["hipEventCreate"]
    text = _port("void f(cudaEvent_t* e) { cudaEventCreate(e, 0); cudaEventCreate(e); }\n")
    out = text.new_data.decode()
    assert "hipEventCreateWithFlags(e, 0)" in out and "hipEventCreate(e)" in out
