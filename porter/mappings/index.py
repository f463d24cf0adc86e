"""Load, validate and look up the mapping tables.

The CSV files are parsed once and cached as a pickle keyed by the files' names, sizes and
modification times and porter's version, so that porting one small file does not pay for
parsing every table.
"""

from __future__ import annotations

import csv
import gc
import hashlib
import os
import pickle
import tempfile
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import porter

from .. import __version__
from .model import COLUMNS, KINDS, STATUSES, Row, parse_version, valid_transform

CACHE_FORMAT = 5


def tables_dir() -> Path:
    """The mappings/ folder: beside the package in a checkout, inside it when installed."""
    env = os.environ.get("PORTER_MAPPINGS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent.parent
    for cand in (here.parent / "mappings", here / "_tables"):
        if cand.is_dir():
            return cand
    raise FileNotFoundError("porter's mapping tables are missing (mappings/)")


class TableError(ValueError):
    pass


def read_table(path: Path) -> list[Row]:
    area = path.stem
    rows: list[Row] = []
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise TableError(f"{path.name}: columns must be {','.join(COLUMNS)}")
        for lineno, rec in enumerate(reader, start=2):
            try:
                row = Row(area=area, **{k: (rec[k] or "").strip() for k in COLUMNS})
            except TypeError as exc:  # pragma: no cover - malformed line
                raise TableError(f"{path.name}:{lineno}: {exc}") from None
            rows.append(row)
    return rows


def validate_rows(rows: list[Row], name: str) -> list[str]:
    """Schema problems of one table (empty list when it is valid)."""
    problems = []
    seen = set()
    prev_key = None
    for i, r in enumerate(rows, start=2):
        where = f"{name}:{i}"
        if not r.cuda:
            problems.append(f"{where}: empty cuda name")
        if r.kind not in KINDS:
            problems.append(f"{where}: unknown kind {r.kind!r}")
        if r.status not in STATUSES:
            problems.append(f"{where}: unknown status {r.status!r}")
        if not valid_transform(r.transform):
            problems.append(f"{where}: unknown transform {r.transform!r}")
        if r.status == "unsupported" and r.hip:
            problems.append(f"{where}: unsupported row has a hip name")
        if r.status not in ("unsupported", "removed") and not r.hip:
            problems.append(f"{where}: {r.status} row without a hip name")
        if r.roc and not r.hip:
            problems.append(f"{where}: roc name without a hip name")
        try:
            since = parse_version(r.hip_since)
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            since = (0,)
        for col in ("hip_removed", "cuda_removed"):
            text = getattr(r, col)
            try:
                parse_version(text)
            except ValueError as exc:
                problems.append(f"{where}: {col}: {exc}")
        if r.hip_removed:
            if not r.hip:
                problems.append(f"{where}: hip_removed without a hip name")
            elif r.hip_removed and parse_version(r.hip_removed) <= since:
                problems.append(f"{where}: hip_removed {r.hip_removed} not after hip_since")
        if r.cuda_removed and r.status != "removed":
            problems.append(
                f"{where}: cuda_removed {r.cuda_removed} on a {r.status} row "
                "(status must be removed)"
            )
        key = (r.cuda, since)
        if key in seen:
            problems.append(f"{where}: duplicate row for {r.cuda} (hip_since {r.hip_since or '-'})")
        seen.add(key)
        if prev_key is not None and key < prev_key:
            problems.append(f"{where}: rows not sorted ({r.cuda} after {prev_key[0]})")
        prev_key = key
        if not r.source:
            problems.append(f"{where}: no source")
    return problems


def _gone(row: Row) -> Row:
    """The row as it stands for a release after its HIP name's last checked presence."""
    last = row.last_present()
    where = ".".join(map(str, last)) if last else "?"
    why = (
        f"{row.hip} is not in ROCm {row.hip_removed} (the last checked release that has it: "
        f"ROCm {where}); target an older ROCm to keep it"
    )
    return row._replace(
        hip="",
        roc="",
        status="unsupported",
        transform="",
        notes=f"{why}; {row.notes}" if row.notes else why,
    )


@dataclass(eq=False)
class MappingIndex:
    """All rows, by CUDA name; the chosen row depends on the target ROCm version."""

    by_name: dict[str, list[Row]] = field(default_factory=dict)  # identifiers
    headers: dict[str, list[Row]] = field(default_factory=dict)  # include paths
    header_dirs: list[Row] = field(default_factory=list)  # include-path prefixes
    qualified: dict[str, list[Row]] = field(default_factory=dict)  # 'a::b' namespace rows
    areas: dict[str, list[Row]] = field(default_factory=dict)
    newest: tuple[int, ...] = (0,)
    # names worth scanning a file for: every name with a row that is not a plain identity
    relevant: frozenset = frozenset()

    @classmethod
    def build(cls, rows_by_area: dict[str, list[Row]]) -> MappingIndex:
        idx = cls()
        for area, rows in sorted(rows_by_area.items()):
            idx.areas[area] = rows
            for r in rows:
                if r.kind == "header":
                    idx.headers.setdefault(r.cuda, []).append(r)
                elif r.kind == "header_dir":
                    idx.header_dirs.append(r)
                elif "::" in r.cuda:  # a::b names: matched as qualified sequences
                    idx.qualified.setdefault(r.cuda, []).append(r)
                else:
                    idx.by_name.setdefault(r.cuda, []).append(r)
                idx.newest = max(idx.newest, r.since)
        for table in (idx.by_name, idx.headers, idx.qualified):
            for rows in table.values():
                rows.sort(key=lambda r: r.since)
        idx.header_dirs.sort(key=lambda r: (-len(r.cuda), r.since))
        idx.relevant = frozenset(
            name.encode()
            for name, rows in idx.by_name.items()
            if not all(
                r.hip == r.cuda
                and not r.transform
                and r.status == "supported"
                and not r.hip_since
                and not r.hip_removed
                for r in rows
            )
        )
        return idx

    # -- look-ups ---------------------------------------------------------------------------
    @staticmethod
    def pick(rows: list[Row] | None, version: tuple[int, ...] | None) -> Row | None:
        """The row in force for a ROCm version: the newest whose hip_since <= version.

        Returns the oldest row (marked unsupported by the caller) when all are newer, and None
        when there is no row at all. When the row in force names a HIP name that a checked
        release up to *version* no longer has (hip_removed), or whose presence in *version* is
        not known (after the last checked release that has it), the row comes back without a
        HIP name: the CUDA name is left and reported, with the reason in its notes.
        """
        if not rows:
            return None
        if version is None:
            return rows[-1]
        chosen = None
        for r in rows:
            if r.since <= version:
                chosen = r
        if chosen is None:
            return rows[0]
        if chosen.hip_removed and not chosen.present_in(version):
            return _gone(chosen)
        return chosen

    def lookup(self, name: str, version: tuple[int, ...] | None = None) -> Row | None:
        return self.pick(self.by_name.get(name), version)

    def lookup_header(
        self, path: str, version: tuple[int, ...] | None = None
    ) -> tuple[Row, str] | None:
        """(row, new path) for an include path, exact rows first, then directory prefixes."""
        row = self.pick(self.headers.get(path), version)
        if row is not None:
            return row, row.hip
        for r in self.header_dirs:
            if path.startswith(r.cuda) and (version is None or r.since <= version):
                return r, (r.hip + path[len(r.cuda) :]) if r.hip else ""
        return None

    def all_rows(self):
        for rows in self.areas.values():
            yield from rows


def _fingerprint(folder: Path) -> tuple[str, list[Path]]:
    files = sorted(folder.glob("*.csv"))
    h = hashlib.sha256(f"{CACHE_FORMAT}:{__version__}:{folder}".encode())
    for f in files:
        st = f.stat()
        h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:24], files


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "porter"


