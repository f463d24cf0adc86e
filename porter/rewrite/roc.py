"""`--roc` planning: which libraries a project moves to rocBLAS/rocRAND/rocSPARSE... as a whole."""

from __future__ import annotations

from collections.abc import Iterable

from ..mappings.index import MappingIndex
from ..mappings.model import Row
from .lex import identifiers

# Libraries that go to roc* together or not at all: rocSOLVER takes rocBLAS's handle and enums
# (rocsolver.h: rocblas_handle, rocblas_fill...) while hipSOLVER takes hipBLAS's
# (hipsolver-types.h: `typedef hipblasFillMode_t hipsolverFillMode_t`), so the cuBLAS enums a
# project passes to cuSOLVER calls (CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N) must come from the
# family its solver calls use.
TIED_AREAS: tuple[frozenset[str], ...] = (frozenset({"blas", "solver"}),)


def roc_area(row: Row) -> str:
    """The library area a roc* name belongs to: the row's area, or for a header row the area
    its roc* folder names (rocblas/rocblas.h -> blas)."""
    if row.kind in ("header", "header_dir") and row.roc.startswith("roc"):
        return row.roc.split("/")[0][3:]
    return row.area


def roc_plan(
    index: MappingIndex, files: Iterable[bytes], version: tuple[int, ...]
) -> tuple[frozenset[str], dict[str, list[str]]]:
    """Decide, for the whole project, which libraries --roc moves to rocBLAS/rocRAND/rocSPARSE...

    A library goes to roc* only if every name of it that the project uses has a one-to-one
    roc* equivalent; otherwise it stays on the hip* wrapper (mixing rocblas_handle with hipBLAS
    calls would not compile). Returns (areas, {area: names without a roc* equivalent})."""
    capable = {
        a
        for a, rows in index.areas.items()
        if any(r.roc for r in rows) and not all(r.kind in ("header", "header_dir") for r in rows)
    }
    used: set[bytes] = set()
    for data in files:
        used |= identifiers(data)
    blockers: dict[str, list[str]] = {}
    used_areas: set[str] = set()
    for name in sorted(n.decode() for n in used):
        rows = index.by_name.get(name)
        if not rows:
            continue
        row = MappingIndex.pick(rows, version)
        if row is None:  # pick() returns a row for a non-empty list
            continue
        if row.hip:
            used_areas.add(row.area)
        if row.area in capable and row.hip and not row.roc:
            blockers.setdefault(row.area, []).append(name)
    for group in TIED_AREAS:
        together = group & used_areas
        held = sorted(n for a in sorted(together) for n in blockers.get(a, []))
        if len(together) > 1 and held:
            # one of them stays on hip*: the others stay with it, for the names that hold it
            for a in sorted(together):
                blockers[a] = sorted(set(blockers.get(a, [])) | set(held))
    return frozenset(capable - set(blockers)), blockers
