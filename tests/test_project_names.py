"""Project-declared names across files (issue 8 §1): a table name that one file of the project
defines for every file (a compatibility header's `typedef int cudaError_t;`) is the project's
own name in every file that uses it, as in the header itself: the port keeps the definition and
every use, reports neither, the completeness check accepts them, and the port compiles. A
fallback under a ported guard (`#ifndef __CUDA_RUNTIME_H__`) is renamed with its uses
everywhere; a definition under the project's own switch (`#ifdef PROJ_CPU_ONLY`) stays in its
file only, and the other files' uses of CUDA's name are ported."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need
from helpers import git

from porter import verify
from porter.cli import main
from porter.mappings.index import load_index
from porter.rewrite import cuda as rewrite_cuda
from porter.rewrite.cuda import project_names
from porter.rewrite.invariant import MARK

COMPAT = """\
// The project's own stand-ins for a few CUDA names (CUDA's headers are not included here)
#ifndef PROJ_COMPAT_H
#define PROJ_COMPAT_H

typedef int cudaError_t;
#define cudaSuccess 0
#define CUDA_R_16BF 14
struct cudaDeviceProp {
    int major;
    int minor;
};
using cudaStream_t = void*;
typedef struct proj_graph* cudaGraph_t;
inline cudaError_t cudaGetLastError() { return cudaSuccess; }

#ifndef cudaStreamNonBlocking
#define cudaStreamNonBlocking 0x01
#endif

#ifdef PROJ_CPU_ONLY
typedef int cudaEvent_t;
#endif

#endif
"""
KERNEL = """\
#include "compat.h"

__global__ void fill(float* x, int kind) { x[threadIdx.x] = kind == CUDA_R_16BF ? 1.0f : 0.0f; }

cudaError_t launch_fill(float* x, cudaStream_t s, cudaGraph_t g, int flags) {
    (void)s;
    (void)g;
    fill<<<1, 32>>>(x, flags == cudaStreamNonBlocking ? CUDA_R_16BF : 0);
    return cudaGetLastError();
}
"""
MAIN = """\
#include <cuda_runtime.h>
#include "compat.h"

cudaError_t launch_fill(float* x, cudaStream_t s, cudaGraph_t g, int flags);

int main() {
    cudaDeviceProp prop;
    prop.minor = 4;
    cudaEvent_t done;
    if (cudaEventCreate(&done) != 0) return 2;
    float* x = nullptr;
    if (cudaMalloc(&x, 32 * sizeof(float)) != 0) return 3;
    cudaError_t err = launch_fill(x, nullptr, nullptr, cudaStreamNonBlocking);
    if (cudaEventDestroy(done) != 0) return 4;
    return err == cudaSuccess && prop.minor == 4 ? 0 : 1;
}
"""
# the project's own names: kept in every file; CUDA's names: ported
OWN = (
    "cudaError_t",
    "cudaSuccess",
    "CUDA_R_16BF",
    "cudaDeviceProp",
    "cudaStream_t",
    "cudaGraph_t",
    "cudaGetLastError",
    "cudaStreamNonBlocking",
)
PORTED = {
    "cudaEvent_t": "hipEvent_t",
    "cudaMalloc": "hipMalloc",
    "cudaEventCreate": "hipEventCreate",
}

FALLBACK = """\
// A stand-in for CUDA's names when the CUDA runtime header is not included first
#ifndef PROJ_FALLBACK_H
#define PROJ_FALLBACK_H
#ifndef __CUDA_RUNTIME_H__
typedef struct CUstream_st* cudaStream_t;
#define cudaStreamNonBlocking 0x01
#endif
#endif
"""
FALLBACK_A = """\
#include <cuda_runtime.h>
#include "fallback.h"

__global__ void k(int* p) { p[threadIdx.x] = 0; }

void run(int* p, cudaStream_t s) { k<<<1, 64, 0, s>>>(p); }
"""
FALLBACK_B = """\
#include <cuda_runtime.h>
#include "fallback.h"

void run(int* p, cudaStream_t s);