_LOADED: dict[str, MappingIndex] = {}
# What unpickling a truncated, corrupt or stale cache (written by another version of porter, whose
# classes had other fields or modules) raises: UnpicklingError and EOFError for damaged bytes,
# ValueError for an unknown protocol, AttributeError/ImportError for a moved or renamed class,
# TypeError/IndexError/KeyError when a class's constructor or state no longer fits, OSError for an
# unreadable file. Each means: rebuild from the tables.
_STALE_CACHE_ERRORS = (
    OSError,
    pickle.UnpicklingError,
    EOFError,
    ValueError,
    AttributeError,
    ImportError,
    TypeError,
    IndexError,
    KeyError,
)


def _usable(idx: object) -> bool:
    """Is an unpickled object an index of this version of porter (every field present, rows of
    today's shape)? A cache written by an older porter whose classes had other fields unpickles
    without error yet would fail later."""
    if not isinstance(idx, MappingIndex):
        return False
    state = vars(idx)
    if any(f.name not in state for f in fields(MappingIndex)):
        return False
    for rows in idx.by_name.values():
        return bool(rows) and isinstance(rows[0], Row) and len(rows[0]) == len(Row._fields)
    return True


def _load_pickle(fh) -> Any:
    """pickle.load without the cyclic garbage collector: the index is ~100,000 new objects, none
    of them garbage, that the collector would otherwise walk during the load. In porter's own
    process (porter.OWN_PROCESS) they are also left out of later collections (gc.freeze), which
    would walk them twice more as they age. gc.freeze moves every object alive at the time, the
    caller's too, to a generation never collected: a library user (an editor, a test calling
    process_one) must not get that as a side effect of loading the tables."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.load(fh)
    finally:
        if porter.OWN_PROCESS:
            gc.freeze()
        if enabled:
            gc.enable()


def load_index(folder: Path | None = None, *, use_cache: bool = True) -> MappingIndex:
    folder = folder or tables_dir()
    key, files = _fingerprint(folder)
    if key in _LOADED:
        return _LOADED[key]
    cache = _cache_dir() / f"index-{key}.pickle"
    if use_cache:
        try:
            with open(cache, "rb") as fh:
                idx = _load_pickle(fh)
            if _usable(idx):
                _LOADED[key] = idx
                return idx
        except _STALE_CACHE_ERRORS:
            pass  # a stale or corrupt cache is rebuilt (and overwritten) below
    # equal strings made one object (CSV reading makes one per cell): pickled once and then
    # referenced, the cache is half the size and loads in three quarters of the time
    pool: dict[str, str] = {}
    rows = {
        f.stem: [Row._make(pool.setdefault(v, v) for v in r) for r in read_table(f)] for f in files
    }
    idx = MappingIndex.build(rows)
    if use_cache:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=cache.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(idx, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, cache)
        except OSError:
            pass  # a read-only home only costs speed
    _LOADED[key] = idx
    return idx
