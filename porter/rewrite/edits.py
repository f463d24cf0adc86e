"""The one edit applier: sort, reject overlaps, splice from the end of the text."""
from __future__ import annotations

from ..findings import Edit


def overlaps(a: Edit, b: Edit) -> bool:
    """True when two edits touch the same bytes. Insertions at the boundary of a replaced span,
    and several insertions at one offset, do not overlap."""
    if a.start == a.end and b.start == b.end:
        return False
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end


class EditSet:
    """Edits accepted so far; a group of edits (one fix) goes in whole or not at all."""

    def __init__(self) -> None:
        self.edits: list[Edit] = []

    def add_group(self, group) -> bool:
        group = list(group)
        for e in group:
            for a in self.edits:
                if overlaps(e, a):
                    return False
        self.edits.extend(group)
        return True

    def __len__(self) -> int:
        return len(self.edits)


def apply(data: bytes, edits) -> bytes:
    """Apply non-overlapping edits; untouched bytes stay identical. Insertions at the same offset
    keep the order in which they were given."""
    edits = list(edits)
    if not edits:
        return data
    ordered = sorted(range(len(edits)), key=lambda i: (edits[i].start, edits[i].end, i))
    out = []
    pos = 0
    for i in ordered:
        e = edits[i]
        if e.start < pos:
            raise ValueError(f"overlapping edit at byte {e.start}")
        out.append(data[pos:e.start])
        out.append(e.text)
        pos = e.end
    out.append(data[pos:])
    return b"".join(out)
