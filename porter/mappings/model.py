"""One row of a mapping table."""
from __future__ import annotations

import re
from typing import NamedTuple

COLUMNS = ("cuda", "hip", "roc", "kind", "status", "hip_since", "transform", "notes", "source")
KINDS = frozenset({"function", "device_function", "type", "enum", "macro", "header",
                   "header_dir", "namespace", "python_attr"})
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


def valid_transform(t: str) -> bool:
    return (t in TRANSFORMS or DEFAULT_ARG.match(t) is not None or MEMLOC.match(t) is not None
            or MAX_ARGS.match(t) is not None)


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
    transform: str
    notes: str
    source: str
    area: str

    @property
    def since(self) -> tuple[int, ...]:
        return parse_version(self.hip_since)

    @property
    def supported(self) -> bool:
        return bool(self.hip)

    def target(self, roc: bool = False) -> str:
        """The replacement name (rocBLAS & co. with --roc where the row has one)."""
        if roc and self.roc:
            return self.roc
        return self.hip
