"""The `roc` column (rocBLAS, rocSPARSE, rocSOLVER, rocRAND) and the MIOpen names of dnn.csv are
checked against the headers of their own library, as the hip columns are against HIP's.

* every roc* name is declared, as something its row's kind can name, by its library's ROCm 7.2
  headers (clang's preprocessor output of rocblas.h, rocsparse.h, rocsolver.h + rocblas.h,
  rocrand.h + rocrand_kernel.h), and by the 6.4 headers when the row is in force at 6.4;
* every MIOpen name of dnn.csv is declared by miopen.h (7.2, and 6.4 when in force there);
* a roc* (or MIOpen) function takes as many parameters as the CUDA function it replaces
  (scripts/data/api/cuda_library_arity.tsv, made from NVIDIA's library headers), unless the row's
  call transform changes the count;
* --roc moves cuBLAS and cuSOLVER together (rocSOLVER takes rocBLAS's handle and enums).
"""

from __future__ import annotations

import sys
from functools import cache

import pytest
from conftest import ROOT, need, rocm_prefix

from porter.mappings.index import MappingIndex, load_index
from porter.mappings.model import Row
from porter.rewrite.roc import roc_plan

sys.path.insert(0, str(ROOT / "scripts"))
import roc_api  # noqa: E402

INDEX = load_index()
ROC_AREAS = ("blas", "sparse", "solver", "rand")
IDENT_KINDS = ("function", "device_function", "type", "enum", "macro")
V64 = (6, 4)
# call transforms that change how many arguments the replacement takes
ARITY_CHANGING = ("drop_arg0", "default_arg:", "drop_null_arg:")


@cache
def declared(area: str, release: str) -> roc_api.Declared:
    rocm_prefix(release)  # skips (or fails in CI) without the prefix
    need(roc_api.clang() is not None, "clang++-22 not installed (run scripts/setup-rocm.sh)")
    return roc_api.library(area, release)


def _in_force_at(row: Row, version: tuple[int, ...]) -> bool:
    rows = INDEX.by_name.get(row.cuda, [])
    return row in rows and MappingIndex.pick(rows, version) is row and row.present_in(version)


def _roc_rows(area: str) -> list[Row]:
    return [r for r in INDEX.areas[area] if r.roc and r.kind in IDENT_KINDS]


def _miopen_rows() -> list[Row]:
    return [r for r in INDEX.areas["dnn"] if r.hip and r.kind in IDENT_KINDS]


@pytest.mark.parametrize("area", ROC_AREAS)
def test_roc_names_are_declared_by_their_library(area: str):
    rows = _roc_rows(area)
    assert rows, f"{area}: no roc* rows"
    missing = []
    for release in ("7.2", "6.4"):
        lib = declared(area, release)
        for r in rows:
            if release == "6.4" and not _in_force_at(r, V64):
                continue
            if roc_api.roc_query(r.transform):
                # the call becomes `(LWORK = 0, ROC)`: ROC is a status enumerator
                if not (lib.has(r.roc, "enum") and r.roc.endswith("_success")):
                    missing.append(f"{r.cuda} -> {r.roc}: not a success status of {area}")
                continue
            if not lib.has(r.roc, r.kind):
                missing.append(
                    f"{r.cuda} -> {r.roc} ({r.kind}): not declared by the ROCm "
                    f"{release} {area} headers"
                )
    assert not missing, "\n".join(missing[:40])


def test_miopen_names_are_declared_by_miopen():
    rows = _miopen_rows()
    assert len(rows) > 100
    missing = []
    for release in ("7.2", "6.4"):
        lib = declared("dnn", release)
        for r in rows:
            if release == "6.4" and not _in_force_at(r, V64):
                continue
            if not lib.has(r.hip, r.kind):
                missing.append(
                    f"{r.cuda} -> {r.hip} ({r.kind}): not declared by miopen.h {release}"
                )
    assert not missing, "\n".join(missing[:40])


