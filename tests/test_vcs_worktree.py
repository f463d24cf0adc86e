"""vcs.work_tree_of: git's own answer, asked once per repository, and never outside one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import need
from helpers import git

from porter import vcs


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch):
    for var in vcs._DISCOVERY_ENV:
        monkeypatch.delenv(var, raising=False)
    vcs._show_toplevel.cache_clear()
    yield
    vcs._show_toplevel.cache_clear()


def _count_git_calls(monkeypatch) -> list[tuple]:
    calls: list[tuple] = []
    real = vcs._git

    def counting(cwd, *args):
        calls.append((cwd, args))
        return real(cwd, *args)

    monkeypatch.setattr(vcs, "_git", counting)
    return calls


def test_a_folder_outside_any_repository_runs_no_git(tmp_path: Path, monkeypatch):
    if vcs._git_marker(str(tmp_path)) is not None:
        pytest.skip(f"{tmp_path} lies inside a git repository")
    calls = _count_git_calls(monkeypatch)
    for sub in ("a", "a/b", "c"):
        (tmp_path / sub).mkdir(parents=True, exist_ok=True)
        assert vcs.work_tree_of(tmp_path / sub) is None
    assert calls == []


def test_work_tree_of_agrees_with_git_and_asks_once_per_repository(tmp_path: Path, monkeypatch):
    need(shutil.which("git") is not None, "git is not installed")
    top = tmp_path / "repo"
    (top / "src/deep/er").mkdir(parents=True)
    git(top, "init", "-q")
    (top / "src/f.cu").write_text("int x;\n")
    git(top, "add", ".")
    git(top, "commit", "-qm", "one")
    nested = top / "third_party/lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    wt = tmp_path / "wt"
    git(top, "worktree", "add", "-q", str(wt))  # its .git is a file
    (wt / "src/deep").mkdir(parents=True, exist_ok=True)
    plain = tmp_path / "plain/x"
    plain.mkdir(parents=True)

    folders = [top, top / "src", top / "src/deep/er", nested, wt, wt / "src/deep", plain]
    calls = _count_git_calls(monkeypatch)
    for folder in folders * 2:
        expected = (
            None if folder == plain else Path(git(folder, "rev-parse", "--show-toplevel").strip())
        )
        assert vcs.work_tree_of(folder) == expected, folder
    # one git call per repository holding a folder (top, nested, the worktree), none for plain/
    assert len(calls) == 3


def test_git_environment_variables_send_every_folder_to_git(tmp_path: Path, monkeypatch):
    need(shutil.which("git") is not None, "git is not installed")
    if vcs._git_marker(str(tmp_path)) is not None:
        pytest.skip(f"{tmp_path} lies inside a git repository")
    repo = tmp_path / "elsewhere"
    repo.mkdir()
    git(repo, "init", "-q")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(work))
    calls = _count_git_calls(monkeypatch)
    assert vcs.work_tree_of(work) == work.resolve()
    assert len(calls) == 1
    shutil.rmtree(repo)
