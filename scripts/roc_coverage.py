#!/usr/bin/env python3
"""How much of each math library the `roc` column (and dnn.csv's MIOpen names) covers.

For each of blas, sparse, solver, rand (roc column) and dnn (hip column = MIOpen) it prints, for
two revisions of mappings/*.csv (git revisions: `git show REV:mappings/X.csv`):

  * rows with a roc* (MIOpen) name, and rows with a hip name;
  * function rows with a roc* (MIOpen) name, and function rows whose roc* counterpart exists
    by name in the library's ROCm 7.2 headers, whatever its parameters (the conventional
    spelling: hipblasSgemmStridedBatched -> rocblas_sgemm_strided_batched,
    hipsparseXcsrsort_bufferSizeExt -> rocsparse_csrsort_buffer_size,
    hipsolverDnSpotrfBatched -> rocsolver_spotrf_batched, cudnnActivationForward ->
    miopenActivationForward, and the handle calls), or that have a roc* name (a workspace query
    that --roc turns into `(LWORK = 0, rocblas_status_success)`).

    python scripts/roc_coverage.py BEFORE AFTER     # e.g. ce33a6a~1 HEAD
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import roc_api  # noqa: E402

AREAS = ("blas", "sparse", "solver", "rand", "dnn")
FUNCTION_KINDS = ("function", "device_function")


def snake(s: str) -> str:
    s = re.sub(r"_v2(?=_64$|$)", "", s)
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()


def candidates(area: str, row: dict[str, str]) -> list[str]:
    """Conventional roc* (MIOpen) spellings of a row's function."""
    h = row["hip"]
    out = [row["roc"]] if row["roc"] else []
    if area == "blas" and h.startswith("hipblas"):
        rest = h[len("hipblas") :]
        out += ["rocblas_" + snake(rest), "rocsolver_" + snake(rest)]
        if rest.startswith(("Create", "Destroy")):
            out.append(
                "rocblas_create_handle" if rest.startswith("Create") else "rocblas_destroy_handle"
            )
    elif area == "sparse" and h.startswith("hipsparse"):
        rest = h[len("hipsparse") :]
        base = snake(re.sub("^X", "", rest))
        out += [
            "rocsparse_" + snake(rest),
            "rocsparse_" + base,
            "rocsparse_" + base + "_descr",
            "rocsparse_" + base.replace("_buffer_size_ext", "_buffer_size"),
        ]
        two = re.sub(r"2(?=_|$|[A-Z])", "", re.sub("^X", "", rest))
        two = two.replace("gtsvStridedBatch", "gtsvNoPivotStridedBatch")
        out.append(
            "rocsparse_"
            + snake(two)
            .replace("_nopivot", "_no_pivot")
            .replace("_buffer_size_ext", "_buffer_size")
        )
        if rest in ("Create", "Destroy"):
            out.append(f"rocsparse_{rest.lower()}_handle")
    elif area == "solver" and h.startswith("hipsolver"):
        rest = re.sub(r"^Dn", "", h[len("hipsolver") :])
        out += ["rocsolver_" + snake(rest), "rocblas_" + snake(rest)]
        if rest in ("Create", "Destroy"):
            out.append(f"rocblas_{rest.lower()}_handle")
    elif area == "rand":
        if h.startswith("hiprand"):
            rest = h[len("hiprand") :]
            out.append(
                "rocrand" + ("_" + snake(rest) if rest and not rest.startswith("_") else rest)
            )
            if rest == "DestroyDistribution":
                out.append("rocrand_destroy_discrete_distribution")
        else:
            out.append(h)
    elif area == "dnn":
        rest = re.sub(r"^cudnn", "", row["cuda"])
        out += [h, "miopen" + rest, "miopen" + rest.replace("Tensor4d", "4dTensor")]
    return [c for c in out if c]


def table(rev: str, area: str) -> list[dict[str, str]]:
    proc = subprocess.run(
        ["git", "-C", str(roc_api.ROOT), "show", f"{rev}:mappings/{area}.csv"],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise ValueError(f"git show {rev}:mappings/{area}.csv: {proc.stderr.strip()}")
    return list(csv.DictReader(io.StringIO(proc.stdout)))


def figures(rev: str, area: str, lib: roc_api.Declared) -> tuple[int, int, int, int]:
    rows = table(rev, area)
    col = "hip" if area == "dnn" else "roc"
    with_hip = [r for r in rows if r["hip"] or area == "dnn"]
    functions = [r for r in with_hip if r["kind"] in FUNCTION_KINDS]
    # a row with a roc* name has a counterpart whatever its spelling (a `roc:no_workspace` query
    # names rocblas_status_success, the value its call becomes)
    counterpart = [
        r for r in functions if r[col] or any(c in lib.functions for c in candidates(area, r))
    ]
    return (
        sum(1 for r in rows if r[col]),
        len(with_hip),
        sum(1 for r in functions if r[col]),
        len(counterpart),
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    args = ap.parse_args(argv)
    print(
        "| table | rows with a roc* name (of rows with a hip name) | function rows with a roc* "
        "name (of functions with a counterpart) |\n|---|---|---|"
    )
    try:
        for area in AREAS:
            lib = roc_api.library(area)
            b, a = figures(args.before, area, lib), figures(args.after, area, lib)
            print(f"| {area} | {b[0]} -> {a[0]} (of {a[1]}) | {b[2]} -> {a[2]} (of {a[3]}) |")
    except (FileNotFoundError, ValueError) as exc:
        print(f"roc_coverage: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