def test_roc_header_rows_name_existing_headers():
    usr = rocm_prefix("7.2")
    rows = [r for rows in INDEX.areas.values() for r in rows if r.roc and r.kind == "header"]
    assert rows
    assert not [r.roc for r in rows if not (usr / "include" / r.roc).is_file()]


def _arity_rows():
    out = [
        (a, r, r.roc)
        for a in ROC_AREAS
        for r in _roc_rows(a)
        if r.kind in ("function", "device_function") and not roc_api.roc_query(r.transform)
    ]
    out += [("dnn", r, r.hip) for r in _miopen_rows() if r.kind == "function"]
    return out


def test_roc_functions_take_the_cuda_parameter_count():
    cuda = roc_api.read_cuda_arity()
    problems, checked = [], 0
    for area, r, name in _arity_rows():
        if r.transform.startswith(ARITY_CHANGING):
            continue
        counts = cuda.get(r.cuda)
        if counts is None:
            if r.status != "removed":  # the list holds the current CUDA libraries' functions
                problems.append(f"{r.cuda}: not in {roc_api.ARITY_FILE.name}")
            continue
        drop = roc_api.roc_dropped(r.transform)
        counts = {c - len(drop) for c in counts}
        got = declared(area, "7.2").functions.get(name)
        if got is None:
            problems.append(f"{r.cuda} -> {name}: no function of that name in the 7.2 headers")
        elif not counts & got:
            problems.append(
                f"{r.cuda} -> {name}: CUDA takes {sorted(counts)} parameters, "
                f"the ROCm function {sorted(got)}"
            )
        checked += 1
    assert checked > 400
    assert not problems, "\n".join(problems[:40])


def test_arity_check_catches_a_wrong_row():
    """The check above can fail: a row pointing at a function of another shape is caught."""
    cuda = roc_api.read_cuda_arity()
    blas = declared("blas", "7.2")
    # cublasSgemm takes 14 parameters, rocblas_sgemv 12
    assert not cuda["cublasSgemm"] & blas.functions["rocblas_sgemv"]
    assert cuda["cublasSgemm"] & blas.functions["rocblas_sgemm"]


def test_parser_reads_declarations_kinds():
    blas = declared("blas", "7.2")
    assert blas.has("rocblas_sgemm", "function") and not blas.has("rocblas_sgemm", "enum")
    assert blas.has("rocblas_operation_none", "enum")
    assert blas.has("rocblas_handle", "type")
    solver = declared("solver", "7.2")
    assert solver.has("rocsolver_spotrf_batched", "function")
    assert solver.has("rocblas_fill_lower", "enum")  # rocSOLVER's headers bring rocBLAS's
    rand = declared("rand", "7.2")
    assert rand.has("rocrand_uniform", "device_function")
    assert not rand.has("rocrand_no_such_function", "function")


def test_blas_and_solver_move_to_roc_together():
    one = [b"cublasCreate(&h); cusolverDnCreate(&s); cusolverDnSpotrfBatched(s);"]
    areas, blockers = roc_plan(INDEX, one, (7, 2))
    assert {"blas", "solver"} <= areas and not blockers
    # rocsolver_sgetrs has no info argument (cusolverDnSgetrs writes devInfo): cuSOLVER stays on
    # hipSOLVER, and cuBLAS with it (its enums are passed to the hipSOLVER calls)
    two = [b"cublasCreate(&h); cusolverDnSgetrs(s); CUBLAS_FILL_MODE_LOWER;"]
    areas, blockers = roc_plan(INDEX, two, (7, 2))
    assert "solver" not in areas and "blas" not in areas
    assert blockers["blas"] == ["cusolverDnSgetrs"]
    # a project without cuSOLVER is not held back by it
    three = [b"cublasCreate(&h); cublasSgemm(h);"]
    areas, blockers = roc_plan(INDEX, three, (7, 2))
    assert "blas" in areas and not blockers


