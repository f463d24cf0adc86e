"""Python files on the command line: mixed trees, single files, bad input, CUDA C++ in strings.

These run porter as a user does (a subprocess) on files written here; no triton needed."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from porter.engine import EngineOptions, process_one
from porter.rewrite.cuda import PortOptions
from porter.rules.base import RuleOptions, parse_archs

CU = b"""#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
int main() { float* d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); cudaFree(d); return 0; }
"""
TRITON = b"""import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice


@triton.jit
def act(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, libdevice.tanh(x), mask=offs < n)
"""
PLAIN_PY = b"def add(a, b):\n    return a + b  # nothing about GPUs here\n"
CUPY = b'''import cupy as cp

SRC = r"""
#include <cuda_runtime.h>
extern "C" __global__ void red(float* x) {
    float v = x[threadIdx.x];
    v += __shfl_down_sync(0xffffffff, v, 16);
    x[threadIdx.x] = v;
}
"""
k = cp.RawKernel(SRC, "red")
e = cp.ElementwiseKernel("float32 x", "float32 y",
                         "y = __expf(x); cudaDeviceSynchronize();",
                         "ex")
'''


def run_cli(*args: str, cwd: Path | None = None):
    proc = subprocess.run([sys.executable, "-m", "porter.cli", *args], capture_output=True, cwd=cwd)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def mixed_tree(root: Path) -> Path:
    (root / "csrc").mkdir(parents=True)
    (root / "csrc" / "k.cu").write_bytes(CU)
    (root / "kernels").mkdir()
    (root / "kernels" / "act.py").write_bytes(TRITON)
    (root / "kernels" / "util.py").write_bytes(PLAIN_PY)
    (root / "nb.ipynb").write_text('{"cells": []}')
    return root


def test_mixed_tree_port_one_run(tmp_path):
    src = mixed_tree(tmp_path / "in")
    out = tmp_path / "out"
    rc, stdout, stderr = run_cli("port", str(src), "-o", str(out), "--format", "json")
    assert rc in (0, 1), stderr
    report = json.loads(stdout)
    by_path = (
        {f["path"]: f for f in report["files"]}
        if "files" in report and isinstance(report["files"], list)
        else None
    )
    ported = (out / "kernels" / "act.py").read_bytes()
    assert b"from triton.language.extra import libdevice" in ported
    assert b"hipMalloc" in (out / "csrc" / "k.cu").read_bytes()
    # a .py file without GPU code is copied byte for byte, not ported
    assert (out / "kernels" / "util.py").read_bytes() == PLAIN_PY
    assert not (out / "nb.ipynb").exists()
    text = json.dumps(report)
    assert "PT663" in text
    if by_path is not None:
        assert by_path.get("kernels/util.py", {}).get("status") != "ported"


def test_check_counts_only_gpu_python(tmp_path):
    src = mixed_tree(tmp_path / "in")
    rc, stdout, _ = run_cli("check", str(src))
    assert rc == 1  # PT663 is an error
    assert "act.py:3:1: error:" in stdout and "[PT663]" in stdout
    assert "2 files checked" in stdout  # k.cu and act.py, not util.py
    assert "nb.ipynb: skipped: Jupyter notebook" in stdout


def test_single_file_stdout_diff_out_inplace(tmp_path):
    f = tmp_path / "act.py"
    f.write_bytes(TRITON)
    rc, stdout, stderr = run_cli("port", str(f))
    assert "from triton.language.extra import libdevice" in stdout
    assert stdout.encode() != TRITON and "[PT663]" not in stdout
    rc, stdout, _ = run_cli("port", str(f), "--diff")
    assert "-from triton.language.extra.cuda import libdevice" in stdout
    assert "+from triton.language.extra import libdevice" in stdout
    out = tmp_path / "o.py"
    run_cli("port", str(f), "-o", str(out))
    assert b"extra import libdevice" in out.read_bytes()
    rc, _, stderr = run_cli("port", str(f), "--in-place")
    assert b"extra import libdevice" in f.read_bytes()
    assert list((tmp_path / ".porter-backup").rglob("act.py"))[0].read_bytes() == TRITON
    # idempotent: porting the ported file changes nothing
    rc, stdout, _ = run_cli("port", str(f), "--diff")
    assert stdout == ""


def test_syntax_error_copied_and_reported(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    py2 = b"import triton\nprint 'hello'\n"
    (src / "old.py").write_bytes(py2)
    half = b"import triton\n@triton.jit\ndef k(x:\n"
    (src / "half.py").write_bytes(half)
    out = tmp_path / "out"
    rc, stdout, stderr = run_cli("port", str(src), "-o", str(out))
    assert "Traceback" not in stderr
    assert (out / "old.py").read_bytes() == py2
    assert (out / "half.py").read_bytes() == half
    rc, stdout, stderr = run_cli("check", str(src))
    assert "old.py:2:" in stdout and "[PT681]" in stdout
    assert "half.py:3:" in stdout
    assert "Traceback" not in stderr


def test_pep263_encoding_honoured(tmp_path):
    text = ("# -*- coding: latin-1 -*-\n# auteur: José\n" + TRITON.decode()).encode("latin-1")
    f = tmp_path / "enc.py"
    f.write_bytes(text)
    rc, stdout, stderr = run_cli("port", str(f), "-o", str(tmp_path / "out.py"))
    new = (tmp_path / "out.py").read_bytes()
    assert "José".encode("latin-1") in new  # still latin-1, not re-encoded
    assert b"from triton.language.extra import libdevice" in new
    rc, stdout, _ = run_cli("check", str(f))
    assert "enc.py:5:1: error:" in stdout  # line numbers of the file itself


def test_notebook_single_file(tmp_path):
    f = tmp_path / "nb.ipynb"
    f.write_text("{}")
    rc, stdout, stderr = run_cli("check", str(f))
    assert "skipped: Jupyter notebook" in stdout
    assert "Traceback" not in stderr


def _opts(rewrite: bool) -> EngineOptions:
    return EngineOptions(
        port=PortOptions(),
        rules=RuleOptions(parse_archs("gfx942")),
        apply_fixes=rewrite,
        rewrite=rewrite,
    )


def test_cupy_strings_rewritten_in_place_and_mapped():
    res = process_one("k.py", CUPY, _opts(rewrite=True), "python")
    new = res.new_data.decode()
    ast.parse(new)
    lines = CUPY.decode().splitlines()
    # the C++ rule inside the raw string points at the .py line of the shuffle
    pt104 = [f for f in res.findings if f.code == "PT104"]
    assert pt104, [f.render() for f in res.findings]
    assert "__shfl_down_sync" in lines[pt104[0].line - 1]
    # rewritten in place: hip names in the literal, everything else byte-identical
    assert "hipDeviceSynchronize" in new and "cudaDeviceSynchronize" not in new
    assert "#include <hip/hip_runtime.h>" in new and "#include <cuda_runtime.h>" not in new
    assert new.count("hip_runtime.h") == 1  # no include added to a string
    # (PT104's safe fix of the 32-bit mask applies inside the string too)
    assert (
        new.replace("hipDeviceSynchronize", "cudaDeviceSynchronize")
        .replace("hip/hip_runtime.h", "cuda_runtime.h")
        .replace("__activemask()", "0xffffffff")
        == CUPY.decode()
    )
    # check mode: same findings, nothing rewritten
    chk = process_one("k.py", CUPY, _opts(rewrite=False), "python")
    assert chk.new_data == CUPY
    assert [f.code for f in chk.findings if f.code == "PT104"] == ["PT104"]


def test_load_inline_escaped_and_concatenated_strings():
    src = (
        b"from torch.utils.cpp_extension import load_inline\n"
        b'cuda = ("__global__ void k(float* x) {\\n"\n'
        b'        "  cudaDeviceSynchronize();\\n" + "}\\n")\n'
        b'mod = load_inline("m", cpp_sources="", cuda_sources=[cuda], functions=["k"])\n'
    )
    res = process_one("ext.py", src, _opts(rewrite=True), "python")
    new = res.new_data
    assert b'"  hipDeviceSynchronize();\\n"' in new
    assert new.replace(b"hipDeviceSynchronize", b"cudaDeviceSynchronize") == src
    assert not res.errors


def test_plain_python_not_parsed_or_counted():
    res = process_one("u.py", PLAIN_PY, _opts(rewrite=True), "python")
    assert res.status == "copied" and res.new_data == PLAIN_PY and not res.findings


def test_mentions_without_import_not_counted():
    src = b"# we used to use triton here\nx = 1\n"
    res = process_one("u.py", src, _opts(rewrite=True), "python")
    assert res.status == "copied" and not res.findings
