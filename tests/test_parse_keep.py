"""parse(..., keep=True): the project pre-pass's tree of a file that defines table names is
taken by the next parse of the same bytes (the port's), once; the trees held stay within their
bounds, and a file's port is the same whether its tree was kept or parsed again."""

from __future__ import annotations

from porter.engine import EngineOptions, process_one
from porter.mappings.index import load_index
from porter.parse import cuda as P
from porter.rewrite.cuda import project_names

COMPAT = b"#pragma once\ntypedef int cudaStream_t;\nvoid f(cudaStream_t s);\n"


def test_a_kept_tree_is_taken_once_by_equal_bytes(monkeypatch):
    monkeypatch.setattr(P, "_kept", {})
    data = b"int main() { return 0; }\n"
    kept = P.parse(data, keep=True)
    assert P.parse(bytes(bytearray(data))) is kept  # equal bytes, another object
    assert P.parse(data) is not kept  # taken once: parsed again
    assert not P._kept


def test_kept_trees_stay_within_bounds(monkeypatch):
    monkeypatch.setattr(P, "_kept", {})
    monkeypatch.setattr(P, "_KEPT_FILES", 3)
    monkeypatch.setattr(P, "_KEPT_BYTES", 100)
    for i in range(6):
        P.parse(b"int x%d;\n" % i, keep=True)
    assert len(P._kept) == 3
    P.parse(b"/*" + b"x" * 200 + b"*/\n", keep=True)  # over the bytes bound: not held
    assert len(P._kept) == 3 and sum(map(len, P._kept)) <= 100


def test_pre_pass_tree_is_the_ports(monkeypatch):
    """project_names keeps the tree it parsed; the port takes it and ports as from a parse."""
    monkeypatch.setattr(P, "_kept", {})
    assert project_names("compat.h", COMPAT, load_index()) == {"cudaStream_t"}
    assert COMPAT in P._kept
    opts = EngineOptions()
    with_kept = process_one("compat.h", COMPAT, opts)
    assert not P._kept  # taken
    parsed = process_one("compat.h", COMPAT, opts)
    assert with_kept.new_data == parsed.new_data
    assert [(f.code, f.line, f.col) for f in with_kept.findings] == [
        (f.code, f.line, f.col) for f in parsed.findings
    ]