def test_workspace_solver_functions_name_rocsolver_only_with_a_roc_transform():
    """cusolverDn<t>getrf takes a workspace (sized by a bufferSize query): rocsolver's form has
    none, so the row names rocsolver_<t>getrf only with a `roc:` transform that drops it, and the
    query only as a `roc:no_workspace` / `roc:workspace_of` rewrite; getrs/potrs (no info
    argument in rocSOLVER), geqrf (no info either) and heevd have no roc name."""
    for name in (
        "cusolverDnSgetrf",
        "cusolverDnSpotrf",
        "cusolverDnZsytrf",
        "cusolverDnCpotri",
        "cusolverDnDsyevd",
    ):
        (row,) = INDEX.by_name[name]
        assert row.roc.startswith("rocsolver_") and roc_api.roc_dropped(row.transform), name
    for name in (
        "cusolverDnSgetrf_bufferSize",
        "cusolverDnZpotrf_bufferSize",
        "cusolverDnSsyevd_bufferSize",
    ):
        (row,) = INDEX.by_name[name]
        assert row.roc == "rocblas_status_success" and roc_api.roc_query(row.transform), name
    # cheevd: rocsolver_cheevd's E is real (float*), cuSOLVER's work complex
    for name in ("cusolverDnSgetrs", "cusolverDnSpotrs", "cusolverDnSgeqrf", "cusolverDnCheevd"):
        assert not any(r.roc for r in INDEX.by_name[name]), name


def test_dropped_arguments_are_checked_against_the_roc_parameters():
    """The type check sees the call after the drop: dropping the wrong argument is caught."""
    cuda = roc_api.read_cuda_params()
    solver = declared("solver", "7.2")
    potrf = solver.params["rocsolver_spotrf"]
    keep = [[p for i, p in enumerate(ps) if i not in {5, 6}] for ps in cuda["cusolverDnSpotrf"]]
    assert _type_mismatch("solver", keep, potrf) is None
    # dropping Lwork and devInfo instead leaves the float* workspace where info goes
    wrong = [[p for i, p in enumerate(ps) if i not in {6, 7}] for ps in cuda["cusolverDnSpotrf"]]
    assert _type_mismatch("solver", wrong, potrf)


# -- parameter types ------------------------------------------------------------------------------
# roc areas whose roc* names a call of the area may receive: rocSOLVER calls take rocBLAS's
# handle and enums (porter moves cuBLAS and cuSOLVER together)
TYPE_AREAS = {
    "blas": {"blas"},
    "sparse": {"sparse"},
    "solver": {"solver", "blas"},
    "rand": {"rand"},
    "dnn": {"dnn"},
}


def _renamer(area: str, aliases: dict[str, str]):
    """CUDA type name -> the name porter gives it in a project whose `area` goes to roc*, then
    the type that name stands for (`aliases`: the library's typedefs as porter includes it)."""

    def rename(name: str) -> str:
        rows = INDEX.by_name.get(name)
        row = MappingIndex.pick(rows, (7, 2)) if rows else None
        if row is not None and row.hip:
            name = row.roc if row.roc and row.area in TYPE_AREAS[area] else row.hip
        return roc_api.resolve(name, aliases)

    return rename


def _type_mismatch(
    area: str, cuda_lists, roc_lists, aliases: dict[str, str] | None = None
) -> str | None:
    """None when some CUDA declaration's arguments pass to some roc* declaration's parameters;
    otherwise the first mismatch. `aliases`: the library's typedefs (default: as the 7.2
    headers declare them with the macros porter defines, roc_api.DEFINES)."""
    if aliases is None:
        aliases = declared(area, "7.2").aliases
    rename = _renamer(area, aliases)

    def resolve(name: str) -> str:
        return roc_api.resolve(name, aliases)

    why = "no declaration with the same parameter count"
    for cp in cuda_lists:
        for rp in roc_lists:
            if len(cp) != len(rp):
                continue
            bad = [
                f"{a!r} -> {b!r}"
                for a, b in zip(cp, rp)
                if not roc_api.passes(roc_api.param_type(a, rename), roc_api.param_type(b, resolve))
            ]
            if not bad:
                return None
            why = bad[0]
    return why


