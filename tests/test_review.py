"""`porter review` on real git repositories made in a temporary folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import need
from helpers import git, validate_json_report, validate_sarif

HAZARD = "  int lane_{v} = threadIdx.x & 31;\n"  # PT101: a lane index for 32-lane warps

BASE_K = (
    "#include <cuda_runtime.h>\n"  # 1
    "__global__ void k(int *out) {\n"  # 2
    + HAZARD.format(v="a")  # 3  old hazard, near the change
    + "  out[0] = lane_a;\n"  # 4
    + "".join(f"  out[{i}] = {i};\n" for i in range(1, 11))  # 5-14
    + HAZARD.format(v="z")  # 15 old hazard, far from it
    + "  out[11] = lane_z;\n}\n"
)
# the change adds a hazard on a new line 5, two lines below the old one (line 3); the far
# hazard moves to line 16, outside the hunk's 3 lines of context (lines 2-8)
NEW_K = BASE_K.replace("  out[0] = lane_a;\n", "  out[0] = lane_a;\n" + HAZARD.format(v="b"))
OTHER = (
    "#include <cuda_runtime.h>\n__global__ void o(int *out) {\n"
    + HAZARD.format(v="c")
    + "  out[0] = lane_c;\n}\n"
)
PORTED = "#include <hip/hip_runtime.h>\nvoid alloc(int **p) {\n  hipMalloc(p, 4);\n}\n"
PORTED_NEW = PORTED.replace("  hipMalloc(p, 4);\n", "  hipMalloc(p, 4);\n  cudaMalloc(p, 8);\n")
RENAMED = (
    "#include <cuda_runtime.h>\n__global__ void r(int *out) {\n  out[0] = 1;\n"
    + "".join(f"  out[{i}] = {i};\n" for i in range(1, 8))
    + "}\n"
)
RENAMED_NEW = RENAMED.replace(
    "  out[0] = 1;\n", "  out[0] = 1;\n" + HAZARD.format(v="d") + "  out[0] = lane_d;\n"
)


def review(cwd: Path, *args: str) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "porter.cli", "review", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    need(shutil.which("git") is not None, "git is not installed")
    root = tmp_path_factory.mktemp("review") / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    files = {
        "src/k.cu": BASE_K,
        "src/other.cu": OTHER,
        "src/ported.hip": PORTED,
        "src/old_name.cu": RENAMED,
        "src/gone.cu": OTHER.replace("o(", "g("),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "src/blob.cu").write_bytes(b"\x00\x01binary\x00")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "src/k.cu").write_text(NEW_K)
    (root / "src/ported.hip").write_text(PORTED_NEW)
    git(root, "mv", "src/old_name.cu", "src/new_name.cu")
    (root / "src/new_name.cu").write_text(RENAMED_NEW)
    git(root, "rm", "-q", "src/gone.cu")
    (root / "src/blob.cu").write_bytes(b"\x00\x02binary\x00" + bytes(range(256)))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "change")
    # main moves on after the branch point: review compares with the merge base, not main
    git(root, "checkout", "-q", "main")
    (root / "src/later.cu").write_text(OTHER.replace("o(", "later("))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "main moves on")
    git(root, "checkout", "-q", "feature")
    return root


def found(stdout: str) -> set[tuple[str, int, str]]:
    doc = json.loads(stdout)
    return {(f["path"], f["line"], f["code"]) for f in doc["findings"]}


ADDED = {("src/k.cu", 5, "PT101"), ("src/ported.hip", 4, "PT006"), ("src/new_name.cu", 4, "PT101")}
CONTEXT = ADDED | {("src/k.cu", 3, "PT101")}
FILE = CONTEXT | {("src/k.cu", 16, "PT101")}
NOFILTER = FILE | {("src/other.cu", 3, "PT101")}


@pytest.mark.parametrize(
    "mode,expected",
    [("added", ADDED), ("diff_context", CONTEXT), ("file", FILE), ("nofilter", NOFILTER)],
)
def test_filter_modes_report_exactly(repo, mode, expected):
    rc, out, err = review(repo, "--base", "main", "--filter-mode", mode, "--format", "json")
    assert rc == 1, err
    assert found(out) == expected
    doc = json.loads(out)
    validate_json_report(doc)
    in_diff = {(f["path"], f["line"]) for f in doc["findings"] if f["in_diff"]}
    assert in_diff == {(p, n) for p, n, _ in ADDED}
    assert doc["review"]["filter_mode"] == mode
    assert doc["review"]["merge_base"] == git(repo, "merge-base", "main", "HEAD").strip()


def test_renamed_deleted_and_binary_files(repo):
    rc, out, _ = review(repo, "--base", "main", "--format", "json")
    doc = json.loads(out)
    assert "src/new_name.cu" in doc["review"]["changed_files"]
    assert "src/old_name.cu" not in doc["review"]["changed_files"]
    assert doc["review"]["deleted_files"] == ["src/gone.cu"]
    assert {"path": "src/blob.cu", "reason": "binary file"} in doc["skipped"]
    assert not any(f["path"] in ("src/gone.cu", "src/later.cu") for f in doc["findings"])


def test_default_mode_is_added_and_paths_limit_the_review(repo):
    rc, out, _ = review(repo, "--base", "main", "--format", "json")
    assert found(out) == ADDED
    rc, out, _ = review(repo, "--base", "main", "--format", "json", "src/k.cu")
    assert found(out) == {("src/k.cu", 5, "PT101")}
    # from a subfolder, paths open from there
    rc, out, _ = review(repo / "src", "--base", "main", "--format", "json", ".")
    assert ("k.cu", 5, "PT101") in found(out)


def test_formats_github_markdown_sarif(repo):
    rc, out, _ = review(repo, "--base", "main", "--format", "github")
    assert rc == 1
    assert "::warning file=src/k.cu,line=5,col=16,title=PT101 warp-size-literal::" in out
    assert "::error file=src/ported.hip,line=4,col=3,title=PT006 cuda-api-in-ported-code::" in out
    assert out.count("\n") == len(ADDED) + 1  # one annotation each, then the summary
    assert out.splitlines()[-1].startswith("::notice title=porter summary::")
    assert "; effort: " in out.splitlines()[-1] and "manual work left: " in out
    rc, out, _ = review(repo, "--base", "main", "--format", "markdown")
    assert out.startswith("## porter review")
    assert out.count("<details>") == 3 and out.count("</details>") == 3
    assert "<summary><code>src/ported.hip</code>: 1 error</summary>" in out
    assert "5 |   int lane_b = threadIdx.x & 31;" in out
    # the effort estimate, and no fix line when no reported finding has a fix (PT101, PT006)
    assert "Effort: porter converts " in out and "manual work (" in out
    assert "`porter port` fixes" not in out
    rc, out, _ = review(repo, "--base", "main", "--format", "sarif")
    validate_sarif(json.loads(out))
    assert json.loads(out)["runs"][0]["invocations"][0]["exitCode"] == 1
    results = json.loads(out)["runs"][0]["results"]
    assert {
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["ruleId"],
        )
        for r in results
    } == ADDED


def test_suppressed_and_clean_changes_exit_0(repo, tmp_path):
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    git(clone, "checkout", "-q", "-b", "fix", "origin/main")
    k = clone / "src/k.cu"
    suppressed = "  int lane_b = threadIdx.x & 31;  // porter: ignore[PT101]\n"
    k.write_text(k.read_text().replace("  out[0] = lane_a;\n", "  out[0] = lane_a;\n" + suppressed))
    rc, out, err = review(clone, "--base", "origin/main", "--format", "json")
    assert rc == 0 and found(out) == set(), err  # uncommitted changes are reviewed too
    rc, out, err = review(clone, "--base", "origin/main", "--fail-level", "error")
    assert rc == 0


def test_shallow_clone(repo, tmp_path):
    url = repo.as_uri()
    deep = tmp_path / "deep"
    git(
        tmp_path,
        "clone",
        "-q",
        "--depth",
        "2",
        "--no-single-branch",
        "-b",
        "feature",
        url,
        str(deep),
    )
    rc, out, err = review(deep, "--base", "origin/main", "--format", "json")
    assert rc == 1 and found(out) == ADDED, err
    shallow = tmp_path / "shallow"
    git(
        tmp_path,
        "clone",
        "-q",
        "--depth",
        "1",
        "--no-single-branch",
        "-b",
        "feature",
        url,
        str(shallow),
    )
    rc, out, err = review(shallow, "--base", "origin/main")
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "shallow clone" in err and "fetch-depth: 0" in err


def test_bad_base_and_no_repository(repo, tmp_path):
    rc, out, err = review(repo, "--base", "no-such-branch")
    assert rc == 2 and out == ""
    assert (
        err == "porter: error: --base no-such-branch: no such commit, branch or tag in this "
        "repository\n"
    )
    (tmp_path / "k.cu").write_text(OTHER)
    rc, out, err = review(tmp_path, "--base", "main")
    assert rc == 2 and err.count("\n") == 1 and "not inside a git repository" in err


def test_example_workflow_runs_a_real_review_command():
    import shlex

    import yaml

    from porter.cli import build_parser

    doc = yaml.safe_load(
        (Path(__file__).resolve().parent.parent / "docs" / "porter-review.yml").read_text()
    )
    steps = doc["jobs"]["review"]["steps"]
    run = next(s["run"] for s in steps if "porter review" in s.get("run", ""))
    argv = shlex.split(run.replace("${{ github.base_ref }}", "main"))
    args = build_parser().parse_args(argv[1:])
    assert args.command == "review" and args.base == "origin/main"
    assert {Path(r).suffix for r in args.report} == {".sarif", ".md"}
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps)
    assert steps[0]["with"]["fetch-depth"] == 0


def test_macros_of_included_project_headers_are_known(tmp_path):
    need(shutil.which("git") is not None, "git is not installed")
    root = tmp_path / "r"
    (root / "include" / "lib").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "include" / "lib" / "check.cuh").write_text(
        "#pragma once\n#define CUDA_CHECK(x) do { (void)(x); } while (0)\n"
    )
    (root / "src" / "a.hip").write_text(
        '#include <hip/hip_runtime.h>\n#include "lib/check.cuh"\nvoid f(int *p) {\n}\n'
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    (root / "src" / "a.hip").write_text(
        '#include <hip/hip_runtime.h>\n#include "lib/check.cuh"\nvoid f(int *p) {\n'
        "  CUDA_CHECK(hipFree(p));\n}\n"
    )
    rc, out, err = review(root, "--base", "main", "--format", "json")
    assert rc == 0 and found(out) == set(), out + err


def test_markdown_words_and_fences():
    from porter.report.markdown import _fence, _plural

    assert [_plural(1, "error"), _plural(2, "error"), _plural(2, "info"), _plural(1, "point")] == [
        "1 error",
        "2 errors",
        "2 info",
        "1 point",
    ]
    assert [_fence(p) for p in ("a/k.cu", "CMakeLists.txt", "x/y.cmake", "Makefile", "m.py")] == [
        "cpp",
        "cmake",
        "cmake",
        "makefile",
        "python",
    ]


def test_markdown_names_the_fixes_of_the_reported_findings(tmp_path):
    need(shutil.which("git") is not None, "git is not installed")
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    k = root / "k.cu"
    k.write_text("__global__ void k(int *o, bool p) {\n  o[0] = 1;\n}\n")
    git(root, "add", "k.cu")
    git(root, "commit", "-q", "-m", "base")
    # PT104 (safe fix) and PT105 (safe fix: `vote` is only stored)
    k.write_text(
        "__global__ void k(int *o, bool p) {\n"
        "  unsigned vote = __ballot_sync(0xffffffff, p);\n  o[0] = vote;\n}\n"
    )
    rc, out, err = review(root, "--base", "main", "--format", "markdown")
    assert rc == 1, err
    assert "**2 errors** on added or modified lines" in out
    assert "`porter port` fixes 2 of them." in out and "--unsafe-fixes" not in out


def test_build_file_changes_are_checked_like_check_does(tmp_path):
    """A change that adds `enable_language(CUDA)` to a CMakeLists.txt is reported (PT901), as
    `porter check` reports it; the build port must not absorb it."""
    need(shutil.which("git") is not None, "git is not installed")
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    cm = root / "CMakeLists.txt"
    cm.write_text("cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX)\n")
    git(root, "add", "CMakeLists.txt")
    git(root, "commit", "-q", "-m", "base")
    cm.write_text(cm.read_text() + "enable_language(CUDA)\n")
    rc, out, err = review(root, "--base", "main", "--format", "json")
    assert rc == 1, err
    assert found(out) == {("CMakeLists.txt", 3, "PT901")}
    check = subprocess.run(
        [sys.executable, "-m", "porter.cli", "check", "--format", "json", "CMakeLists.txt"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert found(check.stdout) == found(out)
