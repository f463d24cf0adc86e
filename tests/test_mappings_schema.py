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
                problems.append(
                    f"{r.cuda} (hip_since {r.hip_since or '-'}): {seen[key][0]} says "
                    f"{seen[key][1]}, {area} says {_meaning(r)}"
                )
            seen.setdefault(key, (area, _meaning(r)))
    assert not problems, "\n".join(problems[:50])


# C/C++ keywords and fundamental types, and names HIP itself declares with the CUDA meaning: a
# non-identity row for one of them would make porter rewrite or report every file that uses it
CXX_WORDS = frozenset(
    """
    alignas alignof asm auto bool break case catch char char8_t char16_t char32_t class concept
    const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
    default delete do double dynamic_cast else enum explicit export extern false float for friend
    goto if inline int long mutable namespace new noexcept nullptr operator private protected
    public register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid typename
    union unsigned using virtual void volatile wchar_t while
    restrict _Bool _Complex _Static_assert size_t ptrdiff_t nullptr_t assert
    __restrict__ __restrict __inline__ __inline __volatile__ __asm__ __attribute__ __extension__
""".split()
)
HIP_BUILTIN_NAMES = frozenset(
    """
    warpSize threadIdx blockIdx blockDim gridDim dim3
""".split()
)


def test_no_keyword_or_hip_builtin_rows(all_rows):
    bad = [
        f"{area}.csv: {r.cuda} -> {r.hip or '(' + r.status + ')'}"
        for area, rows in sorted(all_rows.items())
        for r in rows
        if (r.cuda in CXX_WORDS or r.cuda in HIP_BUILTIN_NAMES) and r.hip != r.cuda
    ]
    assert not bad, "rows for C/C++ words or HIP built-in names:\n" + "\n".join(bad)
