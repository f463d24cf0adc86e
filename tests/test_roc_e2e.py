"""--roc end to end: a project using cuBLAS, cuSOLVER, cuRAND and cuSPARSE
(fixtures/port/libs-roc-all) is ported with --roc, every library moves to its ROCm library, and
the output compiles with clang++-22 for gfx942 against the ROCm 7.2 headers."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES

from porter import verify
from porter.cli import main
from porter.rewrite.includes import hip_complex_define

VARIANT = FIXTURES / "port" / "libs-roc-all"
LIBRARY_CALLS = (
    "rocblas_sgemm(",
    "rocsolver_spotrf_batched(",
    "rocrand_create_generator(",
    "rocsparse_snnz(",
)
HIP_LIBRARY_PREFIXES = (
    "hipblas",
    "hipsolver",
    "hiprand",
    "hipsparse",
    "cublas",
    "cusolver",
    "curand",
    "cusparse",
)


def test_roc_port_of_four_libraries_compiles(tmp_path: Path, rocm72, hip_clang):
    out = tmp_path / "out"
    rc = main(["port", str(VARIANT / "input"), "-o", str(out), "-q", "-j", "1", "--roc"])
    assert rc == 0
    text = (out / "dense_pipeline.cu").read_text()
    for call in LIBRARY_CALLS:
        assert call in text, call
    assert not [p for p in HIP_LIBRARY_PREFIXES if p in text]
    res = verify.compile_file(out / "dense_pipeline.cu", ["gfx942"], rocm=rocm72.parent)
    assert res.ok, res.stderr_tail


def test_without_roc_the_same_project_stays_on_the_hip_libraries(tmp_path: Path):
    out = tmp_path / "out"
    main(["port", str(VARIANT / "input"), "-o", str(out), "-q", "-j", "1"])
    text = (out / "dense_pipeline.cu").read_text()
    assert "hipblasSgemm(" in text and "hipsolverDnSpotrfBatched(" in text
    assert "rocblas_" not in text and "rocsolver_" not in text


COMPLEX = FIXTURES / "port" / "libs-roc-complex"
HIP_COMPLEX_DEFINE = (
    "#ifndef ROCM_MATHLIBS_API_USE_HIP_COMPLEX\n#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX\n#endif\n"
)


def test_complex_blas_and_solver_calls_compile_only_with_hip_complex(
    tmp_path: Path, rocm72, hip_clang
):
    """cublasCgemm, cublasZdotc, cusolverDnCpotrfBatched... take cuComplex, which porter makes
    hipComplex: rocBLAS/rocSOLVER take them as rocblas_float_complex only because porter defines
    ROCM_MATHLIBS_API_USE_HIP_COMPLEX before the first rocBLAS include. Without the define the
    same output does not compile."""
    out = tmp_path / "out"
    rc = main(["port", str(COMPLEX / "input"), "-o", str(out), "-q", "-j", "1", "--roc"])
    assert rc == 0
    src = out / "complex_solve.cu"
    text = src.read_text()
    for call in (
        "rocblas_cgemm(",
        "rocblas_zdotc(",
        "rocblas_izamax(",
        "rocsolver_cpotrf_batched(",
    ):
        assert call in text, call
    assert not [p for p in HIP_LIBRARY_PREFIXES if p in text]
    assert text.count(HIP_COMPLEX_DEFINE) == 1
    assert text.index(HIP_COMPLEX_DEFINE) < text.index("#include <rocblas/rocblas.h>")
    res = verify.compile_file(src, ["gfx942"], rocm=rocm72.parent)
    assert res.ok, res.stderr_tail
    bare = tmp_path / "bare" / "complex_solve.cu"
    bare.parent.mkdir()
    bare.write_text(text.replace(HIP_COMPLEX_DEFINE, ""))
    res = verify.compile_file(bare, ["gfx942"], rocm=rocm72.parent)
    assert not res.ok and "rocblas_cgemm" in res.stderr_tail


def _define_edit(text: bytes, path: str, new: str, earlier: tuple[str, ...] = ()):
    """The edit for the include of `path`; `earlier`: includes of the text before it, by their
    path in the text, that the port turned into rocBLAS/rocSOLVER headers."""
    ends = {f"rocblas/{p}": text.index(b"\n", text.index(p.encode())) + 1 for p in earlier}
    return hip_complex_define(text, text.index(path.encode()), new, ends)


def test_hip_complex_define_goes_before_the_first_rocblas_include_only():
    src = b"#include <cstdio>\n  #  include <cublas_v2.h>\n#include <cusolverDn.h>\n"
    edit = _define_edit(src, "<cublas_v2.h>", "rocblas/rocblas.h")
    assert edit is not None and edit.start == edit.end == src.index(b"  #  include")
    assert edit.text == HIP_COMPLEX_DEFINE.encode()
    # the second rocBLAS/rocSOLVER include of the file gets none
    assert _define_edit(src, "<cusolverDn.h>", "rocsolver/rocsolver.h", ("<cublas_v2.h>",)) is None
    # ... unless a conditional directive lies between them: the first may not be seen
    alt = b"#ifdef V2\n#include <cublas_v2.h>\n#else\n#include <cublas.h>\n#endif\n"
    assert _define_edit(alt, "<cublas.h>", "rocblas/rocblas.h", ("<cublas_v2.h>",)) is not None
    # other libraries get none
    assert _define_edit(src, "<cublas_v2.h>", "hipblas/hipblas.h") is None
    assert _define_edit(src, "<cublas_v2.h>", "rocsparse/rocsparse.h") is None
    # a file that defines the macro itself (or was ported before) gets none; a comment naming
    # it is no definition
    defined = b"#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX 1\n" + src
    assert _define_edit(defined, "<cublas_v2.h>", "rocblas/rocblas.h") is None
    named = b"// ROCM_MATHLIBS_API_USE_HIP_COMPLEX\n" + src
    assert _define_edit(named, "<cublas_v2.h>", "rocblas/rocblas.h") is not None
    # the file's line ending
    crlf = src.replace(b"\n", b"\r\n")
    edit = _define_edit(crlf, "<cublas_v2.h>", "rocblas/rocblas.h")
    assert edit is not None and edit.text == HIP_COMPLEX_DEFINE.replace("\n", "\r\n").encode()
    # an include sharing its line with other code has no line of its own to precede
    shared = b"int x; #include <cublas_v2.h>\n"
    assert _define_edit(shared, "<cublas_v2.h>", "rocblas/rocblas.h") is None
