"""Call transforms for the roc* name only (`roc:` parts of the transform column): with --roc,
cusolverDn<t>potrf / getrf / sytrf / potri drop their workspace arguments (rocSOLVER takes none)
and their `_bufferSize` queries become `(LWORK = 0, rocblas_status_success)`; without --roc the
same rows keep hipSOLVER's call as written. Calls whose dropped argument may have side effects,
or whose pivot array is a null literal, are reported and left as they are."""

from __future__ import annotations

import pytest

from porter.mappings.index import load_index
from porter.mappings.model import Row, valid_transform
from porter.rewrite.cuda import CudaRewriter, PortOptions
from porter.rewrite.edits import apply
from porter.rewrite.names import target_row
from porter.source import SourceFile

INDEX = load_index()
ROC = PortOptions(add_runtime_include=False, roc=True, roc_areas=frozenset({"blas", "solver"}))
HIP = PortOptions(add_runtime_include=False)
U = "CUBLAS_FILL_MODE_LOWER"


def _port(text: str, options: PortOptions = ROC) -> tuple[str, list]:
    data = text.encode()
    res = CudaRewriter(INDEX, options).run(SourceFile("t.cpp", data))
    return apply(data, res.edits.edits).decode(), res.findings


def test_grammar_and_target_row():
    assert valid_transform("roc:drop_args:5,6")
    assert valid_transform("roc:drop_args:5|roc:nonnull:6")
    assert valid_transform("roc:no_workspace:5")
    assert valid_transform("roc:workspace_of:7:3")
    assert not valid_transform("roc:workspace_of:7")
    assert valid_transform("drop_arg0|roc:drop_args:1")
    # a roc: part takes only the roc-only forms; the hip forms take no roc: prefix
    assert not valid_transform("roc:drop_arg0") and not valid_transform("roc:bogus:1")
    assert not valid_transform("no_workspace:5") and not valid_transform("roc:drop_args:")
    row = Row("f", "hipF", "rocF", "function", "supported", "", "", "", "", "", "", "solver")
    both = row._replace(transform="arity:3-4|roc:drop_args:1|roc:nonnull:2")
    assert target_row(both, roc=True).transform == "drop_args:1|nonnull:2"
    assert target_row(both, roc=False).transform == "arity:3-4"
    plain = row._replace(transform="drop_arg0")
    assert target_row(plain, roc=True) is plain and target_row(plain, roc=False) is plain


@pytest.mark.parametrize(
    "call, want",
    [
        (
            f"cusolverDnSpotrf(h, {U}, n, A, lda, work, lwork, info)",
            "rocsolver_spotrf(h, rocblas_fill_lower, n, A, lda, info)",
        ),
        (
            "cusolverDnDgetrf(h, m, n, A, lda, work, ipiv, info)",
            "rocsolver_dgetrf(h, m, n, A, lda, ipiv, info)",
        ),
        (
            f"cusolverDnZsytrf(h, {U}, n, A, lda, ipiv, (cuDoubleComplex*)buf, lwork, info)",
            "rocsolver_zsytrf(h, rocblas_fill_lower, n, A, lda, ipiv, info)",
        ),
        (
            f"cusolverDnCpotri(h, {U}, n, A, lda, w.ptr, w.size, info)",
            "rocsolver_cpotri(h, rocblas_fill_lower, n, A, lda, info)",
        ),
        # syevd: rocSOLVER works in an array E of n elements, where cuSOLVER takes the workspace
        (
            f"cusolverDnSsyevd(h, CUSOLVER_EIG_MODE_VECTOR, {U}, n, A, lda, W, work, lwork, info)",
            "rocsolver_ssyevd(h, rocblas_evect_original, rocblas_fill_lower, n, A, lda, W, work, "
            "info)",
        ),
        (
            f"cusolverDnDsyevd_bufferSize(h, jobz, {U}, n, A, lda, W, &lwork)",
            "(lwork = n, rocblas_status_success)",
        ),
        (
            f"cusolverDnDsygvd_bufferSize(h, it, jobz, {U}, m.rows + 1, A, lda, B, ldb, W, &lw)",
            "(lw = (m.rows + 1), rocblas_status_success)",
        ),
        # the size queries: the output argument as an lvalue, whatever its form
        (
            f"cusolverDnSpotrf_bufferSize(h, {U}, n, A, lda, &lwork)",
            "(lwork = 0, rocblas_status_success)",
        ),
        (
            "cusolverDnSgetrf_bufferSize(h, m, n, A, lda, &ws.size)",
            "(ws.size = 0, rocblas_status_success)",
        ),
        (
            "cusolverDnSgetrf_bufferSize(h, m, n, A, lda, &sizes[2])",
            "(sizes[2] = 0, rocblas_status_success)",
        ),
        (
            "cusolverDnSgetrf_bufferSize(h, m, n, A, lda, &*p)",
            "((*p) = 0, rocblas_status_success)",
        ),
        # the output argument stays: its side effects happen once, as in the query
        (
            f"cusolverDnSpotrf_bufferSize(h, {U}, n, A, lda, &lw[i++])",
            "(lw[i++] = 0, rocblas_status_success)",
        ),
        (
            "cusolverDnDsytrf_bufferSize(h, n, A, lda, plwork)",
            "(*plwork = 0, rocblas_status_success)",
        ),
        (
            "cusolverDnDsytrf_bufferSize(h, n, A, lda, sizes + 1)",
            "(*(sizes + 1) = 0, rocblas_status_success)",
        ),
    ],
)
def test_roc_forms(call, want):
    out, findings = _port(f"int f() {{ return {call}; }}")
    assert out == f"int f() {{ return {want}; }}"
    assert not findings


