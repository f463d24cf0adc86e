"""AMD GPU targets the rules know, and the one parser of `--offload-arch` lists."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    arch: str
    wave: int  # wavefront width
    lds: int  # LDS bytes available to one workgroup
    family: str  # cdna2 / cdna3 / cdna4 / rdna2 / rdna3 / rdna4 / ...
    fp8: str  # "fnuz", "ocp" or "none"
    capability: tuple[int, int]  # what hipDeviceProp_t.major/minor report
    images: bool = True  # texture/image instructions available


KIB = 1024
# Sources: AMD GPU specs tables (wave size, LDS per workgroup), HIP hardware implementation docs,
# LLVM AMDGPU usage (wave64 on gfx9, wave32 default on gfx10+), ../shared/hazards.md target sheet.
TARGETS: dict[str, Target] = {
    t.arch: t
    for t in (
        Target("gfx906", 64, 64 * KIB, "gcn5", "none", (9, 0)),
        Target("gfx908", 64, 64 * KIB, "cdna1", "none", (9, 0)),
        Target("gfx90a", 64, 64 * KIB, "cdna2", "none", (9, 0)),
        Target("gfx940", 64, 64 * KIB, "cdna3", "fnuz", (9, 4), images=False),
        Target("gfx941", 64, 64 * KIB, "cdna3", "fnuz", (9, 4), images=False),
        Target("gfx942", 64, 64 * KIB, "cdna3", "fnuz", (9, 4), images=False),
        # gfx950 also defines __HIP_NO_IMAGE_SUPPORT (ROCm 7.2 amd_device_functions.h, gfx94plus)
        Target("gfx950", 64, 160 * KIB, "cdna4", "ocp", (9, 5), images=False),
        Target("gfx1030", 32, 64 * KIB, "rdna2", "none", (10, 3)),
        Target("gfx1100", 32, 64 * KIB, "rdna3", "none", (11, 0)),
        Target("gfx1101", 32, 64 * KIB, "rdna3", "none", (11, 0)),
        Target("gfx1102", 32, 64 * KIB, "rdna3", "none", (11, 0)),
        Target("gfx1151", 32, 64 * KIB, "rdna3.5", "none", (11, 5)),
        Target("gfx1200", 32, 64 * KIB, "rdna4", "ocp", (12, 0)),
        Target("gfx1201", 32, 64 * KIB, "rdna4", "ocp", (12, 0)),
        Target("gfx1250", 32, 64 * KIB, "gfx12.5", "ocp", (12, 5)),
    )
}
DEFAULT_ARCH = "gfx942"

# clang's --offload-arch syntax for AMD: a processor and optional target features (gfx90a:xnack+)
_ARCH_SYNTAX = re.compile(r"gfx[0-9a-f]+(?::[a-z0-9_]+[+-])*")


def split_archs(value: str | Iterable[str]) -> list[str]:
    """`"gfx942,gfx90a:xnack+"` or `["gfx942", "gfx90a,gfx1100"]` -> the arch strings, in order,
    duplicates dropped, feature suffixes kept. Raises ValueError for a non-AMD target."""
    items = (
        value.split(",")
        if isinstance(value, str)
        else [p for v in value for p in str(v).split(",")]
    )
    out: list[str] = []
    for item in (i.strip() for i in items):
        if not item or item in out:
            continue
        if not _ARCH_SYNTAX.fullmatch(item):
            raise ValueError(
                f"unknown --offload-arch {item!r}: not an AMD GPU target "
                f"(expected e.g. gfx942, gfx90a, gfx1100)"
            )
        out.append(item)
    return out


def parse_archs(value: str | Iterable[str]) -> tuple[Target, ...]:
    """The known `Target`s of an `--offload-arch` list (`split_archs` syntax; features such as
    `:xnack+` do not change a target's rule data)."""
    out: list[Target] = []
    for a in split_archs(value):
        base = a.split(":")[0]  # gfx90a:xnack+ -> gfx90a
        if base not in TARGETS:
            raise ValueError(f"unknown --offload-arch {a!r} (known: {', '.join(sorted(TARGETS))})")
        if TARGETS[base] not in out:
            out.append(TARGETS[base])
    if not out:
        raise ValueError("--offload-arch needs at least one target")
    return tuple(out)


def fmt_targets(archs: Iterable[str]) -> str:
    return ", ".join(archs)


def verb_for(archs: Sequence[str], plural: str, singular: str | None = None) -> str:
    """The verb `plural` in agreement with the targets `archs` as its subject: `gfx942 runs`,
    `gfx942, gfx90a run` (`singular`: the form for one target when it is not `plural` + s)."""
    if len(archs) != 1:
        return plural
    return singular if singular is not None else plural + "s"
