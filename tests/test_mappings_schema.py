"""Every mapping table loads, validates and fits in one index without contradictions."""
from __future__ import annotations

from pathlib import Path

import pytest

from porter.mappings.index import MappingIndex, read_table, tables_dir, validate_rows

TABLES = sorted(tables_dir().glob("*.csv"))


@pytest.fixture(scope="module")
def all_rows():
    return {f.stem: read_table(f) for f in TABLES}


def test_tables_exist():
    assert TABLES, "no mapping tables found"


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.name)
def test_table_is_valid(path: Path):
    rows = read_table(path)
    assert rows, f"{path.name} is empty"
    problems = validate_rows(rows, path.name)
    assert not problems, "\n".join(problems[:50])


def test_index_builds(all_rows):
    idx = MappingIndex.build(all_rows)
    assert sum(len(r) for r in idx.areas.values()) == sum(len(r) for r in all_rows.values())


def _meaning(r):
    return (r.hip, r.roc, r.status, r.transform)


def test_no_contradiction_across_areas(all_rows):
    """A CUDA name in two area files is an error unless the rows agree."""
    seen: dict[tuple[str, str, str], tuple[str, tuple]] = {}
    problems = []
    for area, rows in sorted(all_rows.items()):
        for r in rows:
            space = "header" if r.kind in ("header", "header_dir") else "name"
            key = (space, r.cuda, r.hip_since)
            if key in seen and seen[key][0] != area and seen[key][1] != _meaning(r):
                problems.append(f"{r.cuda} (hip_since {r.hip_since or '-'}): {seen[key][0]} says "
                                f"{seen[key][1]}, {area} says {_meaning(r)}")
            seen.setdefault(key, (area, _meaning(r)))
    assert not problems, "\n".join(problems[:50])
