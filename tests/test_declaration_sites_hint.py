"""The pre-pass's hint `PortOptions.no_declaration_sites`: the files it found without a definition
site of any table name (`cuda.project_scan`). The port skips its own search for declarations
there; skipping must change nothing, and the hint must be what the port reads."""

from __future__ import annotations

import pytest
from built_texts import rewrite_sources as _sources

from porter.cache import ResultCache
from porter.engine import EngineOptions
from porter.mappings.index import load_index
from porter.rewrite.cuda import CudaRewriter, PortOptions, project_names, project_scan
from porter.source import SourceFile


@pytest.fixture(scope="module")
def index():
    return load_index()


def _outcome(rewriter: CudaRewriter, rel: str, data: bytes):
    r = rewriter.run(SourceFile(rel, data))
    return (
        [(e.start, e.end, e.text) for e in r.edits.edits],
        [(f.code, f.line, f.col, f.message) for f in r.findings],
        r.stats.to_dict(),
        sorted(r.declared),
    )


def test_skipping_the_search_changes_nothing(index):
    """Every source the pre-pass finds without a site ports the same with the hint as without."""
    plain = CudaRewriter(index, PortOptions())
    hinted = 0
    with_site = 0
    for rel, data in _sources():
        names, site = project_scan(rel, data, index)
        assert names == project_names(rel, data, index)
        if site:
            with_site += 1
            continue
        hint = CudaRewriter(index, PortOptions(no_declaration_sites=frozenset({rel})))
        assert _outcome(hint, rel, data) == _outcome(plain, rel, data), rel
        hinted += 1
    assert hinted > 1000 and with_site > 10


@pytest.mark.parametrize(
    "text",
    [
        b"typedef int cudaStream_t;\nvoid f() { cudaStream_t s; }\n",  # lexical path
        b"struct cudaDeviceProp { int major; };\n"
        b"__global__ void k() {}\nvoid g() { cudaDeviceProp p; k<<<1, 1>>>(); }\n",  # tree path
    ],
)
def test_the_port_reads_the_hint(index, text):
    """A file that defines a table name keeps it; told (wrongly) that it has no site, the port
    takes the name for CUDA's: the hint is what decides, so it must only list files without one."""
    assert project_scan("a.cu", text, index)[1]
    right = _outcome(CudaRewriter(index, PortOptions()), "a.cu", text)
    wrong = _outcome(
        CudaRewriter(index, PortOptions(no_declaration_sites=frozenset({"a.cu"}))), "a.cu", text
    )
    assert right != wrong


def test_no_parse_for_the_search(index, monkeypatch):
    """A file whose names are all plain references is ported without a search for definition
    sites when the hint says it has none: the search is what the hint saves."""
    import porter.rewrite.cuda as cuda

    text = b"void f() { cudaStream_t s; cudaStreamCreate(&s); }\n"
    assert not project_scan("a.cu", text, index)[1]
    calls = []
    real = cuda.project_declaration_sites
    monkeypatch.setattr(cuda, "project_declaration_sites", lambda *a: calls.append(a) or real(*a))
    hint = PortOptions(no_declaration_sites=frozenset({"a.cu"}))
    with_hint = _outcome(CudaRewriter(index, hint), "a.cu", text)
    searched_with_hint = len(calls)
    without = _outcome(CudaRewriter(index, PortOptions()), "a.cu", text)
    assert with_hint == without
    assert searched_with_hint == 0 < len(calls)


def test_the_hint_is_not_part_of_the_cache_key():
    """A file added to the project changes the hint, not the results of the others."""
    a = ResultCache(EngineOptions(port=PortOptions()))
    b = ResultCache(EngineOptions(port=PortOptions(no_declaration_sites=frozenset({"x.cu"}))))
    c = ResultCache(EngineOptions(port=PortOptions(project_names=(("x.cu", frozenset({"n"})),))))
    assert a.salt == b.salt != c.salt
