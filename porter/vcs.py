"""Git for review mode: the merge base of a pull request and the lines it changes.

git runs as a subprocess (the user's own git, with the repository's settings); its unified diff
is parsed with `unidiff`. Nothing here writes to the repository.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .exits import UsageError


class VcsError(UsageError):
    """A git problem the user can fix (no repository, unknown base, shallow history): exit 2."""


@dataclass
class ChangedFile:
    """One file of the diff, on the new side."""

    path: str  # relative to the repository root (new name)
    old_path: str | None = None  # the old name when renamed
    added: set[int] = field(default_factory=set)  # new-side line numbers added or modified
    context: set[int] = field(default_factory=set)  # new-side lines inside the diff's hunks
    binary: bool = False
    status: str = "modified"  # added | modified | renamed


@dataclass
class Diff:
    root: Path  # the repository's top folder
    base: str  # the merge base (a commit id)
    files: dict[str, ChangedFile] = field(default_factory=dict)  # by new path
    deleted: list[str] = field(default_factory=list)


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    if shutil.which("git") is None:
        raise VcsError("review needs git, which is not installed")
    env = dict(os.environ, LC_ALL="C", GIT_TERMINAL_PROMPT="0")
    return subprocess.run(
        ["git", "-c", "core.quotePath=false", *args], cwd=cwd, env=env, capture_output=True
    )


def _out(proc: subprocess.CompletedProcess) -> str:
    return proc.stdout.decode("utf-8", "surrogateescape").strip()


def repo_root(cwd: Path) -> Path:
    proc = _git(cwd, "rev-parse", "--show-toplevel")
    if proc.returncode != 0:
        raise VcsError(f"{cwd}: not inside a git repository (review compares git commits)")
    return Path(_out(proc))


def merge_base(root: Path, base: str, head: str = "HEAD") -> str:
    """The merge base of `base` and `head`, as CI checks a pull request out."""
    for ref, what in ((base, "--base"), (head, "HEAD")):
        proc = _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}")
        if proc.returncode != 0:
            if what == "HEAD":
                raise VcsError("the repository has no commit yet (HEAD does not exist)")
            hint = ""
            if is_shallow(root):
                hint = (
                    " (a shallow clone: fetch the base branch, e.g. actions/checkout with "
                    "fetch-depth: 0)"
                )
            raise VcsError(f"--base {base}: no such commit, branch or tag in this repository{hint}")
    proc = _git(root, "merge-base", base, head)
    if proc.returncode != 0:
        if is_shallow(root):
            raise VcsError(
                f"--base {base}: no merge base with HEAD in this shallow clone; fetch "
                "more history (actions/checkout with fetch-depth: 0, or "
                "`git fetch --unshallow`)"
            )
        raise VcsError(f"--base {base}: no common history with HEAD")
    return _out(proc)


def is_shallow(root: Path) -> bool:
    return _out(_git(root, "rev-parse", "--is-shallow-repository")) == "true"


def tracked_files(root: Path) -> list[str]:
    """The paths git tracks, relative to the repository root."""
    proc = _git(root, "ls-files", "-z")
    if proc.returncode != 0:
        return []
    return [p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


#: Environment variables that change where git finds a repository (git's "ENVIRONMENT
#: VARIABLES" documentation): with any of them set, porter asks git itself for every folder.
_DISCOVERY_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_COMMON_DIR",
)


def _git_marker(folder: str) -> str | None:
    """The nearest folder at or above `folder` (absolute) holding a `.git` entry (a repository,
    or the `.git` file of a worktree or submodule), or None. git finds a repository only
    through such an entry, unless the environment says otherwise (_DISCOVERY_ENV)."""
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


@functools.lru_cache(maxsize=256)
def _show_toplevel(folder: str) -> Path | None:
    try:
        proc = _git(Path(folder), "rev-parse", "--show-toplevel")
    except (VcsError, OSError):  # git missing, or the folder vanished
        return None
    return Path(_out(proc)) if proc.returncode == 0 else None


def work_tree_of(folder: Path) -> Path | None:
    """The top folder of the git work tree holding `folder`, or None (no git, no repository).
    A folder with no `.git` entry at or above it is in no repository: git is not run for it
    (a tree outside git, as porter's speed benchmark ports, asked git once per folder); the
    folders under one `.git` entry share git's answer, asked once."""
    path = os.path.abspath(folder)
    if any(v in os.environ for v in _DISCOVERY_ENV) or ".git" in Path(path).parts:
        return _show_toplevel.__wrapped__(path)
    marker = _git_marker(path)
    if marker is None:
        return None
    return _show_toplevel(marker)


def tracks(root: Path, include: str) -> bool:
    """Whether git tracks, under `root`, a file that an `#include` of `include` can name
    (`include` itself, or a path ending in `/include`), whichever `-I` folder the build uses.
    git filters its index by pathspec, so a large repository costs one quick call."""
    escaped = "".join("\\" + c if c in "*?[]\\" else c for c in include.lstrip("/"))
    proc = _git(root, "ls-files", "-z", "--", escaped, "*/" + escaped)
    return proc.returncode == 0 and bool(proc.stdout)


def diff_since(root: Path, base_commit: str, paths: list[str] | None = None) -> Diff:
    """The changes from `base_commit` to the working tree (in CI: the pull request's head),
    renames followed. Deleted files are listed apart; binary files are marked."""
    import unidiff

    args = [
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "-M",
        "--unified=3",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        base_commit,
        "--",
    ] + (paths or [])
    proc = _git(root, *args)
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise VcsError(f"git diff failed: {msg[-1] if msg else 'exit ' + str(proc.returncode)}")
    text = proc.stdout.decode("utf-8", "surrogateescape")
    diff = Diff(root, base_commit)
    try:
        patch = unidiff.PatchSet(text)
    except unidiff.UnidiffParseError as exc:
        raise VcsError(f"cannot read git's diff: {exc}") from None
    for pf in patch:
        if pf.is_removed_file:
            diff.deleted.append(_strip(pf.source_file))
            continue
        cf = ChangedFile(pf.path, binary=bool(pf.is_binary_file))
        if pf.is_rename:
            cf.status, cf.old_path = "renamed", _strip(pf.source_file)
        elif pf.is_added_file:
            cf.status = "added"
        for hunk in pf:
            start = hunk.target_start
            cf.context.update(range(start, start + hunk.target_length))
            cf.added.update(
                line.target_line_no
                for line in hunk
                if line.is_added and line.target_line_no is not None
            )
        diff.files[cf.path] = cf
    return diff


def _strip(name: str) -> str:
    return name[2:] if name.startswith(("a/", "b/")) else name