@pytest.mark.parametrize(
    "call, why",
    [
        (f"cusolverDnSpotrf(h, {U}, n, A, lda, next_work(), lwork, info)", "side effects"),
        (f"cusolverDnSpotrf(h, {U}, n, A, lda, work, lwork++, info)", "side effects"),
        (f"cusolverDnSpotrf_bufferSize(handle(), {U}, n, A, lda, &lw)", "side effects"),
        ("cusolverDnSgetrf(h, m, n, A, lda, work, NULL, info)", "null pointer"),
        # the size copied into the query's value would keep a CUDA name porter does not see
        (
            f"cusolverDnSsyevd_bufferSize(h, jobz, {U}, cudaRows, A, lda, W, &lw)",
            "form has no HIP equivalent",
        ),
        ("cusolverDnSgetrf(h, m, n, A, lda, work, nullptr, info)", "null pointer"),
        # another argument count than the CUDA function's
        (f"cusolverDnSpotrf(h, {U}, n, A, lda, work)", "form has no HIP equivalent"),
    ],
)
def test_a_call_the_roc_form_cannot_take_is_reported(call, why):
    name = call.split("(")[0]
    out, findings = _port(f"int f() {{ return {call}; }}")
    assert name + "(" in out  # left as written
    hits = [f for f in findings if f.code == "PT002" and f.name == name]
    assert hits and why in hits[0].message, [f.message for f in findings]


def test_a_size_query_as_a_statement_becomes_an_assignment():
    out, findings = _port(
        f"void f() {{ cusolverDnSpotrf_bufferSize(h, {U}, n, A, lda, &lwork); "
        f"cusolverDnSsyevd_bufferSize(h, jobz, {U}, n, A, lda, W, p + 1); }}"
    )
    assert out == "void f() { lwork = 0; *(p + 1) = n; }"
    assert not findings


def test_without_roc_the_hipsolver_call_keeps_every_argument():
    text = (
        f"void f() {{ cusolverDnSpotrf_bufferSize(h, {U}, n, A, lda, &lwork); "
        f"cusolverDnSpotrf(h, {U}, n, A, lda, work, lwork, info); "
        f"cusolverDnSgetrf(h, m, n, A, lda, work, NULL, info); }}"
    )
    out, findings = _port(text, HIP)
    assert out == (
        "void f() { hipsolverDnSpotrf_bufferSize(h, HIPBLAS_FILL_MODE_LOWER, n, A, lda, &lwork); "
        "hipsolverDnSpotrf(h, HIPBLAS_FILL_MODE_LOWER, n, A, lda, work, lwork, info); "
        "hipsolverDnSgetrf(h, m, n, A, lda, work, NULL, info); }"
    )
    assert not findings
