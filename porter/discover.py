"""Walk the input paths: which files to port, which to copy, which to skip (and why)."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

from .source import CUDA_EXTS

ALWAYS_SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".porter-backup", "__pycache__"})
PYTHON_EXTS = frozenset({".py"})
BUILD_NAMES = frozenset({"cmakelists.txt", "makefile", "gnumakefile"})
BUILD_EXTS = frozenset({".cmake", ".mk"})


class InputError(Exception):
    """Bad input: reported as one line on stderr, exit code 2."""


@dataclass
class Entry:
    path: Path  # absolute path of the file
    rel: str  # path relative to the input root (posix), or the file name
    kind: str  # "cuda" | "build" | "python" | "other" | "symlink"
    link_target: str = ""  # for symlinks kept as links
    root: Path | None = None  # the input folder it was found under (None: a single-file input)


@dataclass
class Discovery:
    root: Path | None  # the input folder (None for single-file inputs)
    entries: list[Entry] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (rel path, reason)
    dirs: list[str] = field(default_factory=list)  # relative folders, to mirror


def classify(name: str, extensions: frozenset[str]) -> str:
    ext = os.path.splitext(name)[1].lower()
    if name.lower() in BUILD_NAMES or ext in BUILD_EXTS:
        return "build"
    if ext in extensions:
        return "cuda"
    if ext in PYTHON_EXTS:
        return "python"
    return "other"


def _excluded(rel: str, patterns: tuple[str, ...]) -> bool:
    for p in patterns:
        if (
            fnmatch.fnmatch(rel, p)
            or fnmatch.fnmatch(os.path.basename(rel), p)
            or rel.startswith(p.rstrip("/") + "/")
        ):
            return True
    return False


def discover(
    path: Path,
    *,
    extensions: frozenset[str] = CUDA_EXTS,
    exclude: tuple[str, ...] = (),
    skip_dirs: tuple[Path, ...] = (),
) -> Discovery:
    """Files under `path` (a file or a folder). Symbolic links are never followed: a link to a
    file inside the tree is kept as a link; links to folders, links leaving the tree, dangling
    links and loops are skipped with a reason."""
    if not os.path.lexists(path):
        raise InputError(f"{path}: no such file or directory")
    if path.is_file() and path.name.lower().endswith(".ipynb"):
        return Discovery(None, [], [(path.name, "Jupyter notebook: not read (export it to .py)")])
    if path.is_file() and not path.is_symlink():
        return Discovery(None, [Entry(path.resolve(), path.name, classify(path.name, extensions))])
    if path.is_symlink() and path.is_file():
        real = path.resolve()
        return Discovery(None, [Entry(real, path.name, classify(path.name, extensions))])
    if not path.is_dir():
        raise InputError(f"{path}: not a regular file or folder")
    root = path.resolve()
    skip_real = {p.resolve() for p in skip_dirs}
    disc = Discovery(root)
    stack = [(root, "")]
    while stack:
        folder, rel_folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                items = sorted(it, key=lambda e: e.name)
        except PermissionError:
            disc.skipped.append((rel_folder or ".", "permission denied"))
            continue
        except OSError as exc:
            disc.skipped.append((rel_folder or ".", exc.strerror or str(exc)))
            continue
        subdirs = []
        for e in items:
            rel = f"{rel_folder}/{e.name}" if rel_folder else e.name
            if _excluded(rel, exclude):
                continue
            if e.is_symlink():
                target = os.readlink(e.path)
                try:
                    real = Path(e.path).resolve(strict=True)
                except (OSError, RuntimeError):
                    disc.skipped.append((rel, "symbolic link loop or dangling link (not followed)"))
                    continue
                if root not in real.parents and real != root:
                    disc.skipped.append(
                        (rel, "symbolic link pointing outside the tree (not followed)")
                    )
                    continue
                if real.is_dir():
                    disc.skipped.append((rel, "symbolic link to a folder (not followed)"))
                    continue
                disc.entries.append(Entry(Path(e.path), rel, "symlink", target, root))
                continue
            if e.is_dir(follow_symlinks=False):
                if e.name in ALWAYS_SKIP_DIRS:
                    continue
                if Path(e.path).resolve() in skip_real:
                    continue
                subdirs.append((Path(e.path), rel))
                disc.dirs.append(rel)
            elif e.is_file(follow_symlinks=False):
                if e.name.lower().endswith(".ipynb"):
                    disc.skipped.append((rel, "Jupyter notebook: not read (export it to .py)"))
                    continue
                disc.entries.append(
                    Entry(Path(e.path), rel, classify(e.name, extensions), root=root)
                )
            else:
                disc.skipped.append((rel, "not a regular file"))
        stack.extend(reversed(subdirs))
    disc.entries.sort(key=lambda en: en.rel)
    return disc
