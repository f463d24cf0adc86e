"""PyTorch extension builds: sources resolved statically, PT909 (an extension's sources hold
what PyTorch's build-time hipify does not port), and `port --port-build-files` (nvcc flags and
CUDA libraries translated, everything else kept byte for byte), on the fixture project
fixtures/buildfiles/torch-ext and its expected output."""

from __future__ import annotations

import filecmp
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, need

from porter.parse.pyext import find_extensions
from porter.parse.python import parse
from porter.rewrite.pyext import port_extension_build

PROJECT = FIXTURES / "buildfiles" / "torch-ext"
EXPECTED = FIXTURES / "buildfiles" / "torch-ext-expected" / "port-build-files"
BUILD_FILES = ("setup.py", "jit.py")


def _porter(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "porter.cli", *args], capture_output=True, text=True, cwd=cwd
    )


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


# --- resolving sources --------------------------------------------------------------------------


def test_sources_resolved_statically(tmp_path):
    for name in ("csrc/a.cpp", "csrc/cuda/b.cu", "csrc/cuda/c.cu", "csrc/cuda/d.cuh"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("\n")
    setup = (
        "import glob, os\n"
        "from pathlib import Path\n"
        "from torch.utils.cpp_extension import CUDAExtension as CE\n"
        "HERE = os.path.dirname(os.path.abspath(__file__))\n"
        "ROOT = Path(__file__).parent\n"
        "srcs = [os.path.join('csrc', 'a.cpp')]\n"
        "srcs += sorted(glob.glob('csrc/cuda/*.cu'))\n"
        "ext = CE('m', sources=srcs + [os.path.join(HERE, 'csrc', 'cuda', 'b.cu'),\n"
        "                          str(ROOT / 'x.cu'), ROOT / 'csrc' / 'a.cpp', helper()])\n"
    )
    (tmp_path / "setup.py").write_text(setup)
    [ext] = find_extensions(parse(setup.encode()), tmp_path)
    assert (ext.call, ext.name, ext.line, ext.col) == ("CUDAExtension", "m", 8, 7)
    assert [(s.path, s.line) for s in ext.sources] == [
        ("csrc/a.cpp", 6),
        ("csrc/cuda/b.cu", 7),
        ("csrc/cuda/c.cu", 7),
        ("csrc/cuda/b.cu", 8),
        ("csrc/a.cpp", 9),
    ]
    # str(...) of a path and an unknown call are not resolved: named, not guessed
    assert ext.unresolved == ["str(ROOT / 'x.cu')", "helper()"]
    # without a folder a glob resolves to nothing (nothing on disk is read)
    [bare] = find_extensions(parse(setup.encode()))
    assert [s.path for s in bare.sources] == ["csrc/a.cpp", "csrc/cuda/b.cu", "csrc/a.cpp"]


def test_only_torch_builders_count():
    text = (
        b"from mylib import load\n"
        b"load('x', ['a.cu'])\n"
        b"import torch.utils.cpp_extension as ce\n"
        b"ce.load_inline('y', cpp_sources='', cuda_sources='__global__ void k() {}')\n"
        b"from torch.utils import cpp_extension\n"
        b"cpp_extension.load('z', sources=['z.cu'])\n"
    )
    found = [
        (e.call, e.name, e.line, [s.path for s in e.sources], e.gpu)
        for e in find_extensions(parse(text))
    ]
    assert found == [("load_inline", "y", 4, [], True), ("load", "z", 6, ["z.cu"], True)]


# --- --port-build-files on small files -----------------------------------------------------------


def test_flag_lists_rewritten_in_place():
    src = (
        b"from torch.utils.cpp_extension import CUDAExtension\n"
        b'ext = CUDAExtension("x", ["k.cu"], extra_compile_args={\n'
        b'    "cxx": ["-O3", "--use_fast_math"],   # host flags: not nvcc\'s\n'
        b'    "nvcc": [\n'
        b'        "--expt-relaxed-constexpr",\n'
        b'        "-O3",\n'
        b"        '-gencode', 'arch=compute_80,code=sm_80',\n"
        b'        "-maxrregcount=64",\n'
        b"    ],\n"
        b'}, libraries=["cublas", "cudadevrt", "m"])  # trailing comment kept\n'
    )
    res = port_extension_build("setup.py", src, ("gfx90a", "gfx942"))
    assert res is not None
    assert res.new_data == (
        b"from torch.utils.cpp_extension import CUDAExtension\n"
        b'ext = CUDAExtension("x", ["k.cu"], extra_compile_args={\n'
        b'    "cxx": ["-O3", "--use_fast_math"],   # host flags: not nvcc\'s\n'
        b'    "nvcc": [\n'
        b'        "-O3",\n'
        b"        '--offload-arch=gfx90a', '--offload-arch=gfx942',\n"
        b"    ],\n"
        b'}, libraries=["hipblas", "cudadevrt", "m"])  # trailing comment kept\n'
    )
    found = sorted((f.code, f.line, f.col) for f in res.findings)
    assert found == [("PT905", 10, 25), ("PT906", 8, 9)]  # cudadevrt; -maxrregcount
    again = port_extension_build("setup.py", res.new_data, ("gfx90a", "gfx942"))
    assert again is not None and again.new_data == res.new_data  # idempotent


def test_lists_that_are_not_literal_are_left_alone():
    src = (
        b"from torch.utils.cpp_extension import load\n"
        b"FLAGS = ['-O3'] + extra()\n"
        b"m = load('m', ['m.cu'], extra_cuda_cflags=FLAGS + ['--use_fast_math'],\n"
        b"         extra_ldflags=[f'-l{lib}'])\n"
    )
    res = port_extension_build("jit.py", src)
    assert res is not None and res.new_data == src and res.findings == []
    assert port_extension_build("plain.py", b"import os\nprint(os.sep)\n") is None
    assert port_extension_build("bad.py", b"def (:\n") is None


# --- the fixture project ---------------------------------------------------------------------


def test_check_connects_the_extension_to_its_sources():
    proc = _porter("check", str(PROJECT), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    rel = os.path.relpath(PROJECT)
    by_code: dict[str, list] = {}
    for f in doc["findings"]:
        by_code.setdefault(f["code"], []).append(f)
    [pt909] = by_code["PT909"]
    # at the line that names the glob of the *_kernel.cu sources
    assert (pt909["path"], pt909["line"], pt909["column"]) == (f"{rel}/setup.py", 12, 19)
    assert pt909["severity"] == "warning" and pt909["symbol"] == "csrc/lane_kernel.cu"
    assert (
        f"`{rel}/csrc/lane_kernel.cu`, compiled by CUDAExtension `tinyops._C`, has inline "
        f"PTX (PT202; first at {rel}/csrc/lane_kernel.cu:7)" in pt909["message"]
    )
    # the clean kernel, the C++ binding and the JIT build's sources raise nothing
    assert "scale_kernel" not in pt909["message"]
    pt908 = sorted((f["path"].rsplit("/", 1)[1], f["line"]) for f in by_code["PT908"])
    assert pt908 == [("jit.py", 10), ("setup.py", 26)]
    # --ignore PT909 drops it, and the sources' findings stay
    proc = _porter("check", str(PROJECT), "--format", "json", "--ignore", "PT909")
    codes = {f["code"] for f in json.loads(proc.stdout)["findings"]}
    assert "PT909" not in codes and "PT202" in codes


def test_port_leaves_the_build_files_alone_by_default(tmp_path):
    out = tmp_path / "out"
    proc = _porter("port", str(PROJECT), "-o", str(out))
    assert proc.returncode == 1, proc.stderr  # the inline PTX is an error
    assert _files(out) == _files(PROJECT)  # porter keeps every file name
    for name in BUILD_FILES:
        assert (out / name).read_bytes() == (PROJECT / name).read_bytes(), name
    assert "[PT909]" in proc.stdout and "[PT906]" not in proc.stdout


def test_port_build_files_gives_the_expected_output(tmp_path):
    out = tmp_path / "out"
    proc = _porter("port", str(PROJECT), "-o", str(out), "--port-build-files")
    assert proc.returncode == 1, proc.stderr
    assert _files(out) == _files(PROJECT)
    for name in BUILD_FILES:
        assert (out / name).read_text() == (EXPECTED / name).read_text(), name
    # the sources are ported the same way with or without the flag
    plain = tmp_path / "plain"
    _porter("port", str(PROJECT), "-o", str(plain))
    for name in ("csrc/ops.cpp", "csrc/scale_kernel.cu", "csrc/lane_kernel.cu"):
        assert filecmp.cmp(out / name, plain / name, shallow=False), name
    # porting the ported tree again changes no build file
    again = tmp_path / "again"
    _porter("port", str(out), "-o", str(again), "--port-build-files")
    for name in BUILD_FILES:
        assert (again / name).read_bytes() == (out / name).read_bytes(), name


def test_port_build_files_in_place_and_diff(tmp_path):
    proj = tmp_path / "proj"
    shutil.copytree(PROJECT, proj)
    proc = _porter("port", str(proj), "--diff", "--port-build-files")
    assert '-    "--use_fast_math",' in proc.stdout and '+    "-ffast-math",' in proc.stdout
    proc = _porter("port", str(proj), "--in-place", "--port-build-files")
    assert proc.returncode == 1, proc.stderr
    assert (proj / "setup.py").read_text() == (EXPECTED / "setup.py").read_text()
    # the PT909 line is that of the original file, read from the backup
    assert (
        f"{os.path.relpath(proj)}/setup.py:12:19: warning:" in proc.stdout
        or f"{proj}/setup.py:12:19: warning:" in proc.stdout
    ), proc.stdout


def test_ported_setup_evaluates_with_torch(tmp_path):
    """The ported setup.py builds its extension object with PyTorch's own CUDAExtension (not
    compiled: there is no ROCm PyTorch here). The CPU wheel sets no CUDA_HOME (it has no CUDA);
    the probe points it at an empty folder so that CUDAExtension's include and library look-ups
    need no CUDA toolkit."""
    need(
        importlib.util.find_spec("torch") is not None,
        "torch is not installed (pip install torch==2.13.0, the CPU wheel)",
    )
    out = tmp_path / "out"
    _porter("port", str(PROJECT), "-o", str(out), "--port-build-files")
    cuda_home = tmp_path / "cuda"
    (cuda_home / "include").mkdir(parents=True)
    probe = (
        "import json, runpy, setuptools, sys\n"
        "import torch.utils.cpp_extension as ce\n"
        "ce.CUDA_HOME = sys.argv[1]\n"
        "seen = {}\n"
        "setuptools.setup = lambda **kw: seen.update(kw)\n"
        "runpy.run_path('setup.py', run_name='__main__')\n"
        "[ext] = seen['ext_modules']\n"
        "print(json.dumps({'type': type(ext).__name__, 'name': ext.name,\n"
        "                  'sources': ext.sources, 'args': ext.extra_compile_args,\n"
        "                  'libraries': ext.libraries}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(cuda_home)],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    ext = json.loads(proc.stdout.strip().splitlines()[-1])
    assert ext["type"] == "Extension" and ext["name"] == "tinyops._C"
    assert ext["sources"] == ["csrc/ops.cpp", "csrc/lane_kernel.cu", "csrc/scale_kernel.cu"]
    assert ext["args"]["nvcc"] == [
        "-O3",
        "-ffast-math",
        "--offload-arch=gfx942",
        "-Rpass-analysis=kernel-resource-usage",
        "-gline-tables-only",
    ]
    assert "hipblas" in ext["libraries"] and "cublas" not in ext["libraries"]
    compile((out / "jit.py").read_text(), "jit.py", "exec")


@pytest.mark.parametrize("name", BUILD_FILES)
def test_expected_output_parses(name):
    compile((EXPECTED / name).read_text(), name, "exec")
