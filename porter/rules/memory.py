"""PT4xx: on-chip memory (LDS), launch configuration and registers.

Sizes come from the constant evaluator (`ctx.consts`, `porter.analysis.consts`); code that AMD
does not compile is skipped through the vendor model (`ctx.vendor`).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.calls import call_name
from ..analysis.consts import type_size
from ..analysis.functions import (
    enclosing_function,
    function_name,
    function_qualifiers,
    shadowed_names,
)
from ..analysis.lazyre import re
from ..analysis.tree import in_code, in_comment, walk, word_outside_comments
from ..findings import Applicability, Edit, Severity
from .base import Rule, RuleContext
from .registry import register

KIB = 1024


def fmt_bytes(n: int) -> str:
    if n < KIB:
        return f"{n} bytes"
    return f"{n} bytes ({n // KIB} KiB)" if n % KIB == 0 else f"{n} bytes ({n / KIB:.1f} KiB)"


def _lds_targets(ctx: RuleContext, size: int) -> list:
    return [t for t in ctx.options.targets if size > t.lds]


def _limits(over) -> str:
    groups: dict[int, list[str]] = {}
    for t in over:
        groups.setdefault(t.lds, []).append(t.arch)
    return ", ".join(f"{lds // KIB} KiB on {'/'.join(a)}" for lds, a in sorted(groups.items()))


# -- PT401 ------------------------------------------------------------------------------------
def _is_shared_decl(ctx: RuleContext, d) -> bool:
    quals = [ctx.text(c) for c in d.children if c.type == "type_qualifier"]
    if "__shared__" not in quals:
        return False
    return not any(
        c.type == "storage_class_specifier" and ctx.text(c) == "extern" for c in d.children
    )


def _shared_decl_sizes(ctx: RuleContext, d, shadow) -> list[tuple[str, int | None]]:
    """(variable name, size in bytes or None) for each declarator of a __shared__ declaration."""
    c = ctx.consts
    ty = d.child_by_field_name("type")
    elem = type_size(ctx.text(ty)) if ty is not None else None
    decls = list(d.children_by_field_name("declarator"))
    if ty is not None and ctx.text(ty) == "__align__":
        # `__shared__ __align__(16) T x[N]`: tree-sitter-cuda puts `16) T` in an ERROR node
        elem = None
        for dd in decls:
            for n in walk(dd):
                if n.type == "ERROR":
                    kinds = [
                        k
                        for k in n.named_children
                        if k.type
                        in (
                            "primitive_type",
                            "type_identifier",
                            "sized_type_specifier",
                            "qualified_identifier",
                        )
                    ]
                    if kinds:
                        elem = type_size(ctx.text(kinds[-1]))
        decls = [
            x
            for dd in decls
            for x in walk(dd)
            if x.type == "array_declarator"
            and (x.parent is None or x.parent.type != "array_declarator")
        ][:1] or decls
    out = []
    for dd in decls:
        if dd.type == "init_declarator":
            dd = dd.child_by_field_name("declarator")
        count = 1
        ok = elem is not None
        while dd is not None and dd.type == "array_declarator":
            size = dd.child_by_field_name("size")
            v = c.eval(size, shadow) if size is not None else None
            if v is None or v < 0:
                ok = False
            else:
                count *= v
            dd = dd.child_by_field_name("declarator")
        if dd is None or dd.type != "identifier":
            ok = False
        name = ctx.text(dd) if dd is not None else "?"
        out.append((name, elem * count if ok and elem is not None else None))
    return out


@register
class LdsStaticLimit(Rule):
    """Static `__shared__` arrays of a kernel exceed the target's LDS.

    ## What it finds
    Kernels whose static `__shared__` arrays (declared in the kernel, and in `__device__`
    functions of the same file that it calls directly) add up to more bytes than one workgroup
    may allocate on a selected `--offload-arch`. Sizes are computed only from known element types
    and constant dimensions (literals, `#define`, `constexpr`/`const` integers, enumerators);
    arrays sized by template parameters or anything unknown are left out of the sum, and arrays
    in preprocessor branches other than AMD ones are not counted.

    ## Why it breaks on AMD
    LDS per workgroup is 64 KiB on MI200 (gfx90a) and MI300 (gfx942) and 160 KiB on MI350
    (gfx950); porter assumes 64 KiB for RDNA. Kernels sized for Hopper or Blackwell shared
    memory (well above 100 KiB per block) fail to compile or to launch.

    ## Example
    ```cpp
    #define TILE 128
    __global__ void gemm(const float* a, const float* b, float* c) {
        __shared__ float As[TILE][TILE];   // 64 KiB
        __shared__ float Bs[TILE][TILE];   // 64 KiB: 128 KiB in total
    }
    ```

    ## Use instead
    Re-tile (smaller tiles, fewer pipeline stages, fp16 staging) so the kernel fits the LDS of
    every target, or select tile sizes per architecture at compile time.

    ## References
    - AMD GPU hardware specifications table (`gpu-arch-specs`: LDS 64 KiB on MI250X/MI300X,
      160 KiB on MI350X/MI355X)
    - porter `../shared/hazards.md` LDS-STATIC-LIMIT
    """

    code = "PT401"
    name = "lds-static-limit"
    severity = Severity.ERROR
    triggers = (b"__shared__",)

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on a function whose qualifiers hold `__global__`
        (functions.function_qualifiers) and sums declarations qualified `__shared__`: without
        both words outside comments (CUB's documentation shows kernels in comments) the file
        needs no parse for this rule."""
        return (
            b"__global__" in data
            and word_outside_comments(data, b"__global__")
            and word_outside_comments(data, b"__shared__")
        )

    def check(self, ctx: RuleContext) -> Iterator:
        fns = [n for n in ctx.nodes("function_definition")]
        device_fns: dict[str, list] = {}
        for fn in fns:
            q = function_qualifiers(ctx, fn)
            if "__device__" in q and "__global__" not in q:
                name = function_name(ctx, fn)
                if name:
                    device_fns.setdefault(name, []).append(fn)
        shared = [d for d in ctx.nodes("declaration") if _is_shared_decl(ctx, d)]
        if not shared:
            return
        by_fn: dict[int, list] = {}
        for d in shared:
            fn = enclosing_function(d, lambdas=False)
            if fn is not None:
                by_fn.setdefault(fn.start_byte, []).append(d)
        for fn in fns:
            if "__global__" not in function_qualifiers(ctx, fn):
                continue
            parts: list[tuple[str, int]] = []
            unknown = 0
            sources = [(fn, by_fn.get(fn.start_byte, []))]
            body = fn.child_by_field_name("body")
            seen = set()
            if body is not None:
                for call in walk(body):
                    if call.type != "call_expression":
                        continue
                    name = call_name(ctx, call)
                    if name in device_fns and len(device_fns[name]) == 1 and name not in seen:
                        seen.add(name)
                        callee = device_fns[name][0]
                        sources.append((callee, by_fn.get(callee.start_byte, [])))
            for owner, decls in sources:
                shadow = shadowed_names(ctx, owner)
                for d in decls:
                    if ctx.vendor.amd_within(d.start_byte, owner.start_byte) is not True:
                        continue
                    for name, size in _shared_decl_sizes(ctx, d, shadow):
                        if size is None:
                            unknown += 1
                        else:
                            parts.append((name, size))
            total = sum(s for _, s in parts)
            over = _lds_targets(ctx, total)
            if not over:
                continue
            kname = function_name(ctx, fn) or "kernel"
            detail = ", ".join(f"{n}: {s}" for n, s in parts[:6]) + (
                ", ..." if len(parts) > 6 else ""
            )
            least = "at least " if unknown else ""
            where = fn.child_by_field_name("declarator") or fn
            yield self.finding(
                ctx,
                (fn.start_byte, where.end_byte if where is not fn else fn.start_byte + 1),
                f"kernel `{kname}` declares {least}{fmt_bytes(total)} of static __shared__ memory "
                f"({detail}), more than the LDS per workgroup ({_limits(over)}); re-tile or "
                f"reduce stages so it fits",
                targets=tuple(t.arch for t in over),
            )