int main() {
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return 1;
    run(nullptr, s);
    return cudaStreamDestroy(s) == cudaSuccess ? 0 : 1;
}
"""


def _project(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))}


def _words(text: str) -> set[str]:
    import re

    return set(re.findall(r"\w+", text))


def _port_json(src: Path, out: Path) -> dict:
    report = out.parent / (out.name + ".json")
    main(
        ["port", str(src), "-o", str(out), "-q", "-j", "1", "--exit-zero", "--report", str(report)]
    )
    return json.loads(report.read_text())


@pytest.fixture
def compat(tmp_path: Path) -> Path:
    return _project(tmp_path / "src", {"compat.h": COMPAT, "kernel.cu": KERNEL, "main.cu": MAIN})


@pytest.fixture
def fallback(tmp_path: Path) -> Path:
    return _project(
        tmp_path / "fb", {"fallback.h": FALLBACK, "a.cu": FALLBACK_A, "b.cu": FALLBACK_B}
    )


def test_project_names_of_a_header():
    idx = load_index()
    found = project_names("compat.h", COMPAT.encode(), idx)
    # cudaEvent_t is defined under the project's own switch only: on AMD, other files mean
    # CUDA's cudaEvent_t
    assert found == frozenset(OWN)
    # a fallback under a ported guard is renamed with its uses: not the project's own name
    assert project_names("fallback.h", FALLBACK.encode(), idx) == frozenset()
    # prototypes and variables declare CUDA's names again, they define nothing
    proto = b"cudaError_t cudaFree(void* p);\ncudaStream_t cudaStreamLegacy;\n"
    assert project_names("p.h", proto, idx) == frozenset()
    # a CUDA version test (CUDART_VERSION is 0 on AMD: the branch is taken) keeps the name
    old = b"#if CUDART_VERSION < 11000\ntypedef int cudaStreamCaptureMode;\n#endif\n"
    assert project_names("v.h", old, idx) == {"cudaStreamCaptureMode"}


def test_files_without_definition_sites_are_not_parsed(monkeypatch):
    def refuse(data):
        raise AssertionError("parsed a file without a definition site")

    monkeypatch.setattr(rewrite_cuda.P, "parse", refuse)
    idx = load_index()
    assert project_names("m.cu", MAIN.encode(), idx) == frozenset()
    assert project_names("k.cu", KERNEL.encode(), idx) == frozenset()


def test_include_models_only_where_a_header_defines_names(compat: Path, tmp_path, monkeypatch):
    """The pre-pass reads which files include which (each file's #if model) only in a project
    where some header defines table names: in one where none does, no model is built, and the
    port is the same."""
    from porter.rewrite import project

    calls = []
    real = project.unconditional_includes

    def counted(data: bytes):
        calls.append(data)
        return real(data)

    monkeypatch.setattr(project, "unconditional_includes", counted)
    _port_json(compat, tmp_path / "with")
    assert len(calls) >= 2  # compat.h defines names: every source's includes are read
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "k.cu").write_text(KERNEL.replace('#include "compat.h"', '#include "util.h"'))
    (plain / "util.h").write_text("#pragma once\n#include <cuda_runtime.h>\n")
    calls.clear()
    report = _port_json(plain, tmp_path / "out")
    assert calls == []
    assert report["summary"]["api"]["converted"] > 0
    assert "hipStream_t" in (tmp_path / "out" / "k.cu").read_text()


def test_a_compat_headers_names_stay_in_every_file(compat: Path, tmp_path: Path):
    report = _port_json(compat, tmp_path / "out")
    out = tmp_path / "out"
    assert (out / "compat.h").read_text() == COMPAT
    kernel = (out / "kernel.cu").read_text()
    assert kernel == "#include <hip/hip_runtime.h>\n" + KERNEL
    main_cu = (out / "main.cu").read_text()
    assert _words(main_cu) >= {"cudaError_t", "cudaDeviceProp", "cudaStream_t", "cudaSuccess"}
    for cuda, hip in PORTED.items():
        assert cuda not in _words(main_cu) and hip in _words(main_cu), cuda
    assert "cudaStreamNonBlocking" in main_cu and "hipStreamNonBlocking" not in main_cu
    names = {f.get("name") for f in report["findings"] if f["code"] in ("PT001", "PT002")}
    assert not names & set(OWN), names
    faults = [f for f in report["findings"] if MARK in f.get("message", "")]
    assert not faults, faults


def test_porting_the_port_again_changes_nothing(compat: Path, fallback: Path, tmp_path: Path):
    for src in (compat, fallback):
        once, twice = tmp_path / f"{src.name}1", tmp_path / f"{src.name}2"
        _port_json(src, once)
        _port_json(once, twice)
        assert _tree(once) == _tree(twice)


def test_a_fallback_under_a_ported_guard_is_renamed_everywhere(fallback: Path, tmp_path: Path):
    report = _port_json(fallback, tmp_path / "out")
    out = tmp_path / "out"
    header = (out / "fallback.h").read_text()
    assert "cudaStream_t" not in header and "hipStream_t" in header
    assert "#define hipStreamNonBlocking" in header
    for name in ("a.cu", "b.cu"):
        text = (out / name).read_text()
        assert "cuda" not in text.replace("cuda_runtime", ""), text
    faults = [f for f in report["findings"] if MARK in f.get("message", "")]
    assert not faults, faults


def test_the_ports_compile_for_gfx942(compat: Path, fallback: Path, tmp_path: Path, rocm72):
    for src in (compat, fallback):
        out = tmp_path / f"{src.name}-out"
        _port_json(src, out)
        for unit in sorted(out.glob("*.cu")):
            res = verify.compile_file(unit, ["gfx942"], rocm=rocm72.parent, include_dirs=[str(out)])
            assert res.ok, f"{unit.name}: {res.stderr_tail}"


def test_a_single_file_sees_the_names_of_the_headers_next_to_it(compat: Path, tmp_path: Path):
    """`port`/`check` of one file read the project headers it includes for their names."""
    target = tmp_path / "kernel.hip"
    main(["port", str(compat / "kernel.cu"), "-o", str(target), "-q", "--exit-zero"])
    assert target.read_text() == "#include <hip/hip_runtime.h>\n" + KERNEL
    report = tmp_path / "check.json"
    main(["check", str(compat / "kernel.cu"), "-q", "--no-cache", "--report", str(report)])
    findings = json.loads(report.read_text())["findings"]
    assert not {f.get("name") for f in findings} & set(OWN), findings


def test_a_cpu_only_definition_stays_in_its_file(compat: Path, tmp_path: Path):
    """cudaEvent_t under `#ifdef PROJ_CPU_ONLY`: the header keeps it, main.cu ports its uses."""
    _port_json(compat, tmp_path / "out")
    assert "typedef int cudaEvent_t;" in (tmp_path / "out" / "compat.h").read_text()
    assert "hipEvent_t done;" in (tmp_path / "out" / "main.cu").read_text()


def test_review_of_a_change_using_the_headers_names(tmp_path: Path):
    """The names a change uses from the project's header are kept by the in-memory port: no
    finding says the change adds CUDA names (PT006) or leaves them unconverted."""
    need(shutil.which("git") is not None, "git is not installed")
    root = _project(tmp_path / "r", {"compat.h": COMPAT, "kernel.cu": KERNEL})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    (root / "kernel.cu").write_text(
        KERNEL + "cudaError_t again() {\n    cudaDeviceProp p{};\n    return cudaSuccess;\n}\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "porter.cli", "review", "--base", "main", "--format", "json"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    findings = json.loads(proc.stdout)["findings"]
    assert proc.returncode == 0 and not findings, proc.stdout + proc.stderr


def test_only_the_files_that_include_the_header_see_its_names(tmp_path: Path):
    """A mock header of a test program, a stub included only in a CPU build, and an overload
    that calls CUDA's function do not make CUDA's names the project's own elsewhere."""
    src = tmp_path / "p"
    (src / "tools").mkdir(parents=True)
    (src / "include" / "proj").mkdir(parents=True)
    (src / "tools" / "mock.h").write_text(
        "#pragma once\ntypedef int cudaStream_t;\n#define cudaSuccess 0\n"
    )
    (src / "tools" / "mock_main.cpp").write_text(
        '#include "mock.h"\nint main() { cudaStream_t s = cudaSuccess; return s; }\n'
    )
    (src / "include" / "proj" / "stub.h").write_text("#pragma once\ntypedef int cudaEvent_t;\n")
    (src / "include" / "proj" / "compat.h").write_text(
        "#pragma once\n#define CUDA_R_16BF 14\n"
        "#include <cuda_runtime.h>\n"
        "inline cudaError_t cudaMallocManaged(void** p, size_t n) {\n"
        "    return ::cudaMallocManaged(p, n, cudaMemAttachGlobal);\n}\n"
        "namespace proj {\ntypedef int cudaGraph_t;\n}\n"
    )
    (src / "include" / "proj" / "all.h").write_text(
        '#pragma once\n#include "compat.h"\n#ifdef PROJ_CPU_ONLY\n#include "stub.h"\n#endif\n'
    )
    (src / "real.cu").write_text(
        "#include <cuda_runtime.h>\n#include <proj/all.h>\n"
        "int run(float** p, int kind) {\n"
        "    cudaStream_t s;\n    cudaEvent_t e;\n    cudaGraph_t g;\n"
        "    if (cudaMallocManaged((void**)p, 4) != cudaSuccess) return 1;\n"
        "    (void)s; (void)e; (void)g;\n"
        "    return kind == CUDA_R_16BF ? 0 : 2;\n}\n"
    )
    out = tmp_path / "out"
    report = _port_json(src, out)
    real = (out / "real.cu").read_text()
    for cuda in ("cudaStream_t", "cudaEvent_t", "cudaGraph_t", "cudaMallocManaged", "cudaSuccess"):
        assert cuda not in _words(real), (cuda, real)
    assert "CUDA_R_16BF" in _words(real)  # from compat.h, through all.h, by path suffix
    mock = (out / "tools" / "mock_main.cpp").read_text()
    assert mock == (src / "tools" / "mock_main.cpp").read_text()
    faults = [f for f in report["findings"] if MARK in f.get("message", "")]
    assert not faults, faults


def test_names_by_file_follows_unconditional_includes():
    from porter.rewrite.project import FileScan, names_by_file, unconditional_includes

    files = [
        FileScan("a.cu", "/p/src/a.cu", frozenset(), ("b.h",)),
        FileScan("b.h", "/p/src/b.h", frozenset(), ("lib/c.h",)),
        FileScan("c.h", "/p/src/lib/c.h", frozenset({"cudaError_t"}), ()),
        FileScan("other/c.h", "/p/other/lib/c.h", frozenset({"cudaStream_t"}), ()),
        FileScan("d.cu", "/p/other/sub/d.cu", frozenset(), ("lib/c.h",)),
        FileScan("e.cu", "/p/src/e.cu", frozenset(), ()),
        FileScan("f.cu", "/p/f.cu", frozenset(), ("lib/c.h",)),
    ]
    got = names_by_file(files)
    # a.cu through b.h; d.cu: `lib/c.h` is not next to it, and of the two files that end so,
    # other/lib/c.h is the nearer; f.cu: a tie, both; e.cu includes nothing
    assert got == {
        "a.cu": {"cudaError_t"},
        "b.h": {"cudaError_t"},
        "d.cu": {"cudaStream_t"},
        "f.cu": {"cudaError_t", "cudaStream_t"},
    }
    text = (
        b'#ifndef G\n#define G\n#include "a.h"\n#ifdef CPU_ONLY\n#include "b.h"\n#endif\n'
        b"#if CUDART_VERSION < 11000\n#include <c.h>\n#endif\n#endif\n"
    )
    assert unconditional_includes(text) == ("a.h", "c.h")


@pytest.mark.parametrize(
    "text",
    [
        b'/* old layout:\n#include "compat.h"\n*/\n',  # in a block comment
        b'const char* s = R"(\n#include "compat.h"\n)";\n',  # in a raw string
        b'#define INC \\\n#include "compat.h"\n',  # a macro body's continued line
        b'// see \\\n#include "compat.h"\n',  # a spliced line comment
    ],
)
def test_an_include_that_is_no_directive_does_not_bring_a_headers_names(text: bytes):
    """The includes followed for project names are the directives the rewriter and the rules see
    (includes.include_directives), not every line that looks like one."""
    from porter.rewrite.project import unconditional_includes

    assert unconditional_includes(text) == ()
    assert unconditional_includes(text + b'#include "compat.h"\n') == ("compat.h",)
