"""Which vendor compiles a piece of code: the one question rules ask of vendor switches.

A *vendor switch* is a conditional that picks code per vendor: in C++ an `#if`/`#ifdef` chain
naming `__HIP_PLATFORM_AMD__`, `__HIP_PLATFORM_NVIDIA__`, `__HIPCC__`, `__HIP__`, `USE_ROCM`,
`GGML_USE_HIP`-style project flags, `__gfx942__`... (`preproc.is_vendor_macro`); in Python (next)
an `if is_hip():`/`if torch.version.hip:` block. Every language answers through the same small
interface, `VendorModel.compiled(start, end)`, with a `Compiled` value:

- `amd`: is the code compiled for AMD? True / False / None (unknown);
- `nvidia`: the same for NVIDIA (nvcc, or HIP on NVIDIA);
- `switched`: does a vendor switch enclose it (the code was placed per vendor by hand)?
- `side`: the summary `Side.AMD` / `NVIDIA` / `BOTH` / `NEITHER` / `UNKNOWN`.

Rule policy, the same for every rule: a finding is reported on code AMD compiles and never on
code it does not (`Compiled.not_for_amd`). Rules that trust hand-written per-target code (a
32-lane literal under `#if __AMDGCN_WAVEFRONT_SIZE == 32`) also skip `Compiled.per_target`.

The C++ model (`CppVendorModel`) reads `preproc.PPState`, which evaluates each `#if` branch in
the HIP-Clang and the nvcc world. For Python, `porter.analysis.python` finds the vendor regions
of `if is_hip():`-style switches; `RegionVendorModel` answers the same question over any such
"innermost vendor region at this offset" function.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol

from .preproc import PPState


class Side(str, enum.Enum):
    AMD = "amd"  # only AMD compiles it (an AMD-only branch)
    NVIDIA = "nvidia"  # AMD does not compile it (an NVIDIA-only branch, `#if 0` aside)
    BOTH = "both"  # both vendors compile it (no switch decides)
    NEITHER = "neither"  # dead for both (`#if 0`)
    UNKNOWN = "unknown"  # the model cannot tell for at least one vendor


@dataclass(frozen=True)
class Compiled:
    amd: bool | None
    nvidia: bool | None
    switched: bool = False  # a vendor switch encloses the code
    switch_undecided: bool = False  # ... and the vendor switches alone leave `amd` unknown

    @property
    def side(self) -> Side:
        if self.amd is False:
            return Side.NEITHER if self.nvidia is False else Side.NVIDIA
        if self.nvidia is False:
            return Side.AMD if self.amd else Side.UNKNOWN
        if self.amd and self.nvidia:
            return Side.BOTH
        return Side.UNKNOWN

    @property
    def not_for_amd(self) -> bool:
        """AMD never compiles this code: no rule reports it."""
        return self.amd is False

    @property
    def per_target(self) -> bool:
        """Inside a vendor switch whose AMD side the model cannot decide (`#ifdef __GFX9__`,
        `#if __AMDGCN_WAVEFRONT_SIZE == 64`): code written per target by hand. (An unknown
        project flag around a decided switch, `#ifdef FAST` ... `#ifdef USE_ROCM`, is not.)"""
        return self.switch_undecided and self.amd is None

    @property
    def hands_off(self) -> bool:
        """`not_for_amd` or `per_target`: what rules that trust hand-written per-target code
        (the 32-lane rules) leave alone."""
        return self.not_for_amd or self.per_target


EVERYWHERE = Compiled(True, True, False)


class VendorModel(Protocol):
    """What rules ask of a file's vendor switches, whatever its language."""

    def compiled(self, start: int, end: int | None = None) -> Compiled:
        """Is the byte range [start, end) compiled for AMD / NVIDIA? (a range inside one
        branch; only `start` is looked at)."""
        ...


def _tri(v: int | None) -> bool | None:
    return None if v is None else bool(v)


class CppVendorModel:
    """`VendorModel` for C++/CUDA/HIP, over the file's `#if` model."""

    def __init__(self, pp: PPState):
        self.pp = pp
        self._memo: dict[int, Compiled] = {}

    def compiled(self, start: int, end: int | None = None) -> Compiled:
        b = self.pp.branch_at(start)
        if b is None:
            return EVERYWHERE
        key = id(b)
        c = self._memo.get(key)
        if c is None:
            switched, undecided = False, False
            for x in self.pp.enclosing(start):
                if x.group is not None and x.group.mentions_vendor():
                    switched = True
                    v = self.pp.branch_value(x, "amd")
                    if v == 0:
                        undecided = False
                        break
                    undecided = undecided or v is None
            c = Compiled(
                _tri(self.pp.path_value(start, "amd")),
                _tri(self.pp.path_value(start, "nv")),
                switched,
                undecided,
            )
            self._memo[key] = c
        return c

    def amd_within(self, pos: int, scope_pos: int) -> bool | None:
        """Is `pos` compiled for AMD whenever `scope_pos` is? Only the branches that enclose
        `pos` but not `scope_pos` count (a declaration inside a kernel: the kernel's own `#if`
        around it does not)."""
        outer = {id(b) for b in self.pp.enclosing(scope_pos)}
        v: bool | None = True
        for b in self.pp.enclosing(pos):
            if id(b) in outer:
                break
            bv = _tri(self.pp.branch_value(b, "amd"))
            if bv is False:
                return False
            if bv is None:
                v = None
        return v

    def at(self, node) -> Compiled:
        """`compiled` for a tree-sitter node (or anything with `start_byte`)."""
        return self.compiled(node.start_byte, node.end_byte)


class RegionVendorModel:
    """`VendorModel` over vendor regions: `vendor_at(offset)` names the vendor ("amd" or
    "nvidia") whose side of the innermost switch holds the offset, or None outside switches
    (`porter.analysis.python.PyFacts.vendor_at` is one)."""

    def __init__(self, vendor_at):
        self._vendor_at = vendor_at

    def compiled(self, start: int, end: int | None = None) -> Compiled:
        v = self._vendor_at(start)
        if v == "amd":
            return Compiled(True, False, True)
        if v in ("nvidia", "nv", "cuda"):
            return Compiled(False, True, True)
        return EVERYWHERE