# -- PT402 ------------------------------------------------------------------------------------
_SETATTR = ("cudaFuncSetAttribute", "hipFuncSetAttribute", "cuFuncSetAttribute")
_DYN_ATTR = (
    "cudaFuncAttributeMaxDynamicSharedMemorySize",
    "hipFuncAttributeMaxDynamicSharedMemorySize",
    "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
    "HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
)


@register
class LdsDynamicOptin(Rule):
    """Dynamic shared memory request above the target's LDS.

    ## What it finds
    `cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)` (and the
    `hipFuncSetAttribute` / `cuFuncSetAttribute` spellings), kernel launches whose dynamic
    shared-memory argument (`k<<<g, b, bytes>>>`, `hipLaunchKernelGGL`, `cudaLaunchKernel`) and
    `cudaLaunchConfig_t::dynamicSmemBytes` assignments, when `bytes` is a constant expression
    larger than the LDS of a selected target.

    ## Why it breaks on AMD
    HIP maps the calls, but the hardware caps one workgroup at 64 KiB of LDS on gfx90a and
    gfx942 and 160 KiB on gfx950. Sizes computed for NVIDIA's opt-in shared memory (up to
    about 227 KiB per block on Hopper) fail at launch.

    ## Example
    ```cpp
    cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);
    gemm<<<grid, 256, 96 * 1024, stream>>>(a, b, c);
    ```

    ## Use instead
    Query the limit at run time (`hipDeviceAttributeSharedMemPerBlockOptin` or
    `sharedMemPerBlock`) and choose tile sizes per architecture.

    ## References
    - HIPIFY runtime API support table (`hipFuncSetAttribute`,
      `hipDeviceAttributeSharedMemPerBlockOptin`)
    - AMD GPU hardware specifications table (LDS per workgroup)
    """

    code = "PT402"
    name = "lds-dynamic-optin"
    severity = Severity.ERROR
    triggers = (
        b"MaxDynamicSharedMemorySize",
        b"MAX_DYNAMIC_SHARED_SIZE_BYTES",
        b"<<<",
        b"hipLaunchKernelGGL",
        b"LaunchKernel",
        b"dynamicSmemBytes",
    )

    def check(self, ctx: RuleContext) -> Iterator:
        def report(node, value_node, what):
            fn = enclosing_function(node, lambdas=False)
            shadow = shadowed_names(ctx, fn) if fn is not None else frozenset()
            v = ctx.consts.eval(value_node, shadow)  # (the constants read on first need)
            if v is None or ctx.vendor.at(node).not_for_amd:
                return None
            over = _lds_targets(ctx, v)
            if not over:
                return None
            return self.finding(
                ctx,
                value_node,
                f"{what} {fmt_bytes(v)} of dynamic shared memory, more than the LDS per "
                f"workgroup ({_limits(over)}); query the limit at run time and pick a smaller "
                f"tile for these targets",
                targets=tuple(t.arch for t in over),
            )

        for cl in ctx.calls.named(_SETATTR, forwarding=False):
            name, call, args = cl.name, cl.node, cl.args
            if len(args) >= 3 and ctx.text(args[1]).split("::")[-1] in _DYN_ATTR:
                f = report(call, args[2], f"`{name}` opts in to")
                if f:
                    yield f
        # (a kernel_call_syntax node holds a `<<<` token: without one, no tree walk)
        for ks in ctx.nodes("kernel_call_syntax") if b"<<<" in ctx.data else ():
            exprs = [n for n in ks.named_children if n.type != "comment"]
            if len(exprs) >= 3:
                f = report(ks, exprs[2], "this launch requests")
                if f:
                    yield f
        for cl in ctx.calls.named(("hipLaunchKernelGGL",), forwarding=False):
            name, call, args = cl.name, cl.node, cl.args
            if len(args) >= 4:
                f = report(call, args[3], "this launch requests")
                if f:
                    yield f
        for cl in ctx.calls.named(
            (
                "cudaLaunchKernel",
                "hipLaunchKernel",
                "cudaLaunchCooperativeKernel",
                "hipLaunchCooperativeKernel",
            ),
            forwarding=False,
        ):
            name, call, args = cl.name, cl.node, cl.args
            if len(args) >= 5:
                f = report(call, args[4], f"`{name}` requests")
                if f:
                    yield f
        for fld in ctx.identifiers(("dynamicSmemBytes",), kinds={"field_identifier"}):
            fe = fld.parent
            asg = fe.parent if fe is not None else None
            if (
                asg is not None
                and asg.type == "assignment_expression"
                and asg.child_by_field_name("left") == fe
            ):
                f = report(asg, asg.child_by_field_name("right"), "`dynamicSmemBytes` requests")
                if f:
                    yield f