def test_roc_functions_take_the_cuda_arguments():
    """Each argument of the CUDA call, with its type renamed as porter renames it, passes to the
    roc* (or MIOpen) function's parameter: cudaDataType arguments, for example, do not
    (rocsparse_datatype is not hipDataType); complex ones do where porter defines
    ROCM_MATHLIBS_API_USE_HIP_COMPLEX (rocBLAS, rocSOLVER), not for rocSPARSE."""
    cuda = roc_api.read_cuda_params()
    problems, checked = [], 0
    for area, r, name in _arity_rows():
        drop = roc_api.roc_dropped(r.transform)
        if (r.transform and not drop) or r.cuda not in cuda:
            continue
        cuda_lists = [[p for i, p in enumerate(ps) if i not in drop] for ps in cuda[r.cuda]]
        for release in ("7.2", "6.4"):
            if release == "6.4" and not _in_force_at(r, V64):
                continue
            lib = declared(area, release)
            why = _type_mismatch(area, cuda_lists, lib.params.get(name, []), lib.aliases)
            if why is not None:
                problems.append(f"{r.cuda} -> {name} (ROCm {release}): {why}")
            checked += 1
    assert checked > 800
    assert not problems, "\n".join(problems[:40])


def test_type_check_catches_complex_and_data_type_arguments():
    cuda = roc_api.read_cuda_params()
    blas = declared("blas", "7.2")
    # hipComplex is rocblas_float_complex only under ROCM_MATHLIBS_API_USE_HIP_COMPLEX (the
    # macro porter defines before the include): without it, the headers' own aliases differ
    assert blas.aliases["rocblas_float_complex"] == "hipFloatComplex"
    without = {k: v for k, v in blas.aliases.items() if not k.startswith("rocblas_")}
    cgemm = blas.params["rocblas_cgemm"]
    assert _type_mismatch("blas", cuda["cublasCgemm_v2"], cgemm, without)
    assert _type_mismatch("blas", cuda["cublasCgemm_v2"], cgemm) is None
    # single and double precision complex do not mix
    assert _type_mismatch("blas", cuda["cublasZgemm_v2"], cgemm)
    assert _type_mismatch("blas", cuda["cublasGemmEx"], blas.params["rocblas_gemm_ex"])
    assert _type_mismatch("blas", cuda["cublasSgemm_v2"], blas.params["rocblas_sgemm"]) is None
    # const added inside a double pointer is no implicit conversion in C++
    rand = declared("rand", "7.2")
    assert _type_mismatch(
        "rand",
        cuda["curandGetScrambleConstants32"],
        rand.params["rocrand_get_scramble_constants32"],
    )


@pytest.mark.parametrize("release", ["7.2", "6.4"])
def test_hip_complex_macro_only_changes_rocblas_complex_types(release: str):
    """porter defines ROCM_MATHLIBS_API_USE_HIP_COMPLEX before every rocBLAS/rocSOLVER include
    (porter/rewrite/includes.py): the only file of those libraries that tests it is
    rocblas-complex-types.h, which then makes rocblas_float_complex hipFloatComplex."""
    inc = rocm_prefix(release) / "include"
    testing = sorted(
        p.relative_to(inc).as_posix()
        for lib in ("rocblas", "rocsolver")
        for p in (inc / lib).rglob("*.h*")
        if roc_api.HIP_COMPLEX_MACRO.encode() in p.read_bytes()
    )
    assert testing == ["rocblas/internal/rocblas-complex-types.h"]
    assert declared("blas", release).aliases["rocblas_double_complex"] == "hipDoubleComplex"
