"""What a project does about HIP itself: shim layers (`#define cudaMalloc hipMalloc`) and vendor
switches (`#ifdef __HIP_PLATFORM_AMD__ ... #else ... #endif`). porter leaves both alone."""

from __future__ import annotations

import re

from ..parse import cuda as P
from ..source import SourceFile

_SHIM = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:\([^)\n]*\))?[ "
    rb"\t]+[^\n]*?\b(?:hip|HIP|roc)[A-Za-z_]"
    rb"|\busing[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*(?:::)?(?:hip|HIP|roc)[A-Za-z_]"
    rb"|\bnamespace[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*(?:::)?(?:hip|roc)[A-Za-z_]",
    re.MULTILINE,
)
_SHIM_WORDS = (b"hip", b"HIP", b"roc")  # one of them is in every match of _SHIM
# the regex engine finds a short literal in about two thirds of the CPU of bytes.find
_SHIM_WORD_SEARCHES = tuple(re.compile(re.escape(w)).search for w in _SHIM_WORDS)
_NAMESPACE_SEARCH = re.compile(rb"namespace").search
# a namespace alias the project declares inside a CUDA namespace, which then names its own
# `cuda::std` (mamba-ssm's ROCm branch: `namespace cuda { namespace std = ::std; }`)
_NESTED_ALIAS = re.compile(
    rb"\bnamespace[ \t\r\n]+([A-Za-z_]\w*)[ \t\r\n]*\{[ \t\r\n]*"
    rb"namespace[ \t\r\n]+([A-Za-z_]\w*)[ \t\r\n]*="
)
_GFX = re.compile(rb"gfx\d")
_AMD_WORDS = (b"HIP", b"AMD", b"ROCM", b"ROCm")


def names_amd(idents: bytes) -> bool:
    """May the file test AMD/HIP macros (a dual-vendor file)? `idents`: its identifier tokens
    joined. True when they hold `HIP`, `AMD`, `ROCM`, `ROCm` or `gfx<digit>` in any case: a
    search for each word, and `gfx` in the lowered text (one regex of the five alternatives,
    tried at every byte, took 2-3x the time)."""
    if any(w in idents for w in _AMD_WORDS):
        return True
    low = idents.lower()
    return b"gfx" in low and _GFX.search(low) is not None


def shim_names(data: bytes) -> set[str]:
    """Names a dual-vendor project maps to HIP itself: `#define cudaMalloc hipMalloc`,
    `using cudaStream_t = hipStream_t;`, `namespace cub = hipcub;`. porter leaves them (and their
    uses) alone: the project's shim already does the porting, and its CUDA build needs them."""
    out: set[str] = set()
    # every match of _SHIM lies on one line (no part of the pattern crosses a newline) that
    # holds `hip`, `HIP` or `roc`: only those lines are searched (the pattern starts with `^`
    # and `\b`, which the regex engine would try at every byte of the file)
    lines: set[tuple[int, int]] = set()
    for search in _SHIM_WORD_SEARCHES:
        m = search(data)
        while m is not None:
            pos = m.start()
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end
            lines.add((data.rfind(b"\n", 0, pos) + 1, end))
            m = search(data, end)
    for start, end in lines:
        for m in _SHIM.finditer(data, start, end):
            name = m.group(1) or m.group(2) or m.group(3)
            out.add(name.decode())
    # each match of _NESTED_ALIAS starts at a `namespace`: tried at those only, in order and
    # after the last match, as finditer would (which tries the `\b` at every byte of the file)
    m = _NAMESPACE_SEARCH(data)
    while m is not None:
        pos = m.start()
        alias = _NESTED_ALIAS.match(data, pos)  # `\b` reads the byte before pos
        if alias is not None:
            out.add(f"{alias.group(1).decode()}::{alias.group(2).decode()}")
            pos = alias.end()
        else:
            pos += 1
        m = _NAMESPACE_SEARCH(data, pos)
    return out


class TreeView:
    """What the preprocessor model reads of a file: its bytes and where comments are."""

    def __init__(self, data: bytes, root):
        self.data, self.root = data, root

    def in_comment_or_string(self, start: int, end: int) -> bool:
        return P.in_comment_or_string(self.root, start, end)


def preproc_model(src: SourceFile, root):
    """The file's #if structure (porter.analysis.preproc.PPState)."""
    from ..analysis.preproc import PPState

    return PPState(TreeView(src.data, root))


def vendor_switches(src: SourceFile, tree):
    """The file's #if structure, when it tests an AMD/HIP macro (a dual-vendor file), else None."""
    pp = preproc_model(src, tree.root_node)
    return pp if any(g.mentions_vendor() for g in pp.groups) else None


def on_nvidia_side(pp, pos: int) -> bool:
    """Is `pos` on the NVIDIA side of a vendor switch (`#ifndef __HIP_PLATFORM_AMD__`, the
    `#else` of `#ifdef USE_ROCM`)? Such code is the project's CUDA build: left as it is."""
    if pp is None:
        return False
    b = pp.branch_at(pos)
    while b is not None:
        if b.group.mentions_vendor() and pp.branch_value(b, "amd") == 0:
            return True
        b = b.group.parent
    return False