# -- PT403 ------------------------------------------------------------------------------------
_CACHECFG = (
    "cudaFuncSetCacheConfig",
    "hipFuncSetCacheConfig",
    "cudaDeviceSetCacheConfig",
    "hipDeviceSetCacheConfig",
    "cudaDeviceSetSharedMemConfig",
    "hipDeviceSetSharedMemConfig",
    "cudaFuncSetSharedMemConfig",
    "hipFuncSetSharedMemConfig",
    "cuFuncSetCacheConfig",
    "cuCtxSetCacheConfig",
    "cuCtxSetSharedMemConfig",
    "hipCtxSetCacheConfig",
    "hipCtxSetSharedMemConfig",
)
_CARVEOUT = (
    "cudaFuncAttributePreferredSharedMemoryCarveout",
    "hipFuncAttributePreferredSharedMemoryCarveout",
    "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT",
    "HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT",
)


@register
class SmemCarveoutCacheConfig(Rule):
    """Shared-memory carveout or cache/bank configuration call.

    ## What it finds
    Calls of `cudaFuncSetCacheConfig`, `cudaDeviceSetCacheConfig`,
    `cudaDeviceSetSharedMemConfig`, `cudaFuncSetSharedMemConfig` (and their HIP and driver
    spellings) and `cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, n)`.

    ## Why it breaks on AMD
    HIP maps these calls, but AMD's LDS is a structure separate from the L1 cache, so there is
    no carveout to trade: the calls are hints with probably no effect. The bank-size
    configuration is deprecated since CUDA 12.4.

    ## Example
    ```cpp
    cudaFuncSetCacheConfig(stencil, cudaFuncCachePreferShared);
    ```

    ## Use instead
    Drop the call, or keep it under `#ifndef __HIP_PLATFORM_AMD__`; tune LDS use by tile size.

    ## References
    - HIPIFY runtime API support table (cache and shared-memory configuration rows)
    - HIP documentation, hardware implementation (LDS and cache hierarchy)
    """

    code = "PT403"
    name = "smem-carveout-cache-config"
    severity = Severity.INFO
    triggers = (
        b"CacheConfig",
        b"SharedMemConfig",
        b"SharedMemoryCarveout",
        b"SHARED_MEMORY_CARVEOUT",
    )

    def check(self, ctx: RuleContext) -> Iterator:
        for cl in ctx.calls.named(_CACHECFG, forwarding=False):
            name, call, args = cl.name, cl.node, cl.args
            if ctx.vendor.at(call).not_for_amd:
                continue
            yield self.finding(
                ctx,
                call.child_by_field_name("function"),
                f"`{name}` configures an L1/shared-memory split or bank size that AMD GPUs do not "
                f"have (LDS is separate from L1), so it has no effect there; drop it or guard it "
                f"with #ifndef __HIP_PLATFORM_AMD__",
            )
        for cl in ctx.calls.named(_SETATTR, forwarding=False):
            name, call, args = cl.name, cl.node, cl.args
            if (
                len(args) >= 2
                and ctx.text(args[1]).split("::")[-1] in _CARVEOUT
                and not ctx.vendor.at(call).not_for_amd
            ):
                yield self.finding(
                    ctx,
                    args[1],
                    f"`{ctx.text(args[1])}` sets a shared-memory carveout; AMD's LDS is separate "
                    f"from L1, so the hint has no effect there; drop it or guard it with "
                    f"#ifndef __HIP_PLATFORM_AMD__",
                )


