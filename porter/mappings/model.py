"""One row of a mapping table."""

from __future__ import annotations

import re
from typing import NamedTuple

COLUMNS = (
    "cuda",
    "hip",
    "roc",
    "kind",
    "status",
    "hip_since",
    "hip_removed",
    "cuda_removed",
    "transform",
    "notes",
    "source",
)

# The ROCm releases whose API the tables are checked against (scripts/check_mappings.py, with the
# inputs pinned in scripts/inputs.lock): headers of 6.4 and 7.2 (the prefixes of
# scripts/setup-rocm.sh), the HIP and library binding lists (.pxd) of the others. `hip_since` and
# `hip_removed` name releases of this list (or a release a cited source documents).
CHECKED_ROCM: tuple[tuple[int, int], ...] = (
    (6, 2),
    (6, 3),
    (6, 4),
    (7, 0),
    (7, 1),
    (7, 2),
    (10, 0),
)
# The releases whose headers are unpacked here (the compile proof uses the newest of them).
HEADER_ROCM: tuple[tuple[int, int], ...] = ((6, 4), (7, 2))
# CUDA releases whose headers the tables are checked against (11.8 and 12.9 from NVIDIA's
# -cu11/-cu12 wheels, 13.0 from the toolkit): `cuda_removed` names one of them.
CHECKED_CUDA: tuple[tuple[int, int], ...] = ((11, 8), (12, 9), (13, 0))
KINDS = frozenset(
    {
        "function",
        "device_function",
        "type",
        "enum",
        "macro",
        # a macro the project defines (or #undefs, or passes with -D) to configure the CUDA
        # headers, which test it and never define it (cuda_fp16.h's __CUDA_NO_HALF_OPERATORS__);
        # its definitions and #undefs are renamed like its tests
        "config_macro",
        "header",
        "header_dir",
        "namespace",
        "python_attr",
    }
)
STATUSES = frozenset({"supported", "unsupported", "deprecated", "removed", "experimental"})
TRANSFORMS = frozenset({"", "drop_arg0", "symbol_arg0", "symbol_arg1"})
# plus `default_arg:N:TEXT`: a call with exactly N arguments gets `, TEXT` appended (a CUDA
# default argument that the HIP function lacks)
DEFAULT_ARG = re.compile(r"^default_arg:(\d+):([^:]+)$")
# plus `memloc:N:NAME:X.Y`: CUDA 13 changed the function to take a cudaMemLocation as argument N;
# a call passing a location there becomes NAME (which needs ROCm X.Y), a call passing a device
# number (the CUDA 12 form) keeps the row's hip name
MEMLOC = re.compile(r"^memloc:(\d+):(\w+):(\d+\.\d+)$")


# plus `max_args:N`: only calls with at most N arguments map (CUDA added a parameter before others
# that HIP's function has); a longer call is reported
MAX_ARGS = re.compile(r"^max_args:(\d+)$")


