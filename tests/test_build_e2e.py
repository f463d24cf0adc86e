"""End to end: port fixtures/buildfiles/blas-project (CMake + Makefile, .cu sources, a cuBLAS call),
then build the ported tree for gfx90a and gfx942 with CMake's HIP language and with make, using
clang++-22 and the ROCm 7.2 prefix of scripts/setup-rocm.sh.

What this machine can and cannot do, and why the build is configured as it is:

* CMake 3.25 (Debian 12) looks for ``hip-lang`` under ``<ROCm root>/lib/cmake``; Debian installs
  the configs under ``lib/x86_64-linux-gnu/cmake``. setup-rocm.sh makes ``usr/hip-root`` whose
  ``lib/cmake`` links there, passed as ``CMAKE_HIP_COMPILER_ROCM_ROOT``.
* The ROCm 7.2 libraries come from Debian experimental and need glibc 2.38 (bookworm has 2.36):
  objects and static libraries build; executables link only with ``--allow-shlib-undefined``
  and cannot run here.
* CMake determines a default HIP architecture at ``project()`` from ``rocm_agent_enumerator``
  (a GPU); without one, ``CMAKE_HIP_ARCHITECTURES`` must be given on the command line.
* hipcc is not among the Debian packages used: the Makefile's ``NVCC ?= hipcc`` is overridden
  with the clang++-22 command line hipcc would run (``-x hip`` and the ROCm paths).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, need

PROJECT = FIXTURES / "buildfiles" / "blas-project"
ARCHS = ("gfx90a", "gfx942")
BUNDLE_ID = "hipv4-amdgcn-amd-amdhsa--{}"  # clang's offload-bundle entry for a HIP device


def _bitcode(usr: Path) -> Path:
    found = sorted(usr.glob("lib/llvm-*/lib/clang/*/amdgcn/bitcode"))
    need(bool(found), f"no amdgcn device bitcode under {usr} (run scripts/setup-rocm.sh)")
    return found[-1]


def _device_targets(obj: Path) -> set[str]:
    data = obj.read_bytes()
    return {a for a in ARCHS if BUNDLE_ID.format(a).encode() in data}


@pytest.fixture(scope="module")
def ported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("blas") / "blas-hip"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "porter.cli",
            "port",
            str(PROJECT),
            "-o",
            str(out),
            "--offload-arch",
            ",".join(ARCHS),
            "-q",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def test_cmake_build_of_the_ported_project(ported, tmp_path, rocm72, hip_clang):
    cmake = shutil.which("cmake")
    need(cmake is not None, "cmake not installed (scripts/setup-rocm.sh installs it)")
    root = rocm72 / "hip-root"
    need(
        (root / "lib/cmake/hip-lang/hip-lang-config.cmake").is_file(),
        f"{root}/lib/cmake/hip-lang missing (re-run scripts/setup-rocm.sh)",
    )
    need(
        any(os.path.exists(p) for p in rocm72.glob("lib/*/libhipblas.so.*")),
        "libhipblas runtime missing from the prefix (hipblas's CMake config checks for it)",
    )
    build = tmp_path / "build"
    flags = f"--rocm-path={rocm72} --hip-device-lib-path={_bitcode(rocm72)}"
    # clang's --hip-link adds -L<rocm>/lib -lamdhip64; Debian's library folder is lib/<triplet>
    libdir = next(rocm72.glob("lib/*-linux-gnu"))
    link = f"-L{libdir} -Wl,--allow-shlib-undefined"  # experimental's libraries need glibc 2.38
    cfg = subprocess.run(
        [
            cmake,
            "-S",
            str(ported),
            "-B",
            str(build),
            f"-DCMAKE_HIP_COMPILER={hip_clang}",
            f"-DCMAKE_CXX_COMPILER={hip_clang}",
            f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={root}",
            f"-DCMAKE_PREFIX_PATH={rocm72}",
            f"-DCMAKE_HIP_FLAGS={flags} {link}",
            f"-DCMAKE_HIP_ARCHITECTURES={';'.join(ARCHS)}",
            f"-DCMAKE_EXE_LINKER_FLAGS={link}",
        ],
        capture_output=True,
        text=True,
    )
    assert cfg.returncode == 0, cfg.stdout[-3000:] + cfg.stderr[-3000:]
    bld = subprocess.run([cmake, "--build", str(build), "-j", "2"], capture_output=True, text=True)
    assert bld.returncode == 0, bld.stdout[-4000:] + bld.stderr[-4000:]
    objs = {p.name: p for p in build.rglob("*.o")}
    assert {"scale.cu.o", "gemm.cu.o", "main.cpp.o"} <= set(objs), sorted(objs)
    # the kernel's object holds a device code object per target (gemm.cu only calls hipBLAS)
    assert _device_targets(objs["scale.cu.o"]) == set(ARCHS)
    assert (build / "libblasdemo.a").is_file() and (build / "blasdemo_app").is_file()


def test_make_build_of_the_ported_project(ported, tmp_path, rocm72, hip_clang):
    make = shutil.which("make")
    need(make is not None, "make not installed (scripts/setup-rocm.sh installs it)")
    tree = tmp_path / "tree"
    shutil.copytree(ported, tree)
    compiler = (
        f"{hip_clang} -x hip --rocm-path={rocm72} --hip-device-lib-path={_bitcode(rocm72)} "
        f"-isystem {rocm72}/include"
    )
    proc = subprocess.run(
        [make, "-C", str(tree), "-j", "2", f"NVCC={compiler}"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert (tree / "obj" / "gemm.o").is_file()
    assert _device_targets(tree / "obj" / "scale.o") == set(ARCHS)
    assert (tree / "libblasdemo.a").is_file()


def test_port_verify_of_the_project_compiles_every_unit(tmp_path, rocm72, hip_clang):
    """`porter port --verify` on the same project: every translation unit compiled for both
    targets, in the JSON report's verify object."""
    import json

    out = tmp_path / "blas-hip"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "porter.cli",
            "port",
            str(PROJECT),
            "-o",
            str(out),
            "--offload-arch",
            ",".join(ARCHS),
            "--verify",
            "--rocm-path",
            str(rocm72.parent),
            "--format",
            "json",
            "-q",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    ver = json.loads(proc.stdout)["verify"]
    assert ver["targets"] == list(ARCHS)
    assert sorted(Path(u["path"]).name for u in ver["units"]) == ["gemm.cu", "main.cpp", "scale.cu"]
    assert all(u["targets"] == {a: "compiled" for a in ARCHS} for u in ver["units"]), ver