# -- PT404 / PT405 ----------------------------------------------------------------------------
_LB = re.compile(rb"\b__launch_bounds__\s*\(")


def _split_args(data: bytes, open_paren: int) -> tuple[list[tuple[int, int]], int] | None:
    """Top-level comma-separated argument spans of the parenthesis at `open_paren`.

    Commas inside template argument lists (`f<A, B>::value`) do not split: a `<` that follows
    an identifier opens one. Returns None when the brackets do not balance."""
    depth, angle, start, spans = 0, 0, open_paren + 1, []
    i = open_paren
    while i < len(data):
        ch = data[i : i + 1]
        if ch in (b"(", b"[", b"{"):
            depth += 1
        elif ch in (b")", b"]", b"}"):
            depth -= 1
            if depth == 0:
                if angle:
                    return None
                spans.append((start, i))
                return [s for s in spans if data[s[0] : s[1]].strip()] or [], i + 1
        elif ch == b"<" and data[i + 1 : i + 2] not in (b"<", b"=") and data[i - 1 : i] != b"<":
            j = i - 1
            while j > open_paren and data[j : j + 1] in (b" ", b"\t", b"\n"):
                j -= 1
            if re.match(rb"[\w]", data[j : j + 1]):
                angle += 1
        elif ch == b">" and angle and data[i - 1 : i] != b"-":
            angle -= 1
        elif ch == b"," and depth == 1 and not angle:
            spans.append((start, i))
            start = i + 1
        i += 1
    return None


def launch_bounds(ctx: RuleContext, may_report=None):
    """(start, end, [(arg_start, arg_end), ...]) for each `__launch_bounds__(...)` in code.
    With `may_report(data, args)`, only those for which it says True: it decides from the
    bytes, before the tree is read to tell code from comments, strings and macro bodies."""
    out = []
    data = ctx.data
    for m in _LB.finditer(data):
        if in_comment(data, m.start()):
            continue  # (the tree has a comment there too: not in code)
        sp = _split_args(data, m.end() - 1)
        if sp is None:
            continue
        args, end = sp
        if may_report is not None and not may_report(data, args):
            continue
        if not in_code(ctx, m.start(), m.start() + 17):
            continue
        out.append((m.start(), end, args))
    return out


