"""--rocm-version and the two ends of a row (hip_since, hip_removed), on the real tables and on
the index's rule for names a checked release no longer has."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from porter.engine import EngineOptions, process_one
from porter.mappings.index import MappingIndex, load_index, read_table
from porter.mappings.model import CHECKED_ROCM, COLUMNS
from porter.rewrite.cuda import PortOptions
from porter.rules.base import RuleOptions

INDEX = load_index()


def _port(text: str, version: tuple[int, ...]):
    opts = EngineOptions(
        port=PortOptions(rocm_version=version), rules=RuleOptions(), run_rules=False
    )
    return process_one("versions.cu", text.encode(), opts)


def _rows_since(version: str) -> list:
    return [
        r
        for rows in INDEX.by_name.values()
        for r in rows
        if r.hip_since == version and r.kind == "function"
    ]


def test_checked_releases_include_64_72_and_100():
    assert {(6, 4), (7, 2), (10, 0)} <= set(CHECKED_ROCM)


@pytest.mark.parametrize("since", ["10.0", "7.1"])
def test_names_new_in_a_release_are_produced_from_it_only(since):
    """A name first declared by ROCm `since` is rewritten for that release and reported (PT002)
    for the release before it."""
    rows = _rows_since(since)
    assert rows, f"no function rows with hip_since {since}"
    before = max(v for v in CHECKED_ROCM if v < tuple(map(int, since.split("."))))
    text = "".join(f"void f{i}() {{ {r.cuda}(0); }}\n" for i, r in enumerate(rows))
    new = _port(text, tuple(map(int, since.split(".")))).new_data.decode()
    for r in rows:
        assert f"{r.hip}(0)" in new, r.cuda
    old = _port(text, before)
    reported = {f.name for f in old.findings if f.code == "PT002"}
    for r in rows:
        in_force = MappingIndex.pick(INDEX.by_name[r.cuda], before)
        if in_force is not None and in_force.hip and in_force.since <= before:
            continue  # an older row of the name applies there
        assert r.cuda in reported, r.cuda
        assert f"{r.hip}(0)" not in old.new_data.decode(), r.cuda


def test_hipblas_v2_names_for_rocm6():
    """hipBLAS 7.0 dropped the _v2 complex entry points: 6.x keeps them, 7.x takes the plain."""
    text = "void f() { cublasCgemm(h, a, b, m, n, k, al, A, l, B, l, be, C, l); }\n"
    assert "hipblasCgemm_v2(" in _port(text, (6, 4)).new_data.decode()
    assert "hipblasCgemm(" in _port(text, (7, 2)).new_data.decode()


def test_legacy_cusparse_names_map_for_every_release():
    """csrsv2 / gemmi left CUDA after 11.8; hipSPARSE still declares them (every checked
    release), so they map for 6.4, 7.2 and 10.0 alike."""
    rows = {
        r.cuda: r
        for r in read_table(Path(__file__).resolve().parent.parent / "mappings" / "sparse.csv")
    }
    for name in ("cusparseScsrsv2_solve", "cusparseSgemmi", "CUSPARSE_CSRMV_ALG1"):
        assert rows[name].status == "removed" and rows[name].cuda_removed == "12.9"
    text = "void f() { cusparseSgemmi(0); int a = CUSPARSE_CSRMV_ALG1; }\n"
    for v in ((6, 4), (7, 2), (10, 0)):
        out = _port(text, v).new_data.decode()
        assert "hipsparseSgemmi(" in out and "HIPSPARSE_CSRMV_ALG1" in out, v


def _table(tmp_path: Path, rows: list[dict]) -> MappingIndex:
    path = tmp_path / "t.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in COLUMNS})
    return MappingIndex.build({"t": read_table(path)})


def test_removed_hip_name_until_the_last_checked_release(tmp_path):
    """A HIP name present in 6.4 and gone in 7.0: produced up to 6.4, not after it (6.5 lies
    between two checked releases: its presence is not known)."""
    idx = _table(
        tmp_path,
        [
            dict(
                cuda="cuX",
                hip="hipX",
                kind="function",
                status="supported",
                hip_removed="7.0",
                source="test",
            )
        ],
    )
    assert idx.lookup("cuX", (6, 4)).hip == "hipX"
    assert idx.lookup("cuX", (6, 2)).hip == "hipX"
    for v in ((6, 5), (7, 0), (7, 2), (10, 0)):
        row = idx.lookup("cuX", v)
        assert row.hip == "" and "ROCm 7.0" in row.notes and "6.4" in row.notes, v
    assert b"cuX" in idx.relevant


def test_removed_row_with_a_successor(tmp_path):
    idx = _table(
        tmp_path,
        [
            dict(
                cuda="cuY",
                hip="hipY_v2",
                kind="function",
                status="supported",
                hip_removed="7.0",
                source="test",
            ),
            dict(
                cuda="cuY",
                hip="hipY",
                kind="function",
                status="supported",
                hip_since="7.0",
                source="test",
            ),
        ],
    )
    assert idx.lookup("cuY", (6, 4)).hip == "hipY_v2"
    assert idx.lookup("cuY", (7, 0)).hip == "hipY"
    assert idx.lookup("cuY", (10, 0)).hip == "hipY"


def test_help_names_the_checked_releases():
    from porter.cli import build_parser

    text = build_parser().format_help() + "".join(
        a.format_help() for a in build_parser()._subparsers._group_actions[0].choices.values()
    )
    for v in CHECKED_ROCM:
        assert f"{v[0]}.{v[1]}" in text, v
    assert "compiles against 7.2" in text
