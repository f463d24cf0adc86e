"""The command line on real trees: outputs, exit codes, bad input, atomic writes."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need

from porter.cli import main

KERNEL = b"""#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
int main() { float* d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); cudaFree(d); return 0; }
"""
PLAIN = b"int add(int a, int b) { return a + b; }\n"


def make_tree(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "k.cu").write_bytes(KERNEL)
    (root / "src" / "plain.cpp").write_bytes(PLAIN)
    (root / "README.md").write_text("# demo\n")
    (root / "data.bin").write_bytes(bytes(range(256)))
    return root


def run_cli(*args: str, cwd: Path | None = None):
    """Run porter in a subprocess (exit code, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "porter.cli", *args], capture_output=True, cwd=cwd)
    return (
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def test_port_tree_mirrors_input(tmp_path):
    src = make_tree(tmp_path / "in")
    out = tmp_path / "out"
    rc, stdout, _ = run_cli("port", str(src), "-o", str(out))
    assert rc == 0, stdout
    assert (out / "README.md").read_text() == "# demo\n"
    assert (out / "data.bin").read_bytes() == bytes(range(256))
    assert (out / "src" / "plain.cpp").read_bytes() == PLAIN
    ported = (out / "src" / "k.cu").read_text()
    assert "hipMalloc(&d, 4)" in ported and "hipFree(d)" in ported
    assert "#include <hip/hip_runtime.h>" in ported
    assert "1 ported" in stdout and "ported tree written to" in stdout


def test_single_file_to_stdout_and_file(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(KERNEL)
    rc, stdout, stderr = run_cli("port", str(f))
    assert rc == 0
    assert "hipMalloc" in stdout and "ported" not in stdout.splitlines()[-1]
    out = tmp_path / "k.hip"
    rc, _, _ = run_cli("port", str(f), "-o", str(out))
    assert rc == 0 and out.read_text() == stdout


def test_diff_writes_nothing(tmp_path):
    src = make_tree(tmp_path / "in")
    before = (src / "src" / "k.cu").read_bytes()
    rc, stdout, _ = run_cli("port", str(src), "--diff")
    assert rc == 0
    # an absolute input outside the working folder: absolute names that open (patch -p0)
    assert f"--- {src}/src/k.cu" in stdout and "+int main() { float* d; hipMalloc(&d, 4);" in stdout
    rc, stdout, _ = run_cli("port", "in", "--diff", cwd=tmp_path)
    assert rc == 0 and "--- a/in/src/k.cu\n+++ b/in/src/k.cu" in stdout
    assert (src / "src" / "k.cu").read_bytes() == before


def test_in_place_keeps_backup(tmp_path):
    src = make_tree(tmp_path / "in")
    rc, stdout, _ = run_cli("port", str(src), "--in-place")
    assert rc == 0
    assert b"hipMalloc" in (src / "src" / "k.cu").read_bytes()
    backups = list((src / ".porter-backup").rglob("k.cu"))
    assert len(backups) == 1 and backups[0].read_bytes() == KERNEL
    # unchanged files are not backed up; porting again changes nothing
    assert not list((src / ".porter-backup").rglob("plain.cpp"))
    ported = (src / "src" / "k.cu").read_bytes()
    rc, _, _ = run_cli("port", str(src), "--in-place", "--no-backup")
    assert rc == 0 and (src / "src" / "k.cu").read_bytes() == ported


def test_in_place_no_backup(tmp_path):
    src = make_tree(tmp_path / "in")
    rc, _, _ = run_cli("port", str(src), "--in-place", "--no-backup")
    assert rc == 0 and not (src / ".porter-backup").exists()


@pytest.mark.parametrize(
    "args,needle",
    [
        (["port", "does/not/exist", "-o", "x"], "no such file or directory"),
        (["port", "{src}", "-o", "{src}/sub"], "inside the input folder"),
        (["port", "{src}"], "needs -o DIR, --diff or --in-place"),
        (["port", "{src}", "-o", "{out}", "--rocm-version", "seven"], "--rocm-version"),
        (["port", "{src}", "-o", "{out}", "--offload-arch", "sm_90"], "unknown --offload-arch"),
        (["check", "{src}", "--select", "PT9999X"], "unknown rule code"),
        (["rule", "PT0000"], "unknown rule"),
    ],
)
def test_usage_errors_are_one_line_exit_2(tmp_path, args, needle):
    src = make_tree(tmp_path / "in")
    args = [a.format(src=src, out=tmp_path / "out") for a in args]
    rc, stdout, stderr = run_cli(*args)
    assert rc == 2
    assert needle in stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1


def test_existing_output_needs_force(tmp_path):
    src = make_tree(tmp_path / "in")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    rc, _, stderr = run_cli("port", str(src), "-o", str(out))
    assert rc == 2 and "--force" in stderr and "Traceback" not in stderr
    rc, _, _ = run_cli("port", str(src), "-o", str(out), "--force")
    assert rc == 0 and (out / "keep.txt").read_text() == "mine" and (out / "src" / "k.cu").exists()


def test_non_utf8_source_is_ported_byte_exactly(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    data = b"// caf\xe9\n#include <cuda_runtime.h>\nvoid f(float* d) { cudaFree(d); /* \xb5 */ }\n"
    (src / "latin1.cu").write_bytes(data)
    rc, _, _ = run_cli("port", str(src), "-o", str(tmp_path / "out"))
    assert rc == 0
    assert (tmp_path / "out" / "latin1.cu").read_bytes() == data.replace(
        b"cuda_runtime.h", b"hip/hip_runtime.h"
    ).replace(b"cudaFree", b"hipFree")


def test_binary_file_with_source_extension_is_copied(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    blob = b"\x7fELF\x00\x01cudaMalloc\x00" * 10
    (src / "weird.cu").write_bytes(blob)
    out = tmp_path / "out"
    rc, stdout, _ = run_cli("port", str(src), "-o", str(out), "--format", "json")
    assert rc == 0
    assert (out / "weird.cu").read_bytes() == blob
    files = json.loads(stdout)["files"]
    assert files[0]["note"] == "binary file copied unchanged"


def test_symlinks_loops_and_outside_links_are_not_followed(tmp_path):
    src = make_tree(tmp_path / "in")
    outside = tmp_path / "outside.cu"
    outside.write_bytes(KERNEL)
    os.symlink(outside, src / "src" / "outside_link.cu")
    os.symlink(src / "src", src / "src" / "loop")  # folder link: not followed
    os.symlink("k.cu", src / "src" / "alias.cu")  # file link inside: kept as a link
    os.symlink("nowhere.cu", src / "src" / "dangling.cu")
    out = tmp_path / "out"
    rc, stdout, _ = run_cli("port", str(src), "-o", str(out))
    assert rc == 0, stdout
    assert "pointing outside the tree" in stdout and "dangling" in stdout
    assert not (out / "src" / "outside_link.cu").exists()
    alias = out / "src" / "alias.cu"
    assert alias.is_symlink() and os.readlink(alias) == "k.cu"
    assert not (out / "src" / "loop").exists()


def test_unreadable_file_is_reported_exit_2(tmp_path, monkeypatch, capsys):
    from porter import engine

    src = make_tree(tmp_path / "in")
    real = engine.read_within

    def deny(path, limit):  # the engine's and the pre-pass's one read of a source
        if Path(path).name == "k.cu":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, limit)

    monkeypatch.setattr(engine, "read_within", deny)
    rc = main(["port", str(src), "-o", str(tmp_path / "out"), "-j", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "permission denied" in err and "Traceback" not in err
    assert (tmp_path / "out" / "src" / "plain.cpp").exists()  # the rest is still ported


def test_interrupt_leaves_no_partial_files(tmp_path, monkeypatch, capsys):
    src = tmp_path / "in"
    src.mkdir()
    for i in range(6):
        (src / f"k{i}.cu").write_bytes(KERNEL)
    from porter import engine

    real = engine.process_data
    calls = {"n": 0}

    def interrupt(rel, data):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(rel, data)

    monkeypatch.setattr(engine, "process_data", interrupt)
    out = tmp_path / "out"
    rc = main(["port", str(src), "-o", str(out), "-j", "1"])
    assert rc == 130
    assert "interrupted" in capsys.readouterr().err
    for p in out.rglob("*"):
        assert ".porter-tmp" not in p.name
        assert p.read_bytes() == KERNEL.replace(b"cuda_runtime.h", b"hip/hip_runtime.h").replace(
            b"cudaMalloc", b"hipMalloc"
        ).replace(b"cudaFree", b"hipFree")


def test_full_disk_is_one_line_exit_2(tmp_path, monkeypatch, capsys):
    src = make_tree(tmp_path / "in")
    from porter import engine

    def full(path, data, mode_from=None, mode=None, **kw):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(engine, "atomic_write", full)
    rc = main(["port", str(src), "-o", str(tmp_path / "out"), "-j", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "No space left on device" in err and "Traceback" not in err


def test_parallel_and_serial_runs_agree(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    for i in range(12):
        (src / f"k{i}.cu").write_bytes(KERNEL.replace(b"k(", f"k{i}(".encode()))
    rc1, out1, _ = run_cli(
        "port", str(src), "-o", str(tmp_path / "a"), "-j", "1", "--format", "json"
    )
    rc2, out2, _ = run_cli(
        "port", str(src), "-o", str(tmp_path / "b"), "-j", "2", "--format", "json"
    )
    assert rc1 == rc2 == 0
    assert json.loads(out1)["findings"] == json.loads(out2)["findings"]
    for p in (tmp_path / "a").iterdir():
        assert p.read_bytes() == (tmp_path / "b" / p.name).read_bytes()


def test_check_exit_codes_and_formats(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(b"#include <cuda_runtime.h>\nvoid f() { cudaNotARealApi(1); }\n")
    rc, stdout, _ = run_cli("check", str(f))
    assert rc == 1 and "[PT001]" in stdout
    rc, _, _ = run_cli("check", str(f), "--exit-zero")
    assert rc == 0
    # a CUDA name porter cannot port fails the run at any fail level (the pre-commit hook runs
    # with --fail-level error) unless the configuration lowers the rule to info
    rc, _, _ = run_cli("check", str(f), "--fail-level", "error")
    assert rc == 1
    (tmp_path / ".porter.toml").write_text('severity = { PT001 = "info" }\n')
    rc, _, _ = run_cli("check", str(f), "--fail-level", "error")
    assert rc == 0
    (tmp_path / ".porter.toml").unlink()
    rc, stdout, _ = run_cli("check", str(f), "--format", "sarif")
    sarif = json.loads(stdout)
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"][0]["ruleId"] == "PT001"
    rc, stdout, _ = run_cli("check", str(f), "--format", "github")
    assert stdout.startswith("::warning file=")


def test_inline_suppression_and_unused_suppression(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(
        b"void f() {\n  cudaNotARealApi(1);  // porter: ignore[PT001]\n"
        b"  // porter: ignore[PT001]\n  cudaOtherFake(2);\n"
        b"  int x = 1;  // porter: ignore[PT002]\n}\n"
    )
    rc, stdout, _ = run_cli("check", str(f), "--fail-level", "warning")
    assert "[PT001]" not in stdout
    assert "[PT005]" in stdout and ":5:" in stdout


def test_config_file_overrides(tmp_path):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "k.cu").write_bytes(b"void f() { cudaNotARealApi(1); }\n")
    (src / ".porter.toml").write_text('[tool.porter]\nseverity = { PT001 = "info" }\n')
    rc, stdout, _ = run_cli("check", str(src))
    assert rc == 0 and "info: `cudaNotARealApi`" in stdout
    (src / ".porter.toml").write_text("[tool.porter]\nbogus = 1\n")
    rc, _, stderr = run_cli("check", str(src))
    assert rc == 2 and "unknown setting" in stderr


def test_report_files(tmp_path):
    src = make_tree(tmp_path / "in")
    out = tmp_path / "out"
    rep = tmp_path / "rep"
    rc, _, _ = run_cli(
        "port",
        str(src),
        "-o",
        str(out),
        "--report",
        str(rep) + ".md",
        "--report",
        str(rep) + ".json",
        "--report",
        str(rep) + ".html",
        "--report",
        str(rep) + ".sarif",
    )
    assert rc == 0
    assert (tmp_path / "rep.md").read_text().startswith("# porter compatibility report")
    assert json.loads((tmp_path / "rep.json").read_text())["schema"] == "porter-report/1"
    assert "<html" in (tmp_path / "rep.html").read_text()
    assert json.loads((tmp_path / "rep.sarif").read_text())["version"] == "2.1.0"


def test_rule_and_mappings_commands():
    rc, stdout, _ = run_cli("rule", "PT001")
    assert rc == 0 and "## What it finds" in stdout
    rc, stdout, _ = run_cli("rule", "--all")
    assert rc == 0 and "PT002" in stdout
    rc, stdout, _ = run_cli("mappings", "cudaMalloc")
    assert rc == 0 and "cudaMalloc -> hipMalloc" in stdout and "source:" in stdout
    rc, stdout, _ = run_cli("mappings", "--area", "runtime", "--format", "markdown")
    assert rc == 0 and "| `cudaMalloc` | `hipMalloc` |" in stdout


def test_version_dependent_rewrite(tmp_path):
    f = tmp_path / "w.cu"
    f.write_bytes(
        b"__device__ float r(float v, int d) { "
        b"return __shfl_down_sync(0xffffffffffffffffULL, v, d); }\n"
    )
    _, old, _ = run_cli("port", str(f), "--rocm-version", "6.1")
    _, new, _ = run_cli("port", str(f), "--rocm-version", "7.0")
    assert "__shfl_down(v, d)" in old
    assert "__shfl_down_sync(0xffffffffffffffffULL, v, d)" in new


def test_launch_syntax_hip(tmp_path):
    f = tmp_path / "l.cu"
    f.write_bytes(
        b"template <class T> __global__ void k(T* p, int n);\n"
        b"void h(float* p, int n, cudaStream_t s) { "
        b"k<float><<<n / 64, 64, 0, s>>>(p, n); k<float><<<1, 1>>>(p, n); }\n"
    )
    rc, stdout, _ = run_cli("port", str(f), "--launch-syntax", "hip")
    assert (
        "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float>), dim3(n / 64), dim3(64), 0, s, p, n);"
        in stdout
    )
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float>), dim3(1), dim3(1), 0, 0, p, n);" in stdout


def test_comments_and_strings_untouched_unless_asked(tmp_path):
    f = tmp_path / "c.cu"
    f.write_bytes(b'#include <cuda_runtime.h>\n// cudaMalloc here\nconst char* s = "cudaFree";\n')
    _, out, _ = run_cli("port", str(f))
    assert "// cudaMalloc here" in out and '"cudaFree"' in out
    _, out, _ = run_cli("port", str(f), "--rewrite-comments", "--rewrite-strings")
    assert "// hipMalloc here" in out and '"hipFree"' in out


def test_rocm_version_auto_reads_installed_hip(tmp_path, monkeypatch):
    hip = tmp_path / "rocm" / "include" / "hip"
    hip.mkdir(parents=True)
    (hip / "hip_version.h").write_text(
        "#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 1\n#define HIP_VERSION_PATCH 3\n"
    )
    f = tmp_path / "w.cu"
    f.write_bytes(
        b"__device__ float r(float v, int d) { "
        b"return __shfl_down_sync(0xffffffffffffffffULL, v, d); }\n"
    )
    env = dict(os.environ, ROCM_PATH=str(tmp_path / "rocm"))
    proc = subprocess.run(
        [sys.executable, "-m", "porter.cli", "port", str(f), "--rocm-version", "auto"],
        capture_output=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"__shfl_down(v, d)" in proc.stdout  # 6.1: no _sync builtins yet


def test_pyproject_tool_porter_section(tmp_path):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "k.cu").write_bytes(b"void f() { cudaNotARealApi(1); }\n")
    (src / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.porter]\nignore = ["PT001"]\n'
    )
    rc, stdout, _ = run_cli("check", str(src))
    assert rc == 0 and "PT001" not in stdout


def test_a_crashing_rule_is_reported_and_the_port_goes_on(tmp_path, monkeypatch, capsys):
    src = make_tree(tmp_path / "in")
    from porter.rules import warp

    def boom(self, ctx):
        raise RecursionError("maximum recursion depth exceeded")
        yield

    monkeypatch.setattr(warp.WarpMask32Bit, "check", boom)
    out = tmp_path / "out"
    (src / "src" / "w.cu").write_bytes(
        b"__device__ float f(float v) { return __shfl_down_sync(0xffffffff, v, 1); }\n"
    )
    rc = main(["port", str(src), "-o", str(out), "-j", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "internal error in rule PT104" in err and "Traceback" not in err
    assert (out / "src" / "w.cu").exists() and (out / "src" / "k.cu").exists()


def test_config_targets_as_list_and_version_as_number(tmp_path):
    src = tmp_path / "proj"
    src.mkdir()
    (src / "k.cu").write_bytes(
        b"__global__ void k(float* p) { __shared__ float s[32 * 1024 + 8192]; p[0] = s[0]; }\n"
    )
    (src / ".porter.toml").write_text('offload-arch = ["gfx90a", "gfx950"]\nrocm-version = 7.2\n')
    rc, stdout, stderr = run_cli("check", str(src), "--format", "json")
    assert rc == 1, stderr
    doc = json.loads(stdout)
    assert doc["options"]["offload_arch"] == ["gfx90a", "gfx950"]
    assert doc["options"]["rocm_version"] == "7.2"
    lds = [f for f in doc["findings"] if f["code"] == "PT401"]
    assert lds and lds[0]["targets"] == ["gfx90a"]  # 160 KiB fits gfx950's LDS, not gfx90a's


def test_single_file_sees_macros_of_its_own_headers(tmp_path):
    (tmp_path / "common.cuh").write_text(
        "#pragma once\n#define CUDA_CHECK(x) do { cudaError_t e = (x); (void)e; } while (0)\n"
    )
    f = tmp_path / "a.cu"
    f.write_text('#include "common.cuh"\nvoid f(float* d) { CUDA_CHECK(cudaFree(d)); }\n')
    rc, stdout, stderr = run_cli("port", str(f))
    assert rc == 0 and "PT001" not in stderr
    # a .cu file has cuda_runtime.h from nvcc without including it; its port includes HIP's
    assert stdout == (
        '#include <hip/hip_runtime.h>\n#include "common.cuh"\n'
        "void f(float* d) { CUDA_CHECK(hipFree(d)); }\n"
    )


def test_finding_paths_open_from_the_working_directory(tmp_path):
    (tmp_path / "proj" / "src").mkdir(parents=True)
    (tmp_path / "proj" / "src" / "k.cu").write_text("void f() { cudaNotReal(); }\n")
    proc = subprocess.run(
        [sys.executable, "-m", "porter.cli", "check", "proj", "--format", "github"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.stdout.startswith("::warning file=proj/src/k.cu,line=1,col=12")


def test_port_check_reports_what_it_would_change(tmp_path):
    src = make_tree(tmp_path / "in")
    rc, stdout, stderr = run_cli("port", "--check", str(src))
    assert rc == 1 and stdout == ""
    assert f"would port {src}/src/k.cu" in stderr and "plain.cpp" not in stderr.split("\n\n")[0]
    assert "1 file would be changed by the port" in stderr
    assert (src / "src/k.cu").read_bytes() == KERNEL  # nothing written
    out = tmp_path / "out"
    assert run_cli("port", str(src), "-o", str(out))[0] == 0
    rc, stdout, stderr = run_cli("port", "--check", str(src), "-o", str(out))
    assert rc == 0 and "the port would change nothing" in stderr
    (out / "src/k.cu").write_bytes(KERNEL)  # a stale port
    (out / "README.md").unlink()  # and a missing copy
    rc, stdout, stderr = run_cli("port", "--check", "--diff", str(src), "-o", str(out))
    assert rc == 1
    assert f"would update {out}/src/k.cu" in stderr and f"would update {out}/README.md" in stderr
    assert "+#include <hip/hip_runtime.h>" in stdout and "-#include <cuda_runtime.h>" in stdout
    rc, _, stderr = run_cli("port", "--check", "--in-place", str(src))
    assert rc == 2 and stderr.count("\n") == 1


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "cuda-project"


def _example(tmp_path: Path) -> Path:
    import shutil

    dst = tmp_path / "proj"
    shutil.copytree(EXAMPLE, dst)
    return dst


def _summary(text: str) -> str:
    return text[text.rindex("findings: ") :].splitlines()[0]


def test_build_files_port_whatever_the_working_folder(tmp_path):
    """A CMakeLists.txt ported from a folder outside the input (findings then name it by an
    absolute path) gets the same port as from the input's parent folder."""
    proj = tmp_path / "p"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "k.cu").write_bytes(KERNEL)
    (proj / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\n"
        "project(p LANGUAGES CXX CUDA)\n"
        "add_executable(p src/k.cu)\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    rc, out, err = run_cli("port", str(proj), "-o", str(tmp_path / "a"), cwd=elsewhere)
    assert "internal error" not in out + err, out + err
    assert "2 files: 2 ported" in out, out
    rc, out2, err2 = run_cli("port", "p", "-o", "b", cwd=tmp_path)
    assert "2 files: 2 ported" in out2, out2 + err2
    a, b = (tmp_path / d / "CMakeLists.txt" for d in ("a", "b"))
    assert a.read_text() == b.read_text() and "HIP" in a.read_text()


def test_quiet_statistics_and_grouped_output(tmp_path):
    _example(tmp_path)
    rc, full, _ = run_cli("check", "proj", cwd=tmp_path)
    finding_lines = [ln for ln in full.splitlines() if ln.startswith("proj/")]
    assert rc == 1 and finding_lines
    rc, quiet, _ = run_cli("check", "proj", "-q", cwd=tmp_path)
    assert rc == 1 and not any(ln.startswith("proj/") for ln in quiet.splitlines())
    assert quiet.startswith("7 files checked") and _summary(quiet) == _summary(full)
    rc, stats, _ = run_cli("check", "proj", "--statistics", cwd=tmp_path)
    rows = [ln.split() for ln in stats.split("\n\n")[0].splitlines()]
    assert sum(int(r[0]) for r in rows) == len(finding_lines)
    assert ["2", "PT104", "error", "[*]", "warp-mask-32bit"] in rows
    counts = [int(r[0]) for r in rows]
    assert counts == sorted(counts, reverse=True)
    rc, grouped, _ = run_cli("check", "proj", "--group-by-file", cwd=tmp_path)
    assert "proj/src/reduce.cu:\n  13:20: error: " in grouped
    assert _summary(grouped) == _summary(full)


def test_grammar_and_wording_per_command(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(
        b"#include <cuda_runtime.h>\nvoid f() { cudaNotARealApi(1); cudaDeviceSynchronize(); }\n"
    )
    rc, out, _ = run_cli("check", "k.cu", cwd=tmp_path)
    assert "1 file checked (1 with CUDA code)" in out
    assert "API references porter would convert: 2" in out
    assert "findings: 0 errors, 1 warning, 0 info" in out
    assert "fixed automatically" not in out
    rc, out, err = run_cli("port", "k.cu", cwd=tmp_path)
    assert "1 file: 1 ported" in err and "API references converted: 2" in err


def test_fixes_applied_and_unsafe_fixes_pending_are_named(tmp_path):
    _example(tmp_path)
    rc, out, _ = run_cli("port", "proj", "-o", "out", cwd=tmp_path)
    assert "fixes applied: 2 (PT104 ×2)" in out
    rc, out, _ = run_cli("check", "proj", cwd=tmp_path)
    assert "fixable by `porter port`: 2 (PT104 ×2)" in out
    f = tmp_path / "reduce.cu"  # PT104: a safe fix; PT107: an unsafe one
    f.write_text(
        "__global__ void k(float *o, float v) {\n"
        "  for (int d = 16; d > 0; d /= 2)\n"
        "    v += __shfl_down_sync(0xffffffff, v, d);\n  o[0] = v;\n}\n"
    )
    rc, out, _ = run_cli("check", "reduce.cu", cwd=tmp_path)
    assert "fixable by `porter port`: 1 (PT104); 1 more with --unsafe-fixes (PT107)" in out
    # port --check writes nothing: it says what the port would do
    rc, _, err = run_cli("port", "--check", "reduce.cu", "--report", "check.html", cwd=tmp_path)
    assert rc == 1 and "1 file: 1 to port" in err
    page = (tmp_path / "check.html").read_text()
    assert "fixes the port would apply" in page and "fixes applied" not in page
    rc, _, _ = run_cli("port", "--check", "reduce.cu", "--report", "check.md", cwd=tmp_path)
    md = (tmp_path / "check.md").read_text()
    assert "| files to port | 1 |" in md and "| fixes the port would apply | 1 |" in md
    assert "fixes the port would apply: 1 (PT104)" in err and "fixes applied" not in err
    assert "1 more fix with --unsafe-fixes (PT107)" in err
    rc, out, _ = run_cli("port", "reduce.cu", "-o", "out", "--unsafe-fixes", cwd=tmp_path)
    assert "fixes applied: 2 (PT104, PT107)" in out and "--unsafe-fixes (" not in out


def test_per_target_severity_says_why(tmp_path):
    _example(tmp_path)
    rc, out, _ = run_cli("check", "proj", cwd=tmp_path)
    line = next(ln for ln in out.splitlines() if "[PT101]" in ln)
    assert ": error: " in line and line.endswith("(error on gfx942; PT101 is a warning by default)")
    (tmp_path / "proj" / ".porter.toml").write_text('severity = { PT104 = "info" }\n')
    rc, out, _ = run_cli("check", "proj", cwd=tmp_path)
    line = next(ln for ln in out.splitlines() if "[PT104]" in ln)
    assert ": info: " in line and "info: set in " in line


def test_same_findings_in_every_port_mode(tmp_path):
    _example(tmp_path)

    def codes(text: str) -> list[str]:
        return sorted(
            ln.split("[")[-1].split("]")[0]
            for ln in text.splitlines()
            if ln.startswith(("proj/", "CMake", "src/", "include/")) and "[PT" in ln
        )

    check = codes(run_cli("check", "proj", cwd=tmp_path)[1])
    diff = codes(run_cli("port", "proj", "--diff", "--no-fix", cwd=tmp_path)[2])
    tree = codes(run_cli("port", "proj", "-o", "out", "--no-fix", cwd=tmp_path)[1])
    inplace = codes(run_cli("port", "proj", "--in-place", "--no-fix", cwd=tmp_path)[1])
    assert any(c.startswith("PT9") for c in inplace)  # build files are not dropped
    assert diff == tree == inplace
    source = [c for c in check if not c.startswith("PT9")]  # port rewrites build files
    assert source == [c for c in tree if not c.startswith("PT9")]


def test_diff_with_a_machine_format_writes_the_report_to_stdout(tmp_path):
    _example(tmp_path)
    rc, out, err = run_cli("port", "proj", "--diff", "--format", "json", cwd=tmp_path)
    doc = json.loads(out)
    diffs = {f["path"]: f.get("diff", "") for f in doc["files"]}
    assert "+#include <hip/hip_runtime.h>" in diffs["proj/src/saxpy.cu"]
    assert "{" not in err


def test_project_headers_and_version_guards_are_one_finding_each(tmp_path):
    (tmp_path / "Common").mkdir()
    (tmp_path / "Common" / "nvrtc_helper.h").write_text("#pragma once\n")
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "k.cu").write_text(
        "#include <cuda_runtime.h>\n#include <nvrtc_helper.h>\n"
        "#if CUDART_VERSION >= 11000\nint x;\n#endif\n"
    )
    rc, out, _ = run_cli("check", ".", cwd=tmp_path)
    found = [ln for ln in out.splitlines() if ln.startswith("s/k.cu:")]
    assert len(found) == 1 and "[PT304]" in found[0], out
    assert "left unconverted: 0; unsupported on HIP: 0" in out


def test_project_header_of_the_git_repository_is_not_unconverted(tmp_path):
    """One file checked on its own (what a pre-commit hook passes): `<nvrtc_helper.h>`, which
    the build finds with `-I Common`, is a header the project ships when git tracks it there;
    outside a repository porter cannot know and reports it."""
    import shutil

    need(shutil.which("git") is not None, "git is not installed")
    (tmp_path / "Common").mkdir()
    (tmp_path / "Common" / "nvrtc_helper.h").write_text("#pragma once\n")
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "k.cu").write_text("#include <cuda_runtime.h>\n#include <nvrtc_helper.h>\n")
    rc, out, _ = run_cli("check", "--no-cache", "s/k.cu", cwd=tmp_path)
    assert "s/k.cu:2:10: warning: include <nvrtc_helper.h>" in out and "[PT001]" in out, out
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    for cmd in (["init", "-q"], ["add", "Common/nvrtc_helper.h", "s/k.cu"]):
        subprocess.run(["git", *cmd], cwd=tmp_path, env=env, check=True, capture_output=True)
    rc, out, _ = run_cli("check", "--no-cache", "s/k.cu", cwd=tmp_path)
    assert rc == 0 and "PT001" not in out and "left unconverted: 0;" in out, out


def test_rule_list_explains_fix_kinds_and_severities():
    rc, out, _ = run_cli("rule", "--all")
    assert rc == 0
    assert "fix: safe" in out and "applied by `porter port`" in out and "--unsafe-fixes" in out
    assert "per target" in out and '"Fix safety"' in out
    rc, out, _ = run_cli("rule", "PT104")
    assert rc == 0 and "fix: safe" in out and "\n## Fix safety\nSafe. " in out


def test_help_documents_exit_codes():
    for cmd in (["--help"], ["check", "--help"], ["port", "--help"], ["review", "--help"]):
        rc, out, _ = run_cli(*cmd)
        assert rc == 0 and "exit codes (check, port --check, review):" in out
        assert "  2    usage, configuration, input or internal error" in out


def test_rules_markdown_has_one_linkable_section_per_rule():
    """`porter rule --all --format markdown --full` (docs/rules.md) has a `## CODE name`
    section per rule: the anchor reports link to (helpUri, Markdown)."""
    from porter.commands import rules_markdown
    from porter.report import rule_anchor
    from porter.rules.registry import all_rules

    text = rules_markdown(all_rules())
    for r in all_rules():
        assert f"\n## {r.code} {r.name}\n" in text
        assert "\n### What it finds\n" in text.split(f"\n## {r.code} {r.name}\n")[1]
        assert rule_anchor(r.code, r.name) == f"{r.code}-{r.name}".lower()
    shipped = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text()
    assert shipped.startswith("# porter rules\n") and "\n## PT101 warp-size-literal\n" in shipped


def test_docs_rules_md_is_up_to_date():
    """docs/rules.md is exactly what the registry generates: a rule's docstring, severity or fix
    kind changed without regenerating the page fails here."""
    from porter.commands import rules_markdown
    from porter.rules.registry import all_rules

    shipped = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text()
    assert shipped == rules_markdown(all_rules()), (
        "docs/rules.md is out of date: regenerate it with "
        "`porter rule --all --format markdown --full > docs/rules.md`"
    )
    rc, out, _ = run_cli("rule", "--all", "--format", "markdown", "--full")
    assert rc == 0 and out == shipped  # the command the page names is its generator


def test_cli_choices_match_the_modules_that_implement_them():
    """The parser spells the formats and review filter modes out (importing the report and
    review modules would cost every start-up); they must stay the ones those modules know."""
    import argparse

    from porter.cli import build_parser
    from porter.report import FORMATS
    from porter.review import FILTER_MODES

    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for cmd in ("check", "port", "review"):
        fmt = next(a for a in subs.choices[cmd]._actions if "--format" in a.option_strings)
        assert tuple(fmt.choices) == FORMATS, cmd
    mode = next(a for a in subs.choices["review"]._actions if "--filter-mode" in a.option_strings)
    assert tuple(mode.choices) == FILTER_MODES