# An argument whose value the constant evaluator never knows, whatever the file defines (its
# tree, in the file or parsed alone, is one of these): a name qualified twice or more
# (`Policy::ActivePolicy::BLOCK_THREADS`: a qualified_identifier whose name is another one) or a
# functional cast `int(...)` (a call_expression) around the whole argument
_QUALIFIED_TWICE = re.compile(rb"\s*(?:::\s*)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*){2,}\s*")
_INT_CAST = re.compile(rb"\s*int\s*\(")
_ZERO_OR_ONE = re.compile(rb"\s*[01]\s*")


def _never_known(raw: bytes) -> bool:
    if _QUALIFIED_TWICE.fullmatch(raw):
        return True
    m = _INT_CAST.match(raw)
    if m is None or any(c in raw for c in b"/\"'\\"):  # (no comment, literal or splice)
        return False
    depth = 0
    for i in range(m.end() - 1, len(raw)):
        c = raw[i]
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return not raw[i + 1 :].strip()  # the cast's `)` ends the argument
    return False


def _min_blocks_may_report(data: bytes, args) -> bool:
    """PT404 reports two arguments whose second is not a literal 0 or 1 (`mn <= 1` skips)."""
    return len(args) == 2 and not _ZERO_OR_ONE.fullmatch(data[args[1][0] : args[1][1]])


def _form_may_report(data: bytes, args) -> bool:
    """PT405 reports commas to wrap, a third argument, or a first above 1024: not one whose
    value is never known."""
    if len(args) >= 3 or any(_comma_outside_parens(data[a[0] : a[1]]) for a in args):
        return True
    return bool(args) and not _never_known(data[args[0][0] : args[0][1]])


def _arg_value(ctx: RuleContext, span, shadow) -> int | None:
    assert ctx.root is not None  # launch-bounds rules need the tree
    node = ctx.root.descendant_for_byte_range(*span) if span else None
    text = ctx.data[span[0] : span[1]].decode("utf-8", "replace").strip()
    # prefer the tree node when it covers exactly the argument (keeps template shadowing)
    if node is not None and ctx.btext(node).strip() == text.encode() and node.type != "ERROR":
        return ctx.consts.eval(node, shadow)
    if any(tok in shadow for tok in re.findall(r"[A-Za-z_]\w*", text)):
        return None
    return ctx.consts.text(text)


def _comma_outside_parens(raw: bytes) -> bool:
    depth = 0
    for ch in raw:
        if ch == 0x28:  # (
            depth += 1
        elif ch == 0x29:  # )
            depth -= 1
        elif ch == 0x2C and depth == 0:
            return True
    return False