# plus `args:N=NAME`: a call with exactly N arguments (a C++ overload of cuda_runtime.h, an older
# CUDA form) maps to NAME, with no other transform
ARGS_NAME = re.compile(r"^args:(\d+)=(\w+)$")
# plus `arity:MIN-MAX`: calls with fewer or more arguments than the CUDA function takes are reported
ARITY = re.compile(r"^arity:(\d+)-(\d+)$")
# plus `drop_null_arg:N`: argument N (0-based) is a parameter the HIP function lacks; a call passing
# a null pointer literal there (0, NULL, nullptr, possibly cast) drops it, any other call is
# reported (cuOccupancyMaxPotentialBlockSize's block-size-to-shared-memory callback)
DROP_NULL_ARG = re.compile(r"^drop_null_arg:(\d+)$")
# plus, for the `roc` name only (`roc:` before the part; see porter/rewrite/names.py target_row):
# `roc:drop_args:I,J,...`: arguments I, J... (0-based) are parameters the roc* function lacks (a
# cuSOLVER workspace and its size: cusolverDnSpotrf(h, uplo, n, A, lda, Workspace, Lwork, info)
# -> rocsolver_spotrf(h, uplo, n, A, lda, info)); a call passing there an expression with side
# effects (a call, an assignment, ++/--) is reported
DROP_ARGS = re.compile(r"^drop_args:(\d+(?:,\d+)*)$")
# `roc:no_workspace:N`: a workspace-size query whose roc* routine needs no workspace (rocSOLVER
# allocates its own from the rocblas_handle): the call becomes `(ARG_N = 0, ROC)` (`*` for a
# pointer that is not `&x`), ROC being the row's roc name, a success status
NO_WORKSPACE = re.compile(r"^no_workspace:(\d+)$")
# `roc:workspace_of:N:M`: a workspace-size query whose roc* routine still takes one array of
# ARG_M elements where CUDA's takes the workspace (rocsolver_ssyevd's E, "of dimension n"): the
# call becomes `(ARG_N = ARG_M, ROC)`
WORKSPACE_OF = re.compile(r"^workspace_of:(\d+):(\d+)$")
# `roc:nonnull:N`: argument N (0-based) may be a null pointer for the CUDA function with a meaning
# of its own, which the roc* function lacks (cusolverDnSgetrf's devIpiv: NULL factorises without
# pivoting; rocsolver_sgetrf needs ipiv): a call passing a null literal there is reported
NONNULL = re.compile(r"^nonnull:(\d+)$")
ROC_PART = "roc:"
# several of these may be joined with `|` (`default_arg:2:0|args:5=hipGraphInstantiate`)
TRANSFORM_SEP = "|"


def _valid_part(t: str) -> bool:
    return (
        t in TRANSFORMS
        or DEFAULT_ARG.match(t) is not None
        or MEMLOC.match(t) is not None
        or MAX_ARGS.match(t) is not None
        or ARGS_NAME.match(t) is not None
        or ARITY.match(t) is not None
        or DROP_NULL_ARG.match(t) is not None
    )


def _valid_roc_part(t: str) -> bool:
    return (
        DROP_ARGS.match(t) is not None
        or NO_WORKSPACE.match(t) is not None
        or WORKSPACE_OF.match(t) is not None
        or NONNULL.match(t) is not None
    )


def valid_transform(t: str) -> bool:
    return (
        all(
            _valid_roc_part(p[len(ROC_PART) :]) if p.startswith(ROC_PART) else _valid_part(p)
            for p in t.split(TRANSFORM_SEP)
        )
        if t
        else True
    )


def parse_version(text: str) -> tuple[int, ...]:
    """'6.2' -> (6, 2); '' -> (0,) (present in every supported ROCm)."""
    text = text.strip()
    if not text:
        return (0,)
    try:
        return tuple(int(p) for p in text.split("."))
    except ValueError:
        raise ValueError(f"not a version: {text!r}") from None


class Row(NamedTuple):
    """A named tuple: cheap to build and to unpickle (the index cache holds ~11,000 rows)."""

    cuda: str
    hip: str
    roc: str
    kind: str
    status: str
    hip_since: str
    hip_removed: str
    cuda_removed: str
    transform: str
    notes: str
    source: str
    area: str

    @property
    def since(self) -> tuple[int, ...]:
        return parse_version(self.hip_since)

    @property
    def removed(self) -> tuple[int, ...] | None:
        """The first ROCm release without the HIP name (None: every checked release from
        hip_since on has it)."""
        return parse_version(self.hip_removed) if self.hip_removed else None

    def last_present(self) -> tuple[int, ...] | None:
        """The newest checked release known to have the HIP name (None: no end known)."""
        gone = self.removed
        if gone is None:
            return None
        before = [v for v in CHECKED_ROCM if v < gone and v >= self.since[:2]]
        return before[-1] if before else self.since

    def present_in(self, version: tuple[int, ...]) -> bool:
        """Is the HIP name known to exist in ROCm *version*? From hip_since on, up to the last
        checked release that has it when a later checked release lacks it (between that one and
        the first release without it, presence is not known: the name is not produced)."""
        if self.since > version:
            return False
        last = self.last_present()
        return last is None or version[:2] <= last[:2]

    @property
    def supported(self) -> bool:
        return bool(self.hip)

    def target(self, roc: bool = False) -> str:
        """The replacement name (rocBLAS & co. with --roc where the row has one)."""
        if roc and self.roc:
            return self.roc
        return self.hip
