"""`--roc` planning: which libraries a project moves to rocBLAS/rocRAND/rocSPARSE... as a whole."""
from __future__ import annotations

from collections.abc import Iterable

from ..mappings.index import MappingIndex
from ..mappings.model import Row
from .lex import identifiers


def roc_area(row: Row) -> str:
    """The library area a roc* name belongs to: the row's area, or for a header row the area
    its roc* folder names (rocblas/rocblas.h -> blas)."""
    if row.kind in ("header", "header_dir") and row.roc.startswith("roc"):
        return row.roc.split("/")[0][3:]
    return row.area


def roc_plan(index: MappingIndex, files: Iterable[bytes],
             version: tuple[int, ...]) -> tuple[frozenset[str], dict[str, list[str]]]:
    """Decide, for the whole project, which libraries --roc moves to rocBLAS/rocRAND/rocSPARSE...

    A library goes to roc* only if every name of it that the project uses has a one-to-one
    roc* equivalent; otherwise it stays on the hip* wrapper (mixing rocblas_handle with hipBLAS
    calls would not compile). Returns (areas, {area: names without a roc* equivalent})."""
    capable = {a for a, rows in index.areas.items()
               if any(r.roc for r in rows) and not all(r.kind in ("header",
                                                                  "header_dir") for r in rows)}
    used: set[bytes] = set()
    for data in files:
        used |= identifiers(data)
    blockers: dict[str, list[str]] = {}
    for name in sorted(n.decode() for n in used):
        rows = index.by_name.get(name)
        if not rows:
            continue
        row = MappingIndex.pick(rows, version)
        if row is None:                 # pick() returns a row for a non-empty list
            continue
        if row.area in capable and row.hip and not row.roc:
            blockers.setdefault(row.area, []).append(name)
    return frozenset(capable - set(blockers)), blockers
