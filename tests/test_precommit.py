"""The pre-commit hooks, run by the real `pre-commit` in real git repositories.

pre-commit installs a hook repository from a git commit, so the session first makes a throwaway
repository holding the current working tree of this checkout (committed or not) and points the
test repositories' `.pre-commit-config.yaml` at it. PRE_COMMIT_HOME is one temporary folder for
the session: porter's hook environment is built once.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, need
from helpers import git_env

HAZARD = """#include <cuda_runtime.h>
__global__ void k(int *out) {
  int lane = threadIdx.x & 31;
  out[lane] = __shfl_down_sync(0xffffffff, lane, 1);
}
"""
SUPPRESSED = """#include <cuda_runtime.h>
__global__ void k(int *out) {
  // porter: ignore[PT101]
  int lane = threadIdx.x & 31;
  out[lane] = __shfl_down_sync(0xffffffff, lane, 1);  // porter: ignore[PT104]
}
"""
CLEAN = """#include <hip/hip_runtime.h>
__global__ void k(float *out, float a) { out[threadIdx.x] *= a; }
"""


def _git(cwd: Path, *args: str, env: dict | None = None, check: bool = True):
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=check, text=True, capture_output=True
    )


def _tools() -> None:
    need(shutil.which("git") is not None, "git is not installed")
    need(shutil.which("pre-commit") is not None, "pre-commit is not installed (test extra)")


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """A git repository with this checkout's working tree in one commit: (path, commit)."""
    _tools()
    dst = tmp_path_factory.mktemp("porter-hook-src")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    for rel in filter(None, listed.decode("utf-8", "surrogateescape").split("\0")):
        src = ROOT / rel
        if not src.is_file() or rel.startswith(("fixtures/", "benchmarks/", "tests/")):
            continue
        (dst / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst / rel)
    env = _git_env()
    _git(dst, "init", "-q", env=env)
    _git(dst, "add", "-A", env=env)
    _git(dst, "commit", "-q", "-m", "porter under test", env=env)
    return dst, _git(dst, "rev-parse", "HEAD", env=env).stdout.strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _git_env(home: Path | None = None) -> dict:
    return git_env() if home is None else git_env(PRE_COMMIT_HOME=str(home))


def _project(tmp_path: Path, hook_repo, hooks: str) -> tuple[Path, dict]:
    path, rev = hook_repo
    repo = tmp_path / "project"
    repo.mkdir()
    env = _git_env()
    _git(repo, "init", "-q", env=env)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {path}\n  rev: {rev}\n  hooks:\n{hooks}"
    )
    _git(repo, "add", ".pre-commit-config.yaml", env=env)
    _git(repo, "commit", "-q", "-m", "config", "--no-verify", env=env)
    return repo, env


def _install(repo: Path, env: dict) -> None:
    r = subprocess.run(["pre-commit", "install"], cwd=repo, env=env, text=True, capture_output=True)
    assert r.returncode == 0, r.stdout + r.stderr


def _commit(repo: Path, env: dict, name: str, text: str):
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(text)
    _git(repo, "add", name, env=env)
    return _git(repo, "commit", "-m", f"add {name}", env=env, check=False)


def test_porter_check_hook_blocks_hazards_and_passes_clean_and_suppressed(
    tmp_path, hook_repo, pre_commit_home
):
    repo, env = _project(tmp_path, hook_repo, "  - id: porter-check\n")
    env["PRE_COMMIT_HOME"] = str(pre_commit_home)
    _install(repo, env)

    bad = _commit(repo, env, "src/warp.cu", HAZARD)
    out = bad.stdout + bad.stderr
    assert bad.returncode != 0, out
    assert "src/warp.cu:3:" in out and "[PT101]" in out, out
    assert _git(repo, "rev-list", "--count", "HEAD", env=env).stdout.strip() == "1"
    _git(repo, "reset", "-q", env=env)  # unstage the refused file (the test's own repo)
    (repo / "src/warp.cu").unlink()

    good = _commit(repo, env, "src/scale.hip", CLEAN)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "porter check" in good.stdout + good.stderr

    quiet = _commit(repo, env, "src/warp2.cu", SUPPRESSED)
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr
    assert _git(repo, "rev-list", "--count", "HEAD", env=env).stdout.strip() == "3"


def test_porter_port_check_hook_fails_on_a_stale_hip_tree(tmp_path, hook_repo, pre_commit_home):
    hooks = "  - id: porter-port-check\n    pass_filenames: false\n    args: [cuda, -o, hip]\n"
    repo, env = _project(tmp_path, hook_repo, hooks)
    env["PRE_COMMIT_HOME"] = str(pre_commit_home)
    (repo / "cuda").mkdir()
    (repo / "cuda/k.cu").write_text(HAZARD.replace("threadIdx.x & 31", "threadIdx.x % warpSize"))
    from porter.cli import main

    assert main(["port", str(repo / "cuda"), "-o", str(repo / "hip"), "-q"]) in (0, 1)
    _git(repo, "add", "cuda", "hip", env=env)
    _git(repo, "commit", "-q", "-m", "port", "--no-verify", env=env)
    run = ["pre-commit", "run", "--all-files", "porter-port-check"]
    fresh = subprocess.run(run, cwd=repo, env=env, text=True, capture_output=True)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr

    (repo / "cuda/k.cu").write_text(
        CLEAN.replace("hip/hip_runtime.h", "cuda_runtime.h")
        + "void f() { cudaDeviceSynchronize(); }\n"
    )
    _git(repo, "add", "cuda", env=env)
    stale = subprocess.run(run, cwd=repo, env=env, text=True, capture_output=True)
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "would update hip/k.cu" in stale.stdout + stale.stderr


def test_hook_manifest_is_valid_for_pre_commit():
    _tools()
    r = subprocess.run(
        ["pre-commit", "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