def _short(raw: bytes, limit: int = 40) -> str:
    text = " ".join(raw.decode("utf-8", "replace").split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _lb_shadow(ctx: RuleContext, pos: int) -> frozenset[str]:
    assert ctx.root is not None
    node = ctx.root.descendant_for_byte_range(pos, pos + 1)
    fn = enclosing_function(node, lambdas=False) if node is not None else None
    if node is not None and node.type == "function_definition":
        fn = node
    return shadowed_names(ctx, fn) if fn is not None else frozenset()


@register
class LaunchBoundsMinBlocks(Rule):
    """`__launch_bounds__` second argument means waves per EU on AMD, not blocks per SM.

    ## What it finds
    `__launch_bounds__(MAX_THREADS, MIN_BLOCKS)` with a second argument other than 1.

    ## Why it breaks on AMD
    In CUDA the second parameter is the minimum number of resident blocks per multiprocessor.
    HIP passes it to `amdgpu_waves_per_eu`: the minimum number of waves per execution unit
    (SIMD). Register allocation and occupancy change silently. The HIP kernel-language guide
    converts with `MIN_WARPS_PER_EU = MIN_BLOCKS_PER_MP * MAX_THREADS / 32`, which itself assumes
    32-wide warps (a block of 256 threads is 4 waves on wave64 targets, spread over 4 SIMDs per
    CU). A second argument of 1 means "no occupancy constraint" on both and is not reported.

    ## Example
    ```cpp
    __global__ void __launch_bounds__(256, 4) reduce(const float* x, float* y);
    ```

    ## Use instead
    Recompute the value for the occupancy wanted, or state it explicitly with
    `__attribute__((amdgpu_flat_work_group_size(1, 256), amdgpu_waves_per_eu(n)))` under an
    AMD guard.

    ## References
    - HIP kernel language reference, `__launch_bounds__` section
    - ROCm 7.2 `hip/amd_detail/amd_hip_runtime.h` (`launch_bounds_impl1` expands to
      `amdgpu_waves_per_eu(minBlocksPerMultiprocessor)`)
    """

    code = "PT404"
    name = "launch-bounds-min-blocks"
    severity = Severity.WARNING
    triggers = (b"__launch_bounds__",)

    def check(self, ctx: RuleContext) -> Iterator:
        for start, end, args in launch_bounds(ctx, _min_blocks_may_report):
            if len(args) != 2:
                continue
            assert ctx.root is not None
            node = ctx.root.descendant_for_byte_range(start, end)
            if node is not None and ctx.pp.skip(node.start_byte):
                continue
            shadow = _lb_shadow(ctx, start)
            mx, mn = (_arg_value(ctx, a, shadow) for a in args)
            mn_text = _short(ctx.data[args[1][0] : args[1][1]])
            mx_text = _short(ctx.data[args[0][0] : args[0][1]])
            if mn is not None and mn <= 1:
                continue
            if mx is not None and mn is not None:
                conv = (
                    f"; the HIP guide's conversion MIN_BLOCKS * MAX_THREADS / 32 gives "
                    f"{mn * mx // 32}, and {mn} blocks of {mx} threads are "
                    f"{mn * -(-mx // 64)} waves per CU on wave64 targets"
                )
            else:
                conv = "; the HIP guide converts with MIN_BLOCKS * MAX_THREADS / 32"
            yield self.finding(
                ctx,
                (start, end),
                f"`__launch_bounds__({mx_text}, {mn_text})`: HIP reads the second argument "
                f"`{mn_text}` as minimum waves per execution unit (amdgpu_waves_per_eu), not "
                f"minimum blocks per multiprocessor{conv}; recompute it for the occupancy you "
                f"want or use amdgpu_waves_per_eu explicitly",
            )


@register
class LaunchBoundsUnsupportedForm(Rule):
    """`__launch_bounds__` with a cluster argument or more than 1024 threads.

    ## What it finds
    The CUDA 12 three-argument form `__launch_bounds__(max, min, maxBlocksPerCluster)`, and a
    first argument (maximum threads per block) above 1024.

    ## Why it breaks on AMD
    HIP documents only two parameters, and AMD has no thread-block clusters. HIP's macro picks
    its implementation by argument position, so a third argument expands to a call of that
    argument: a compile error. A block holds at most 1024 threads on both vendors
    (16 wavefronts on wave64), so a larger maximum is rejected by the
    `amdgpu_flat_work_group_size` attribute.

    ## Example
    ```cpp
    __global__ void __launch_bounds__(256, 1, 2) cluster_kernel(float* x);
    ```

    ## Use instead
    Drop the cluster argument (guard it with `#ifndef __HIP_PLATFORM_AMD__`), and keep the
    maximum threads per block at 1024 or below.

    ## Fix safety
    Safe. The fix puts parentheses around a `__launch_bounds__` argument whose commas are not
    inside parentheses (a template argument list, `Traits<A, B>::kThreads`): the expression has
    the same value, and HIP's macro sees one argument instead of several. A third (cluster)
    argument and a maximum above 1024 are reported without a fix: what to drop or lower is a
    design decision.

    ## References
    - HIP kernel language reference, `__launch_bounds__` (two parameters)
    - ROCm 7.2 `hip/amd_detail/amd_hip_runtime.h` (`select_impl_` dispatch of
      `__launch_bounds__`)
    - HIP FAQ (maximum threads per block: 1024)
    """

    code = "PT405"
    name = "launch-bounds-unsupported-form"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = (b"__launch_bounds__",)

    def check(self, ctx: RuleContext) -> Iterator:
        for start, end, args in launch_bounds(ctx, _form_may_report):
            assert ctx.root is not None
            node = ctx.root.descendant_for_byte_range(start, end)
            if node is not None and ctx.vendor.at(node).not_for_amd:
                continue
            text = _short(ctx.data[start:end], 80)
            # HIP's __launch_bounds__ is a variadic macro: the preprocessor splits a template
            # argument list (`Traits<A, B>::kThreads`) at its commas. Parentheses keep it whole.
            wrap = [a for a in args if _comma_outside_parens(ctx.data[a[0] : a[1]])]
            if wrap and len(args) <= 2:
                fx = self.make_fix(
                    [e for a in wrap for e in (Edit(a[0], a[0], b"("), Edit(a[1], a[1], b")"))],
                    Applicability.SAFE,
                    "parenthesize the template expression",
                )
                yield self.finding(
                    ctx,
                    (start, end),
                    f"`{text}`: HIP's __launch_bounds__ is a macro, so the commas of the template "
                    f"arguments split it into extra arguments; wrap the expression in parentheses",
                    fix=fx,
                )
                continue
            if len(args) >= 3:
                yield self.finding(
                    ctx,
                    (start, end),
                    f"`{text}` has a third (cluster) argument: HIP's __launch_bounds__ takes at "
                    f"most two and AMD has no thread-block clusters; drop the extra argument",
                )
                continue
            if args:
                mx = _arg_value(ctx, args[0], _lb_shadow(ctx, start))
                if mx is not None and mx > 1024:
                    yield self.finding(
                        ctx,
                        (start, end),
                        f"`{text}` allows {mx} threads per block; AMD GPUs (like NVIDIA's) run "
                        f"at most 1024, so the attribute is rejected; use 1024 or less",
                    )


# -- PT406 ------------------------------------------------------------------------------------
_AMBIGUOUS = "ambiguous"  # a local dim3 declared twice, assigned, or not constant


_Dim3s = dict[str, "tuple[int, ...] | str"]


def _dim3(ctx: RuleContext, node, shadow, local_dim3s: _Dim3s | None) -> tuple[int, ...] | None:
    """Values of a launch dimension: a scalar, `dim3(x, y, z)`, or a local `dim3 v(...)`
    (`local_dim3s`: the enclosing function's, see _local_dim3s)."""
    c = ctx.consts
    if node is None:
        return None
    if node.type == "call_expression" and call_name(ctx, node) == "dim3":
        args = node.child_by_field_name("arguments")
        vals = [c.eval(a, shadow) for a in args.named_children] if args is not None else []
        return _xyz(vals)
    if node.type == "identifier" and local_dim3s is not None:
        found = local_dim3s.get(ctx.text(node))
        if found is not None:
            return found if isinstance(found, tuple) else None
    v = c.eval(node, shadow)
    return (v, 1, 1) if v is not None else None


def _xyz(vals: list[int | None]) -> tuple[int, ...] | None:
    """(x, y, z) of one to three constant dim3 arguments, missing ones 1; None otherwise."""
    ints = [v for v in vals if v is not None]
    if not ints or len(ints) != len(vals) or len(ints) > 3:
        return None
    return tuple(ints + [1] * (3 - len(ints)))


def _local_dim3s(ctx: RuleContext, fn_body, shadow) -> _Dim3s:
    """One walk of a function body: each local `dim3 v(...)`/`dim3 v{...}` initialised with
    constants -> its (x, y, z); _AMBIGUOUS when declared twice, assigned or updated (`v.x = ...`,
    `v = ...`, `++v.x`) anywhere in the body, or not initialised with constants. (Walking the
    body once per launch made a function with thousands of launches quadratic.)"""
    c = ctx.consts
    out: _Dim3s = {}
    for d in walk(fn_body):
        if (
            d.type == "declaration"
            and d.child_by_field_name("type") is not None
            and ctx.text(d.child_by_field_name("type")) == "dim3"
        ):
            for dd in d.children_by_field_name("declarator"):
                if dd.type != "init_declarator":
                    continue
                name = ctx.text(dd.child_by_field_name("declarator"))
                val = dd.child_by_field_name("value")
                if (
                    name in out
                    or val is None
                    or val.type not in ("argument_list", "initializer_list")
                ):
                    out[name] = _AMBIGUOUS
                    continue
                xyz = _xyz([c.eval(a, shadow) for a in val.named_children])
                out[name] = _AMBIGUOUS if xyz is None else xyz
        elif d.type == "assignment_expression" or d.type == "update_expression":
            left = d.child_by_field_name("left") or d.child_by_field_name("argument")
            m = re.match(r"\w+", ctx.text(left)) if left is not None else None
            if m:
                out[m.group()] = _AMBIGUOUS
    return out


@register
class GridSize2p32(Rule):
    """Launch whose grid size times block size reaches 2^32 in a dimension.

    ## What it finds
    Kernel launches (`k<<<grid, block>>>`, `hipLaunchKernelGGL`) whose grid and block dimensions
    are constant expressions (literals, constants, `dim3(...)` or a local `dim3` initialised
    with constants) and `gridDim.d * blockDim.d >= 2^32` in some dimension.

    ## Why it breaks on AMD
    HIP does not support `gridDim * blockDim >= 2^32` in any dimension: AMD dispatches count
    work-items, not blocks, in 32-bit grid sizes. CUDA allows up to 2^31 - 1 blocks in x, so a
    one-thread-per-element launch over 2^32 or more elements works there and fails on AMD.

    ## Example
    ```cpp
    constexpr size_t N = 1ull << 33;
    scale<<<N / 256, 256>>>(x, N);
    ```

    ## Use instead
    A grid-stride loop with a grid capped to a few blocks per CU, or split the launch.

    ## References
    - HIP FAQ (grid dimension limits)
    - HIP kernel language reference, built-in variables (`gridDim`, `blockDim`)
    """

    code = "PT406"
    name = "grid-size-2p32"
    severity = Severity.ERROR
    triggers = (b"<<<", b"hipLaunchKernelGGL")

    def check(self, ctx: RuleContext) -> Iterator:
        launches = []
        # (a kernel_call_syntax node holds a `<<<` token: without one, no tree walk)
        for ks in ctx.nodes("kernel_call_syntax") if b"<<<" in ctx.data else ():
            exprs = [n for n in ks.named_children if n.type != "comment"]
            if len(exprs) >= 2:
                launches.append((ks, exprs[0], exprs[1]))
        for cl in ctx.calls.named(("hipLaunchKernelGGL",), forwarding=False):
            _name, call, args = cl.name, cl.node, cl.args
            if len(args) >= 3:
                launches.append((call, args[1], args[2]))
        per_function: dict[tuple[int, int], tuple] = {}
        for node, g, b in launches:
            if ctx.vendor.at(node).not_for_amd:
                continue
            fn = enclosing_function(node, lambdas=False)
            key = (fn.start_byte, fn.end_byte) if fn is not None else (-1, -1)
            if key not in per_function:
                shadow = shadowed_names(ctx, fn) if fn is not None else frozenset()
                body = fn.child_by_field_name("body") if fn is not None else None
                per_function[key] = (
                    shadow,
                    _local_dim3s(ctx, body, shadow) if body is not None else None,
                )
            shadow, local_dim3s = per_function[key]
            gd, bd = _dim3(ctx, g, shadow, local_dim3s), _dim3(ctx, b, shadow, local_dim3s)
            if gd is None or bd is None:
                continue
            for axis, gv, bv in zip("xyz", gd, bd):
                if gv * bv >= 1 << 32:
                    yield self.finding(
                        ctx,
                        node,
                        f"this launch has gridDim.{axis} * blockDim.{axis} = {gv} * {bv} = "
                        f"{gv * bv} threads, at or above 2^32, which HIP does not support; use a "
                        f"grid-stride loop with a smaller grid",
                    )
                    break


# -- PT407 ------------------------------------------------------------------------------------
_MAXRREG_BUILD = re.compile(rb"(?<![\w-])(?:-Xptxas[ =]+)?--?maxrregcount(?:[ =]+[\w${}]+)?")
_MAXNREG = re.compile(rb"\b__maxnreg__\s*\(")


@register
class MaxRRegCount(Rule):
    """Register cap (`-maxrregcount`, `__maxnreg__`) that HIP-Clang does not support.

    ## What it finds
    `--maxrregcount` / `-maxrregcount` (also through `-Xptxas`) in CMake files and Makefiles, and
    the CUDA 12.4 `__maxnreg__(N)` kernel attribute in sources.

    ## Why it breaks on AMD
    HIP-Clang does not support `--maxrregcount`: the flag is rejected or the intent is lost, so
    register pressure and occupancy differ. `__maxnreg__` is not defined by HIP, so a source
    that uses it does not compile.

    ## Example
    ```cmake
    target_compile_options(solver PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-maxrregcount=64>)
    ```

    ## Use instead
    `__launch_bounds__(MAX_THREADS)` or `__attribute__((amdgpu_waves_per_eu(n)))` on the kernel,
    for the occupancy wanted.

    ## References
    - HIP kernel language reference, maxregcount section
    """

    code = "PT407"
    name = "maxrregcount"
    severity = Severity.WARNING
    languages = ("cuda", "build")
    triggers = (b"maxrregcount", b"__maxnreg__")

    def check(self, ctx: RuleContext) -> Iterator:
        if ctx.tree is None:
            pos = 0
            for line in ctx.data.split(b"\n"):
                code = line.split(b"#", 1)[0] if line.lstrip().startswith(b"#") else line
                for m in _MAXRREG_BUILD.finditer(code):
                    s = pos + m.start()
                    flag = m.group(0).decode("utf-8", "replace")
                    yield self.finding(
                        ctx,
                        (s, pos + m.end()),
                        f"`{flag}` has no HIP-Clang equivalent; for the AMD build drop it and "
                        f"bound registers with __launch_bounds__ or amdgpu_waves_per_eu on the "
                        f"kernels",
                    )
                pos += len(line) + 1
            return
        for m in _MAXNREG.finditer(ctx.data):
            if not in_code(ctx, m.start(), m.start() + 11):
                continue
            assert ctx.root is not None
            node = ctx.root.descendant_for_byte_range(m.start(), m.start() + 11)
            if node is not None and ctx.vendor.at(node).not_for_amd:
                continue
            sp = _split_args(ctx.data, m.end() - 1)
            end = sp[1] if sp else m.end()
            yield self.finding(
                ctx,
                (m.start(), end),
                f"`{ctx.data[m.start() : end].decode('utf-8', 'replace')}` is not defined by HIP "
                f"and does not compile; drop it (guard it with #ifndef __HIP_PLATFORM_AMD__) and "
                f"use __launch_bounds__ or amdgpu_waves_per_eu",
                severity=Severity.ERROR,
            )
