"""PT812: overload sets that collapse when CUDA types become HIP types."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..findings import Applicability, Edit, Severity
from .base import Rule
from .registry import register

if TYPE_CHECKING:
    from tree_sitter import Node

_IDENT = re.compile(r"[A-Za-z_]\w*")
_FUNCTIONS = "(function_declarator) @f"
_GUARD_OPEN = b"#if !defined(__HIP_PLATFORM_AMD__)  // one overload on AMD: the types are equal\n"
_GUARD_CLOSE = b"\n#endif"
_OWNERS = ("function_definition", "declaration", "field_declaration", "template_declaration")
_THROUGH = ("pointer_declarator", "reference_declarator")


def _is_word(c: str) -> bool:
    """A character `\\w` matches in a str pattern."""
    return c == "_" or c.isalnum()


def _drop_word(text: str, word: str) -> str:
    """`re.sub(r"\\b" + re.escape(word) + r"\\b", "", text, count=1)` without a pattern per
    word (hundreds of distinct parameter names overflow `re`'s cache of compiled patterns):
    the first occurrence with a word boundary at both ends, removed."""
    n = len(word)
    first, last = _is_word(word[0]), _is_word(word[-1])
    i = text.find(word)
    while i >= 0:
        before = i > 0 and _is_word(text[i - 1])
        after = i + n < len(text) and _is_word(text[i + n])
        if before != first and after != last:
            return text[:i] + text[i + n :]
        i = text.find(word, i + 1)
    return text


def _owner(fd):
    """The declaration or definition a function's own declarator belongs to (None for a
    function pointer or a parameter's declarator)."""
    p = fd.parent
    while p is not None and p.type in _THROUGH:
        p = p.parent
    if p is None or p.type not in _OWNERS:
        return None
    if p.parent is not None and p.parent.type == "template_declaration":
        p = p.parent
    return p


def _amd_guard(data: bytes, owner) -> list[Edit] | None:
    """Edits putting the whole declaration under `#if !defined(__HIP_PLATFORM_AMD__)`, when it
    has its lines to itself."""
    start = data.rfind(b"\n", 0, owner.start_byte) + 1
    end = data.find(b"\n", owner.end_byte)
    end = len(data) if end < 0 else end
    rest = data[owner.end_byte : end].strip(b" \t;\r")
    if data[start : owner.start_byte].strip() or (rest and not rest.startswith(b"//")):
        return None
    return [Edit(start, start, _GUARD_OPEN), Edit(end, end, _GUARD_CLOSE)]


def _declared_name(node) -> bytes | None:
    """The identifier a parameter declarator declares (`*p`, `&r`, `a[4]` -> the name)."""
    while node is not None and node.type not in ("identifier", "field_identifier"):
        node = node.child_by_field_name("declarator")
    return node.text if node is not None else None


@register
class CollapsingOverloads(Rule):
    """Overloads that become one function once CUDA types are HIP types.

    ## What it finds
    Functions of the same name declared in one file whose parameter types differ in CUDA but are
    equal after porting, because two CUDA types map to one HIP type: `cudaError_t` and the
    driver's `CUresult` both become `hipError_t`, `cudaStream_t` and `CUstream` both become
    `hipStream_t`, `cudaEvent_t` and `CUevent` both become `hipEvent_t`.

    ## Why it breaks on AMD
    The ported file defines the same function twice ("redefinition of
    `_cudaGetErrorEnum(hipError_t)`"), or declares two overloads a call can no longer tell
    apart. NVIDIA's cuda-samples `helper_cuda.h` has such a pair (`_cudaGetErrorEnum` for the
    runtime and for the driver API).

    ## Example
    ```cpp
    static const char *_cudaGetErrorEnum(cudaError_t error) { return cudaGetErrorName(error); }
    static const char *_cudaGetErrorEnum(CUresult error) { ... }   // same signature on HIP
    ```

    ## Use instead
    Keep one of the overloads on AMD: put the later one under
    `#if !defined(__HIP_PLATFORM_AMD__)` (HIP's runtime and driver APIs share their types, so
    the first overload serves calls of both), or rename one of them. The safe fix, which
    `porter port` applies, does the first when the declaration has its lines to itself: on AMD
    both overloads are one function, so keeping the first is the only way to keep both call
    sites compiling without renaming.

    ## Fix safety
    Safe. The fix puts the later overload's whole declaration under
    `#if !defined(__HIP_PLATFORM_AMD__)` ... `#endif`: NVIDIA builds are unchanged, and on AMD,
    where both overloads take the same HIP type (HIP's runtime and driver APIs share
    `hipError_t`, `hipStream_t`, `hipEvent_t`), the first one receives the calls of both with
    the same values. Offered only when the declaration has its lines to itself (nothing before
    it on its first line, only `;` or a comment after it on its last); otherwise rename or guard
    by hand.

    ## References
    - ROCm 7.2 `hip/hip_runtime_api.h`: `hipError_t`, `hipStream_t`, `hipEvent_t` serve both
      the runtime and the driver API
    - porter's `mappings/runtime.csv` and `mappings/driver.csv` (the CUDA -> HIP type rows)
    """

    code = "PT812"
    name = "overloads-collapse-after-porting"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = (
        b"cuda",
        b"CU",
        b"cublas",
        b"cusparse",
        b"cufft",
        b"curand",
        b"cusolver",
        b"cudnn",
        b"nvrtc",
    )

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Two overloads collapse only when two distinct identifiers of the file map to one name
        (`cudaError_t` and `CUresult` -> `hipError_t`, or `cudaStream_t` beside `hipStream_t`):
        without such a pair the file needs no parse for this rule."""
        if index is None:
            return True
        if self._images_of is not index:  # identifier -> its HIP name, per mapping index
            self._images_of, self._image = index, {}
        image = self._image
        images: set[bytes] = set()
        for name in idents & index.relevant:
            if name in image:
                hip = image[name]
            else:
                row = index.pick(index.by_name.get(name.decode("ascii", "replace")), None)
                hip = row.hip.encode() if row is not None and row.hip else None
                # (a row that keeps its name, `__syncwarp` -> `__syncwarp`, changes no signature:
                # a pair with such a name is found from the other name's row)
                hip = image[name] = None if hip == name else hip
            if hip is None:
                continue
            if hip in images or hip in idents:
                return True
            images.add(hip)
        return False

    _images_of: object = None
    _image: dict[bytes, bytes | None] = {}

    def check(self, ctx):
        if ctx.root is None or ctx.index is None:
            return
        sets: dict[bytes, list[tuple[Node, tuple[str, ...], tuple[str, ...]]]] = {}
        found = ctx.walked("function_declarator")  # (the same list, when already walked)
        for fd in found if found is not None else ctx.captures(_FUNCTIONS).get("f", []):
            if _owner(fd) is None or ctx.vendor.at(fd).not_for_amd:
                continue
            name_node = fd.child_by_field_name("declarator")
            params = fd.child_by_field_name("parameters")
            if name_node is None or params is None:
                continue
            cuda = self._signature(params)
            hip = tuple(self._mapped(ctx, t) for t in cuda)
            sets.setdefault(name_node.text, []).append((name_node, cuda, hip))
        for name, decls in sets.items():
            seen: dict[tuple[str, ...], tuple[str, ...]] = {}
            reported: set[tuple[str, ...]] = set()
            for node, cuda, hip in decls:
                first = seen.setdefault(hip, cuda)
                if first == cuda or hip in reported:
                    continue
                reported.add(hip)
                fn = name.decode("utf-8", "replace")
                edits = _amd_guard(ctx.data, _owner(node.parent))
                fix = (
                    None
                    if edits is None
                    else self.make_fix(edits, Applicability.SAFE, "keep this overload off AMD")
                )
                yield self.finding(
                    ctx,
                    node,
                    f"`{fn}({', '.join(first)})` and `{fn}({', '.join(cuda)})` both become "
                    f"`{fn}({', '.join(hip)})` after porting, so the port no longer compiles: "
                    f"keep one of them on AMD (put this one under "
                    f"`#if !defined(__HIP_PLATFORM_AMD__)`) or rename it",
                    fix=fix,
                )

    @staticmethod
    def _signature(params) -> tuple[str, ...]:
        """Each parameter's type as written (the declared name taken out, spaces normalized)."""
        out = []
        for p in params.named_children:
            if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
                continue
            text = p.text.decode("utf-8", "replace")
            decl = p.child_by_field_name("declarator")
            name = _declared_name(decl) if decl is not None else None
            if p.type == "optional_parameter_declaration":
                default = p.child_by_field_name("default_value")
                if default is not None:
                    text = text[: default.start_byte - p.start_byte].rstrip().rstrip("=")
            if name:
                text = _drop_word(text, name.decode())
            out.append(" ".join(text.split()))
        return tuple(out)

    @staticmethod
    def _mapped(ctx, text: str) -> str:
        def one(m: re.Match) -> str:
            rows = ctx.index.by_name.get(m.group(0))
            row = ctx.index.pick(rows, None) if rows else None
            return row.hip if row is not None and row.hip else m.group(0)

        return _IDENT.sub(one, text)
