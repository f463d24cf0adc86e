"""A content-hash cache of `porter check` results: re-runs cost only what changed.

An entry's key hashes everything its result depends on:
- the file's bytes (not its time stamp: a checkout or a touch does not invalidate it) and the
  name it is reported under;
- porter itself: its version and a fingerprint of its own code (each module's size and
  modification time) and of the mapping tables, so that an upgrade or an edited table starts
  afresh;
- the options: target ROCm, offload targets, rules selected, severities, the project-wide
  shim names and --roc plan, and the job's kind.

Entries live in `$PORTER_CACHE_DIR`, else `$XDG_CACHE_HOME/porter/results`, else
`~/.cache/porter/results`, one file per entry in 256 sub-folders. Every write goes to a temporary
file in the same folder and is renamed into place, so concurrent runs never see half an entry;
an unreadable entry counts as a miss. `--no-cache` neither reads nor writes it; `porter clean`
empties it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import pickle
import shutil
import tempfile
from pathlib import Path

CACHE_FORMAT = "porter-results/1"


def cache_dir() -> Path:
    env = os.environ.get("PORTER_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porter" / "results"


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """porter's version, its modules and its mapping tables (size and mtime of each)."""
    from . import __version__
    from .mappings.index import tables_dir

    h = hashlib.sha256(f"{CACHE_FORMAT}:{__version__}".encode())
    package = Path(__file__).resolve().parent
    for folder, pattern in ((package, "**/*.py"), (package, "**/*.json"), (tables_dir(), "*.csv")):
        for p in sorted(folder.glob(pattern)):
            try:
                st = p.stat()
            except OSError:
                continue
            h.update(f"{p.relative_to(folder)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def canonical(value) -> object:
    """A JSON-able form of an options object whose text does not depend on hash order. A
    dataclass field with `metadata={"cache_key": False}` (a hint that changes no result) is left
    out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: canonical(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.metadata.get("cache_key", True)
        }
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if hasattr(value, "__dict__"):
        return {k: canonical(v) for k, v in sorted(vars(value).items())}
    return repr(value)


class ResultCache:
    """Engine results by content hash, for one set of options."""

    def __init__(self, options: object, folder: Path | None = None) -> None:
        self.folder = folder or cache_dir()
        self._root = str(self.folder)
        text = json.dumps(canonical(options), sort_keys=True)
        self.salt = hashlib.sha256(f"{code_fingerprint()}\0{text}".encode()).hexdigest()
        self.hits = 0
        self.misses = 0
        self.writable = True

    def key(self, rel: str, kind: str, context: bool, digest: bytes) -> str:
        """The entry of one file: `digest` is the SHA-256 of its bytes."""
        h = hashlib.sha256(self.salt.encode())
        h.update(f"\0{rel}\0{kind}\0{int(context)}\0".encode("utf-8", "surrogateescape"))
        h.update(digest)
        return h.hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self._root, key[:2], key[2:] + ".pickle")

    def get(self, key: str):
        try:
            with open(self._path(key), "rb") as fh:
                value = pickle.load(fh)
        except (
            OSError,
            pickle.UnpicklingError,
            EOFError,
            AttributeError,
            ImportError,
            IndexError,
            TypeError,
            ValueError,
        ):
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, key: str, value) -> None:
        if not self.writable:
            return
        path = self._path(key)
        folder = os.path.dirname(path)
        try:
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as fh:
                    pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):  # already gone: nothing to clean up
                    os.unlink(tmp)
                raise
        except OSError:
            self.writable = False  # a read-only or full disk only costs speed


def clean(folder: Path | None = None) -> tuple[int, int]:
    """Empty the cache: (entries removed, bytes freed). The mapping tables' index, which
    porter keeps beside it (one file per version of the tables), goes too; the next run
    rebuilds it."""
    from .mappings.index import _cache_dir as index_dir

    folder = folder or cache_dir()
    count = size = 0
    files = list(folder.rglob("*.pickle")) if folder.is_dir() else []
    files += list(index_dir().glob("index-*.pickle"))
    for p in files:
        try:
            size += p.stat().st_size
            p.unlink()
            count += 1
        except OSError:
            continue
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)
    return count, size
