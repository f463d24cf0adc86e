"""Porting build files (porter/rewrite/build.py): CMake and Makefiles, token by token.

The table checks read the CMake package configs of the ROCm prefix made by
scripts/setup-rocm.sh and CMake's own FindCUDAToolkit module; they skip locally and fail in CI
when those are missing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, need

from porter.findings import Severity
from porter.parse import cmake as C
from porter.parse import make as M
from porter.rewrite.build import BuildOptions, port_build, table
from porter.rewrite.edits import apply

ARCHS = ("gfx90a", "gfx942")
OPTS = BuildOptions(archs=ARCHS)
PROJECT = FIXTURES / "buildfiles" / "blas-project"


def port(name: str, text: str, opts: BuildOptions = OPTS) -> tuple[str, list]:
    res = port_build(name, text.encode(), opts)
    return apply(text.encode(), res.edits).decode(), res.findings


def codes_at(findings, line: int) -> set[str]:
    return {f.code for f in findings if f.line == line}


# -- lexers -------------------------------------------------------------------------------------


def test_cmake_lexer_arguments_and_comments():
    src = b'set(X "a;b" [=[raw ) "]=] c\\ d) # trailing (\n#[[ block\n comment ]] if((A) AND B)\n'
    f = C.lex(src)
    assert [c.name for c in f.commands] == ["set", "if"]
    assert f.commands[0].values(src) == ["X", "a;b", '[=[raw ) "]=]', "c\\ d"]
    assert [a.kind for a in f.commands[0].args] == ["unquoted", "quoted", "bracket", "unquoted"]
    assert len(f.comments) == 2
    assert f.commands[1].values(src) == ["A", "AND", "B"]


def test_make_lexer_lines_words_and_comments():
    src = (
        b"NVCC ?= nvcc # the compiler\n"
        b"FLAGS = -O3 \\\n  -arch=sm_80\n"
        b"obj/%.o: src/%.cu\n"
        b"\t$(NVCC) $(FLAGS) -c $< -o $@ -DMSG='\"a b\"'  # shell comment\n"
    )
    f = M.lex(src)
    kinds = [(line.kind, line.var) for line in f.lines]
    assert kinds == [("assign", "NVCC"), ("assign", "FLAGS"), ("rule", ""), ("recipe", "")]
    words = [[src[w.start : w.end].decode() for w in line.words] for line in f.lines]
    assert words[0] == ["nvcc"] and words[1] == ["-O3", "-arch=sm_80"]
    assert words[3][-1] == "-DMSG='\"a b\"'" and f.lines[3].words[-1].quoted
    assert len(f.comments) == 2


# -- CMake --------------------------------------------------------------------------------------


def test_fixture_project_cmake():
    text = (PROJECT / "CMakeLists.txt").read_text()
    out, findings = port("CMakeLists.txt", text)
    assert "project(blasdemo LANGUAGES CXX HIP)" in out
    assert "set(CMAKE_HIP_STANDARD 17)" in out and "CMAKE_HIP_STANDARD_REQUIRED ON" in out
    assert (
        "if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)\n  set(CMAKE_HIP_ARCHITECTURES gfx90a gfx942)"
    ) in out
    # the version of CUDA is meaningless for hip; the library package follows the target
    assert "find_package(hip REQUIRED)\nfind_package(hipblas REQUIRED)\n" in out
    assert "set_source_files_properties(src/scale.cu src/gemm.cu PROPERTIES LANGUAGE HIP)" in out
    assert "target_link_libraries(blasdemo PUBLIC hip::host roc::hipblas)" in out
    assert "$<$<COMPILE_LANGUAGE:HIP>:-gline-tables-only>" in out
    assert 'HIP_ARCHITECTURES "gfx90a;gfx942")  # the library\'s own list' in out
    assert "# A small CUDA library with a cuBLAS call, built with CMake's CUDA language." in out
    assert "CUDA" not in re.sub(r"#.*", "", out)
    assert findings == []
    again, findings2 = port("CMakeLists.txt", out)
    assert again == out and findings2 == []


def test_cmake_comments_and_messages_are_left_alone():
    text = (
        "# find_package(CUDAToolkit) and CUDA::cublas in a comment\n"
        'message(STATUS "CUDA::cublas with CMAKE_CUDA_FLAGS")\n'
        'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -lineinfo")\n'
    )
    out, _ = port("CMakeLists.txt", text)
    lines = out.splitlines()
    assert lines[0] == text.splitlines()[0]
    assert lines[1] == text.splitlines()[1]
    assert lines[2] == 'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -gline-tables-only")'
    out2, _ = port("CMakeLists.txt", text, BuildOptions(archs=ARCHS, rewrite_strings=True))
    assert out2.splitlines()[1] == 'message(STATUS "roc::hipblas with CMAKE_HIP_FLAGS")'


def test_cmake_unported_constructs_are_reported_at_their_line():
    text = (
        "find_package(CUDAToolkit REQUIRED)\n"
        "add_executable(app main.cu)\n"
        "target_link_libraries(app PRIVATE CUDA::nvtx3 CUDA::curand)\n"
        "set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON)\n"
        "if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12)\n"
        "endif()\n"
        "cuda_select_nvcc_arch_flags(ARCH_FLAGS Auto)\n"
        "set(CMAKE_CUDA_ARCHITECTURES ${MY_ARCHS})\n"
    )
    out, findings = port("CMakeLists.txt", text)
    assert "find_package(hip REQUIRED)\nfind_package(hiprand REQUIRED)\n" in out
    assert "CUDA::nvtx3 hip::hiprand" in out
    for line in (3, 4, 5, 7):
        assert codes_at(findings, line) == {"PT905"}, line
    assert codes_at(findings, 8) == {"PT906"}
    assert codes_at(findings, 6) == set()
    nvtx = next(f for f in findings if f.line == 3)
    assert nvtx.col == len("target_link_libraries(app PRIVATE ") + 1
    assert "roctx64" in nvtx.message and nvtx.severity is Severity.ERROR


def test_cmake_genex_sources_globs_and_findcuda():
    text = (
        "file(GLOB KERNELS src/*.cu)\n"
        "cuda_add_library(k STATIC ${KERNELS} extra.cu)\n"
        "target_link_libraries(k ${CUDA_CUBLAS_LIBRARIES} cudart)\n"
        "target_compile_definitions(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:USE_GPU>)\n"
    )
    out, findings = port("CMakeLists.txt", text)
    assert out.splitlines() == [
        "file(GLOB KERNELS src/*.cu)",
        "set_source_files_properties(${KERNELS} PROPERTIES LANGUAGE HIP)",
        "add_library(k STATIC ${KERNELS} extra.cu)",
        "set_source_files_properties(extra.cu PROPERTIES LANGUAGE HIP)",
        "target_link_libraries(k roc::hipblas hip::host)",
        "target_compile_definitions(k PRIVATE $<$<COMPILE_LANGUAGE:HIP>:USE_GPU>)",
    ]
    assert port("CMakeLists.txt", out)[0] == out


def test_cmake_project_packages_go_to_the_root_find_package():
    opts = BuildOptions(archs=ARCHS, project_packages=frozenset({"hipfft", "hipblas"}))
    out, _ = port("CMakeLists.txt", "  find_package(CUDAToolkit QUIET)\n", opts)
    assert out == (
        "  find_package(hip QUIET)\n  find_package(hipblas QUIET)\n  find_package(hipfft QUIET)\n"
    )


# -- Makefiles ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "nvcc,hip",
    [
        ("-arch=sm_80", "--offload-arch=gfx90a --offload-arch=gfx942"),
        ("-arch sm_90a", "--offload-arch=gfx90a --offload-arch=gfx942"),
        (
            "-gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90",
            "--offload-arch=gfx90a --offload-arch=gfx942",
        ),
        ("-Xptxas -v", "-Rpass-analysis=kernel-resource-usage"),
        ("-lineinfo --generate-line-info", "-gline-tables-only -gline-tables-only"),
        ("-rdc=true", "-fgpu-rdc"),
        ("-dc", "-fgpu-rdc -c"),
        ("-Xcompiler -fPIC,-Wall", "-fPIC -Wall"),
        ("-Xcompiler=-fopenmp", "-fopenmp"),
        ("--expt-relaxed-constexpr -O2 --extended-lambda", "-O2"),
        ("--default-stream per-thread", "-fgpu-default-stream=per-thread"),
        ("-fmad=false", "-ffp-contract=off"),
        ("-x cu", "-x hip"),
        (
            "-lcudart -lcublas -lcublasLt -lcurand -lcufft -lcusparse -lcusolver -lnvrtc -lnccl",
            "-lamdhip64 -lhipblas -lhipblaslt -lhiprand -lhipfft -lhipsparse -lhipsolver -lhiprtc "
            "-lrccl",
        ),
        ("-lcudnn", "-lMIOpen"),
    ],
)
def test_make_flags(nvcc, hip):
    out, _ = port("Makefile", f"FLAGS = {nvcc}\n")
    assert out == f"FLAGS = {hip}\n"


@pytest.mark.parametrize(
    "nvcc,hip,code",
    [
        ("-O3 --use_fast_math", "-O3 -ffast-math", "PT906"),
        ("-O3 -maxrregcount=64", "-O3", "PT906"),
        ("-maxrregcount 64 -O3", "-O3", "PT906"),
        ("-Xptxas -dlcm=ca -O3", "-O3", "PT906"),
        ("-ccbin g++-12 -O3", "-O3", "PT906"),
        ("-dlink a.o", "-dlink a.o", "PT905"),
        ("-lcudadevrt", "-lcudadevrt", "PT905"),
        ('-Xcompiler "-Wall -O3"', '-Xcompiler "-Wall -O3"', "PT905"),
    ],
)
def test_make_flags_reported(nvcc, hip, code):
    out, findings = port("Makefile", f"FLAGS = {nvcc}\n")
    assert out == f"FLAGS = {hip}\n"
    assert [f.code for f in findings] == [code] and findings[0].line == 1


def test_fixture_project_makefile():
    text = (PROJECT / "Makefile").read_text()
    out, findings = port("Makefile", text)
    assert "NVCC ?= hipcc\n" in out
    assert (
        "NVCCFLAGS = -O3 -std=c++17 --offload-arch=gfx90a --offload-arch=gfx942 \\\n"
        "            -fPIC -Wall -gline-tables-only\n"
    ) in out
    assert "LDLIBS = -lamdhip64 -lhipblas\n" in out
    assert "# The same library built with nvcc directly." in out  # comment untouched
    assert "\t$(NVCC) $(NVCCFLAGS) -Iinclude -c $< -o $@\n" in out
    assert findings == []
    assert port("Makefile", out)[0] == out


def test_make_strings_comments_and_references_are_left_alone():
    text = (
        "# nvcc -arch=sm_80\n"
        "all:\n"
        '\t@echo "building with nvcc -arch=sm_80"\n'
        "\t$(CUDA_HOME)/bin/nvcc $(patsubst %,-gencode arch=compute_%,$(SMS)) -c a.cu\n"
    )
    out, _ = port("Makefile", text)
    assert out.splitlines()[:3] == text.splitlines()[:3]
    assert out.splitlines()[3] == "\thipcc $(patsubst %,-gencode arch=compute_%,$(SMS)) -c a.cu"


# -- the table against the real packages ----------------------------------------------------------


def test_table_rows_are_sourced_and_consistent():
    for kind, rows in table().items():
        for name, row in rows.items():
            assert row.source, f"{kind} {name}: no source"
            assert row.status in ("supported", "unsupported"), row
            assert bool(row.hip) == (row.status == "supported"), row
            if row.cmake_target:
                assert row.package, f"{name}: a target without its package"


def test_cuda_target_names_exist_in_findcudatoolkit():
    mods = sorted(Path("/usr/share").glob("cmake-*/Modules/FindCUDAToolkit.cmake"))
    need(bool(mods), "CMake's FindCUDAToolkit.cmake not found (apt-get install cmake)")
    text = mods[-1].read_text()
    for name in table()["target"]:
        if name.startswith("CUDA::"):
            assert name in text, f"{name} is not a FindCUDAToolkit target"


def test_rocm_targets_and_libraries_exist_in_the_prefix(rocm72):
    configs = list(rocm72.glob("lib/*/cmake/*/*.cmake")) + list(
        rocm72.glob("share/cmake/*/*.cmake")
    )
    defined = set()
    for cfg in configs:
        defined.update(re.findall(r"add_library\(\s*([\w:]+)", cfg.read_text(errors="replace")))
        if cfg.name.endswith("-config.cmake"):
            defined.add("package:" + cfg.name[: -len("-config.cmake")])
    tab = table()
    for kind in ("target", "library", "variable"):
        for name, row in tab.get(kind, {}).items():
            if row.cmake_target:
                assert row.cmake_target in defined, f"{name} -> {row.cmake_target}: not in {rocm72}"
                assert "package:" + row.package in defined, f"{name}: no {row.package}-config"
    for _name, row in tab["package"].items():
        assert "package:" + row.hip in defined, f"find_package({row.hip}): no config in {rocm72}"
    libdirs = list(rocm72.glob("lib/*-linux-gnu"))
    for _name, row in tab["library"].items():
        if row.hip:
            # the -dev package's link name (its target is in the runtime package)
            assert any(os.path.lexists(d / f"lib{row.hip}.so") for d in libdirs), f"-l{row.hip}"
    # the notes say roctx has no CMake package: keep them true
    assert not any("roctx" in c.parent.name.lower() for c in configs)


# -- through the command line --------------------------------------------------------------------


def test_port_and_check_through_the_cli(tmp_path):
    out = tmp_path / "out"
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
            "gfx90a,gfx942",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "LANGUAGES CXX HIP" in (out / "CMakeLists.txt").read_text()
    assert "-lhipblas" in (out / "Makefile").read_text()
    import json

    files = {Path(f["path"]).name: f["status"] for f in json.loads(proc.stdout)["files"]}
    assert files["CMakeLists.txt"] == "ported" and files["Makefile"] == "ported"
    chk = subprocess.run(
        [sys.executable, "-m", "porter.cli", "check", str(PROJECT), "--select", "PT901"],
        capture_output=True,
        text=True,
    )
    assert chk.returncode == 1 and "CMakeLists.txt:3:1" in chk.stdout
    assert (PROJECT / "CMakeLists.txt").read_text().count("CUDA") > 3  # check wrote nothing
    shutil.rmtree(out)


def test_torch_extensions_are_reported_and_left_alone(tmp_path):
    from porter.rewrite.build import torch_extensions

    setup = (
        b"from setuptools import setup\n"
        b"from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
        b'setup(name="x", ext_modules=[CUDAExtension("x_cuda", sources=["x.cpp", "k.cu"])],\n'
        b'      cmdclass={"build_ext": BuildExtension})\n'
        b"import torch.utils.cpp_extension as ce\n"
        b'm = ce.load("y", ["y.cu"])\n'
    )
    found = torch_extensions("setup.py", setup)
    assert [(f.code, f.line, f.col) for f in sorted(found, key=lambda f: f.line)] == [
        ("PT908", 3, 30),
        ("PT908", 6, 5),
    ]
    assert "k.cu" in found[0].message or "k.cu" in found[1].message
    assert torch_extensions("other.py", b"def load(x):\n    return x\nload(1)\n") == []
    (tmp_path / "setup.py").write_bytes(setup)
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "porter.cli", "port", str(tmp_path / "setup.py"), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert "[PT908]" in proc.stdout + proc.stderr
    assert out.read_bytes() == setup  # the build file is left alone


def test_cuda_header_switches_in_flags_and_definitions():
    """-D/-U of a CUDA header switch (a `config_macro` mapping row) in nvcc flags, compile
    definitions and add_definitions becomes HIP's switch; one HIP lacks is reported; other
    definitions are left alone."""
    cmake = (
        'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -D__CUDA_NO_HALF_OPERATORS__ -DNDEBUG")\n'
        "target_compile_options(k PRIVATE -U__CUDA_NO_HALF_CONVERSIONS__ -D CUDA_NO_HALF)\n"
        "target_compile_definitions(k PRIVATE __CUDA_NO_HALF2_OPERATORS__ CUDA_NO_HALF=1 FOO)\n"
        "add_compile_definitions(-D__CUDA_NO_HALF_OPERATORS__)\n"
        "add_definitions(-U__CUDA_NO_HALF_CONVERSIONS__ -DCUDA_NO_HALF)\n"
    )
    out, findings = port("CMakeLists.txt", cmake)
    assert out.splitlines() == [
        'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -D__HIP_NO_HALF_OPERATORS__ -DNDEBUG")',
        "target_compile_options(k PRIVATE -U__HIP_NO_HALF_CONVERSIONS__ -D HIP_NO_HALF)",
        "target_compile_definitions(k PRIVATE __CUDA_NO_HALF2_OPERATORS__ HIP_NO_HALF=1 FOO)",
        "add_compile_definitions(-D__HIP_NO_HALF_OPERATORS__)",
        "add_definitions(-U__HIP_NO_HALF_CONVERSIONS__ -DHIP_NO_HALF)",
    ]
    assert [(f.code, f.line, f.name) for f in findings] == [
        ("PT905", 3, "__CUDA_NO_HALF2_OPERATORS__")
    ]
    make = "NVCCFLAGS = -O3 -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_BFLOAT16_OPERATORS__\n"
    out, findings = port("Makefile", make)
    assert out == "NVCCFLAGS = -O3 -D__HIP_NO_HALF_OPERATORS__ -D__CUDA_NO_BFLOAT16_OPERATORS__\n"
    assert [(f.code, f.name) for f in findings] == [("PT905", "__CUDA_NO_BFLOAT16_OPERATORS__")]
