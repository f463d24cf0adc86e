"""PT201–PT205: inline PTX and NVIDIA tensor-core programming (asm, special registers, cp.async,
mma/ldmatrix, WMMA).

Every `asm`/`asm volatile`/`__asm__ __volatile__` statement of a file — in code or in `#define`
bodies, not in comments or literals, as the preprocessor lexes the bytes (no tree is parsed for it)
— is found once by `porter.analysis.asm` (`ctx.asm`): its template strings are lexed, it is
classified as PTX or not (AMD GCN, x86 and ARM asm have no PTX opcodes such as `mov.u32` or PTX
special registers), and it is given one family (TMA, wgmma, cluster, PDL, mbarrier, cp.async, mma,
special register, other PTX). Each family is reported by exactly one rule (PT2xx here and in
hopper.py), so one asm statement gives one finding. asm in branches only HIP-Clang compiles (`#if
defined(__HIP_PLATFORM_AMD__)`) or only nvcc compiles (`#ifdef __HIP_PLATFORM_NVIDIA__`, `#ifndef
USE_ROCM`) is skipped; asm under `__CUDA_ARCH__` tests is dead on AMD and reported through the guard
(PT301).
"""

from __future__ import annotations

import re as _re
from functools import lru_cache

from ..analysis.asm import (  # noqa: F401  (FAMILY_CODE: documented here)
    FAMILY_CODE,
    AsmSite,
    asm_node,
    may_have_sites,
)
from ..analysis.lazyre import re
from ..analysis.lex import code_matches
from ..findings import Applicability, Edit, Severity
from .base import Rule, any_ident
from .registry import register

#: Distinct opcodes whose first suggestion is remembered per process.
_SUGGEST_CACHE = 4096

# -- suggestions for plain PTX -----------------------------------------------------------------
_SUGGEST = [
    (r"ld\.global\.nc|ldu\.", "`__ldg(ptr)` or a plain load (AMD loads go through L1/L2 anyway)"),
    (
        r"ld(?:\.global)?\.(?:acquire|relaxed)|st(?:\.global)?\.(?:release|relaxed)|ld\.volatile|st\.volatile",
        "`__hip_atomic_load`/`__hip_atomic_store` with `__ATOMIC_ACQUIRE`/`__ATOMIC_RELEASE` and "
        "`__HIP_MEMORY_SCOPE_AGENT`",
    ),
    (
        r"(?:ld|st)(?:\.global)?\.(?:cs|lu|cv|cg|ca|wt|wb|L1|L2)\b",
        "a plain load/store or `__builtin_nontemporal_load`/`__builtin_nontemporal_store`",
    ),
    (
        r"prmt",
        "`__byte_perm(x, y, s)` (default mode only; the .f4e/.b4e/.rc8/.ecl/.ecr/.rc16 modes "
        "have no HIP intrinsic)",
    ),
    (
        r"bfe\.",
        "`__bitextract_u32`/`__bitextract_u64` (unsigned only: `bfe.s32` sign extension "
        "needs "
        "a shift pair)",
    ),
    (r"bfi\.", "`__bitinsert_u32`/`__bitinsert_u64`"),
    (r"shf\.", "`__funnelshift_l`/`__funnelshift_r` (or the clamped `_lc`/`_rc` variants)"),
    (
        r"lop3\.",
        "plain `&`/`|`/`^`/`~` expressions (the AMD compiler picks bit-select instructions)",
    ),
    (r"shfl\.", "`__shfl_sync`/`__shfl_xor_sync`/`__shfl_down_sync` with 64-bit masks"),
    (r"vote\.|activemask", "`__ballot`/`__any`/`__all`/`__activemask` (64-bit results on wave64)"),
    (r"match\.", "`__match_any_sync`/`__match_all_sync`"),
    (r"redux\.", "`__reduce_add_sync`-style warp reductions or a shuffle reduction"),
    (
        r"bar\.|barrier\.",
        "`__syncthreads()` (named barriers with a thread count have no HIP equivalent)",
    ),
    (r"membar\.sys|fence\.(?:sc|acq_rel)\.sys", "`__threadfence_system()`"),
    (r"membar\.cta|fence\.(?:sc|acq_rel)\.cta", "`__threadfence_block()`"),
    (r"membar\.|fence\.", "`__threadfence()`"),
    (
        r"red\.|atom\.",
        "`atomicAdd`/`atomicMax`/... or `__hip_atomic_fetch_add` with an explicit scope",
    ),
    (
        r"cvta\.",
        "nothing: generic pointers work directly on AMD (drop the address-space conversion)",
    ),
    (
        r"cvt\.",
        "HIP conversion intrinsics (`__float2half_rn`, `__float22bfloat162_rn`, `__float2int_rn`)",
    ),
    (
        r"mul\.hi|mul\.wide|mad\.(?:hi|wide)",
        "`__umulhi`/`__mulhi`/`__mul64hi` or a 64-bit multiply",
    ),
    (r"popc\.|clz\.|brev\.|bfind\.", "`__popc`/`__clz`/`__brev`/`__ffs`"),
    (
        r"ex2\.|lg2\.|rcp\.|rsqrt\.|sqrt\.|sin\.|cos\.|tanh\.",
        "fast math functions (`exp2f`, `__log2f`, `__frsqrt_rn`, `__fdividef`, `tanhf`)",
    ),
    (r"nanosleep", "`__builtin_amdgcn_s_sleep(n)`"),
    (r"exit$", "`return` from the kernel (the thread ends there)"),
    (
        r"prefetch|discard|applypriority|createpolicy",
        "nothing (cache-policy hints): remove it on AMD",
    ),
]


def suggestion(site: AsmSite) -> str:
    """The text of the first `_SUGGEST` entry one of the site's opcodes matches: the smallest
    of the entries each opcode matches first (opcodes repeat far more than their lists do)."""
    first = min(map(_first_suggestion, site.ops), default=len(_SUGGEST))
    return _SUGGEST[first][1] if first < len(_SUGGEST) else _NO_SUGGESTION


_NO_SUGGESTION = "HIP intrinsics or `__builtin_amdgcn_*` builtins"


@lru_cache(maxsize=_SUGGEST_CACHE)
def _first_suggestion(op: str) -> int:
    """The index of the first `_SUGGEST` pattern that matches `op` (len(_SUGGEST): none). One
    match of the patterns as the groups of one alternation: the first alternative that matches
    at the start wins, and the group it is (the patterns have none of their own) is its
    index."""
    m = _suggest_rx().match(op)
    if m is None or m.lastindex is None:
        return len(_SUGGEST)
    return m.lastindex - 1


@lru_cache(maxsize=1)
def _suggest_rx() -> _re.Pattern[str]:
    """_SUGGEST's patterns as one alternation of groups, compiled on first use (not at import:
    `porter port one.cu`)."""
    return _re.compile("|".join(f"({rx})" for rx, _ in _SUGGEST))


# -- PT201 -------------------------------------------------------------------------------------
@register
class InlinePtx(Rule):
    """Inline PTX assembly: HIP-Clang accepts only AMDGPU assembly.

    ## What it finds
    `asm(...)`, `asm volatile(...)`, `__asm__ __volatile__(...)` statements (also in `#define`
    bodies) whose template is PTX: dotted PTX opcodes (`ld.global.nc.f32`, `prmt.b32`,
    `lop3.b32`, `shfl.sync.bfly.b32`, `red.global.add`, `fence.acq_rel.gpu`), `.reg` declarations,
    and `cuda::ptx::` wrapper calls. AMD GCN asm, x86/ARM host asm (`cpuid`, `rdtsc`, `pause`,
    `%%eax`) and asm in AMD-only or NVIDIA-only branches are not reported; the Hopper/TMA/cluster/
    PDL/mbarrier/cp.async/mma/special-register families have their own rules (PT202–PT210),
    `trap;`/`brkpt;` belong to the debug-intrinsics rule.

    ## Why it breaks on AMD
    HIP-Clang compiles device code for AMDGPU and accepts only AMDGPU (GCN/CDNA/RDNA) inline
    assembly: PTX does not compile. HIPIFY neither translates asm nor warns about it (HIPIFY
    issues 731 and 758).

    ## Example
    ```cpp
    asm volatile("ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(a.x), "=f"(a.y), "=f"(a.z), "=f"(a.w) : "l"(ptr));
    ```

    ## Use instead
    The message names the HIP replacement for the opcodes found, e.g. `__ldg`/plain loads for
    `ld.global.nc`, `__byte_perm` for `prmt`, `__bitextract_u32`/`__bitinsert_u32` for
    `bfe`/`bfi`, `__funnelshift_l/r` for `shf`, `__shfl_xor_sync` for `shfl.sync`, `__threadfence*`
    for `membar`/`fence`, `__hip_atomic_*` for acquire/release loads and stores; keep the PTX for
    NVIDIA under `#if defined(__HIP_PLATFORM_NVIDIA__)` or `!defined(__HIP_PLATFORM_AMD__)`.

    ## Fix safety
    Display only: porter never rewrites this; the message names the replacement. An automatic
    rewrite would have to translate the asm's operands, constraints and memory semantics, and
    the PTX usually stays for NVIDIA under a vendor guard beside the AMD code.

    ## References
    - HIP FAQ ("HIP-Clang supports inline GCN assembly", PTX unsupported) [HFAQ]
    - HIP kernel language reference, "In-Line Assembly" [HKL]
    - ROCm/HIPIFY issues 731 and 758
    - `hip/amd_detail/amd_device_functions.h` (ROCm 7.2) for the intrinsic names
    """

    code = "PT201"
    name = "inline-ptx-asm"
    severity = Severity.ERROR
    fix = Applicability.DISPLAY
    triggers = (b"asm", b"ptx::")
    family = "generic"

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is an asm site: without a candidate in the bytes the file needs no
        parse for this rule."""
        return may_have_sites(data)

    def check(self, ctx):
        for s in ctx.asm.family(self.family):
            where = "in this macro " if s.in_macro else ""
            yield self.finding(
                ctx,
                s.span,
                f"{s.what()} {where}does not compile for AMD GPUs; use "
                f"{suggestion(s)}, "
                f"and keep the PTX only under `#if !defined(__HIP_PLATFORM_AMD__)`",
            )


# -- PT202 -------------------------------------------------------------------------------------
_SREG_MAP = {
    "laneid": ("`__lane_id()`", "0-63 on wave64 targets"),
    "smid": (
        "`__smid()`",
        "it encodes SE/CU (and on MI300 the XCC) ids, unique only within one "
        "XCC "
        "and not a dense 0..SMs-1 index",
    ),
    "nsmid": ("`hipDeviceProp_t::multiProcessorCount` passed from the host", ""),
    "warpid": (
        "`threadIdx` arithmetic with `warpSize` (`__builtin_amdgcn_s_getreg` for hardware ids)",
        "there is no direct equivalent",
    ),
    "clock64": ("`clock64()`", "a shader-clock counter whose frequency varies"),
    "clock": ("`clock()`/`clock64()`", "a shader-clock counter whose frequency varies"),
    "clock_hi": ("`clock64() >> 32`", ""),
    "globaltimer": (
        "`wall_clock64()`",
        "it counts at `hipDeviceAttributeWallClockRate` kHz, not nanoseconds",
    ),
    "globaltimer_lo": (
        "`wall_clock64()`",
        "it counts at `hipDeviceAttributeWallClockRate` kHz, not nanoseconds",
    ),
    "globaltimer_hi": ("`wall_clock64()`", "it counts at `hipDeviceAttributeWallClockRate` kHz"),
    "lanemask_lt": ("`__lanemask_lt()`", "a 64-bit mask"),
    "lanemask_gt": ("`__lanemask_gt()`", "a 64-bit mask"),
    "lanemask_eq": ("`__lanemask_eq()`", "a 64-bit mask"),
    "lanemask_le": ("`__lanemask_lt() | __lanemask_eq()`", "a 64-bit mask"),
    "lanemask_ge": ("`__lanemask_gt() | __lanemask_eq()`", "a 64-bit mask"),
    "dynamic_smem_size": ("the size passed at launch (as a kernel argument)", ""),
    "tid": ("`threadIdx`", ""),
    "ntid": ("`blockDim`", ""),
    "ctaid": ("`blockIdx`", ""),
    "nctaid": ("`gridDim`", ""),
}
_SREG_FIX = {
    # PTX template (whitespace-normalised) -> (constraint, replacement call)
    "laneid": ("=r", "__lane_id()"),
    "clock64": ("=l", "clock64()"),
}
_MOV_ONE = re.compile(r"^\s*mov\.(?:u32|b32|s32|u64|b64|s64)\s+%0\s*,\s*%%?(\w+)\s*;?\s*$")


@register
class PtxSpecialRegister(Rule):
    """PTX special register read in inline asm (`%laneid`, `%smid`, `%clock64`, `%globaltimer`).

    ## What it finds
    Inline PTX whose purpose is reading a special register: `%laneid`, `%warpid`, `%smid`,
    `%nsmid`, `%clock`, `%clock64`, `%globaltimer`, `%lanemask_*`, `%dynamic_smem_size`, ...
    (also `cuda::ptx::get_sreg_*`).

    ## Why it breaks on AMD
    PTX does not compile for AMD GPUs. HIP has functions for most registers, but their values
    differ: `__lane_id()` runs 0-63 on wave64 targets; `__smid()` encodes shader-engine/CU ids
    (plus the XCC id on MI300) and is not a dense index; `wall_clock64()` ticks at
    `hipDeviceAttributeWallClockRate` kHz, not in nanoseconds like `%globaltimer`; `clock64()`
    counts shader cycles at a variable frequency.

    ## Example
    ```cpp
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    ```

    ## Use instead
    `__lane_id()`, `__smid()`, `clock64()`, `wall_clock64()`, `__lanemask_lt()`... The unsafe fix
    rewrites a statement that is exactly one `mov` of `%laneid` or `%clock64` into its single
    output into `out = __lane_id();` / `out = clock64();`, assuming the code does not rely on
    lanes below 32 or on NVIDIA clock rates.

    ## Fix safety
    Unsafe (applied only with `--unsafe-fixes`). The fix replaces an asm statement that is
    exactly one `mov` of `%laneid` (into a `"=r"` output) or `%clock64` (`"=l"`), with no inputs
    or clobbers and not in a macro, by `out = __lane_id();` or `out = clock64();`. It compiles,
    but the values differ from NVIDIA's: `__lane_id()` reaches 63 on wave64 targets, and
    `clock64()` counts shader cycles at a variable frequency. Other registers and other asm
    shapes get no fix.

    ## References
    - `hip/amd_detail/amd_device_functions.h` (`__smid`, `wall_clock64`, `clock64`, `__lanemask_*`)
      and `amd_warp_functions.h` (`__lane_id`), ROCm 7.2 [CLR-DEV]
    - HIP kernel language reference, timer functions [HKL]; Triton `extra/hip` `smid()` note
    - ROCm/HIPIFY issue 731 (`%smid` example)
    """

    code = "PT202"
    name = "ptx-special-register"
    severity = Severity.ERROR
    fix = Applicability.UNSAFE
    triggers = (b"asm", b"get_sreg_")
    family = "special"

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is an asm site (`cuda::ptx::get_sreg_*` is a wrapper site): without a
        candidate in the bytes the file needs no parse for this rule."""
        return may_have_sites(data)

    def check(self, ctx):
        for s in ctx.asm.family(self.family):
            reg = s.special[0]
            rep, note = _SREG_MAP.get(reg, ("a HIP intrinsic or a kernel argument", ""))
            note = f" ({note})" if note else ""
            fix = self._fix(ctx, s, reg)
            yield self.finding(
                ctx,
                s.span,
                f"{s.what()} reads `%{reg}`, which does not exist on AMD; use {rep}{note}",
                fix=fix,
            )

    def _fix(self, ctx, s: AsmSite, reg: str):
        if s.in_macro or reg not in _SREG_FIX:
            return None
        m = _MOV_ONE.match(s.template)
        if not m or m.group(1) != reg:
            return None
        node = asm_node(ctx, s)  # the tree, parsed for this fix only
        if node is None:
            return None
        stmt = node.parent
        if stmt is None or stmt.type != "expression_statement" or stmt.named_child_count != 1:
            return None
        outs = node.child_by_field_name("output_operands")
        ins = node.child_by_field_name("input_operands")
        clob = node.child_by_field_name("clobbers")
        if ins is not None and ins.named_child_count or clob is not None and clob.named_child_count:
            return None
        if outs is None:
            return None
        ops = [c for c in outs.named_children if c.type == "gnu_asm_output_operand"]
        if len(ops) != 1:
            return None
        op = ops[0]
        cons = op.child_by_field_name("constraint")
        val = op.child_by_field_name("value")
        want, call = _SREG_FIX[reg]
        if cons is None or val is None or ctx.text(cons).strip('"') != want:
            return None
        if val.type not in ("identifier", "field_expression", "subscript_expression"):
            return None
        new = f"{ctx.text(val)} = {call};"
        return self.make_fix(
            [Edit(stmt.start_byte, stmt.end_byte, new.encode())],
            Applicability.UNSAFE,
            f"replace the asm with {call}",
        )


# -- PT203 -------------------------------------------------------------------------------------
_CP_ASYNC_IDS = re.compile(
    r"__pipeline_memcpy_async|__pipeline_commit|__pipeline_wait_prior"
    r"|__pipeline_arrive_on"
)
_CP_ASYNC_QUAL = re.compile(
    rb"(?:cuda|cooperative_groups|cg)\s*::\s*"
    rb"(memcpy_async|pipeline|make_pipeline|pipeline_shared_state|pipeline_role"
    rb"|wait|wait_prior)(?![\w$])"
)
_CP_ASYNC_HEADERS = {
    "cuda/pipeline",
    "cuda_pipeline.h",
    "cuda_pipeline_primitives.h",
    "cooperative_groups/memcpy_async.h",
    "cuda/annotated_ptr",
}
_CP_ASYNC_HEADER_BYTES = tuple(sorted(h.encode() for h in _CP_ASYNC_HEADERS))


@register
class PtxCpAsync(Rule):
    """Ampere asynchronous copies (`cp.async`, `__pipeline_memcpy_async`, `cuda::pipeline`).

    ## What it finds
    `cp.async.*` in inline PTX (not the bulk/TMA forms, PT207), `__pipeline_memcpy_async`,
    `__pipeline_commit`, `__pipeline_wait_prior`, `cuda::memcpy_async`, `cuda::pipeline`,
    `cuda::make_pipeline`, `cooperative_groups::memcpy_async`/`cg::wait`, and the headers
    `<cuda/pipeline>`, `<cuda_pipeline.h>`, `<cooperative_groups/memcpy_async.h>`.

    ## Why it breaks on AMD
    There is no PTX, and HIP has no pipeline primitives or `memcpy_async` (porter's tables and
    HIPIFY mark them unsupported; libhipcxx lists `memcpy_async` only as an extension that does not
    map to Ampere-style copies). Of the AMD GPUs only gfx950 (and gfx1250) have asynchronous
    global→LDS paths, which Triton enables by default only there.

    ## Example
    ```cpp
    __pipeline_memcpy_async(&smem[threadIdx.x], &gmem[i], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    ```

    ## Use instead
    Load into registers, store to `__shared__` memory and `__syncthreads()` (double-buffer by hand
    to overlap); on gfx950 `__builtin_amdgcn_global_load_lds` copies up to 16 bytes per lane
    straight to LDS (gfx90a/gfx942 accept only 1, 2 or 4 bytes; checked with clang-22).

    ## Fix safety
    Display only: porter never rewrites this; the message names the replacement. HIP has no
    asynchronous-copy pipeline, so a replacement restructures the kernel (buffers, barriers,
    overlap), a design change a tool cannot make equivalently.

    ## References
    - libhipcxx limitations and extensions pages [LIBHIPCXX]
    - Triton AMD backend `is_async_copy_enabled` (gfx950, gfx1250) [TRI-AMD]
    - porter `mappings/headers.csv`, `libcxx.csv`, `coop.csv` (unsupported rows)
    """

    code = "PT203"
    name = "ptx-cp-async"
    severity = Severity.ERROR
    fix = Applicability.DISPLAY
    triggers = (b"cp.async", b"pipeline", b"memcpy_async", b"ptx::cp_async")
    family = "cp_async"

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on an asm site, a pipeline intrinsic, a qualified pipeline name or
        the path of a pipeline header: without one the file needs no parse for this rule."""
        return (
            may_have_sites(data)
            or any_ident(_CP_ASYNC_IDS, idents)
            or _CP_ASYNC_QUAL.search(data) is not None
            or any(h in data for h in _CP_ASYNC_HEADER_BYTES)
        )

    ADVICE = (
        "load through registers into `__shared__` memory and `__syncthreads()` "
        "(double-buffer by hand); on gfx950 `__builtin_amdgcn_global_load_lds` is the "
        "direct global→LDS copy"
    )

    def check(self, ctx):
        pp = ctx.pp
        for s in ctx.asm.family(self.family):
            yield self.finding(
                ctx,
                s.span,
                f"{s.what()} (Ampere asynchronous copy) has no AMD equivalent; {self.ADVICE}",
            )
        for node in ctx.identifiers(_CP_ASYNC_IDS):
            if pp.skip(node.start_byte):
                continue
            yield self.finding(
                ctx,
                node,
                f"`{ctx.text(node)}` (CUDA pipeline primitive) has no "
                "HIP "
                f"equivalent; {self.ADVICE}",
            )
        for m in code_matches(ctx, _CP_ASYNC_QUAL, word_start=True):
            if pp.skip(m.start()):
                continue
            what = ctx.data[m.start() : m.end()].decode()
            what = re.sub(r"\s+", "", what)
            yield self.finding(
                ctx,
                (m.start(), m.end()),
                f"`{what}` (asynchronous copy pipeline) has no HIP equivalent; {self.ADVICE}",
            )
        for node, path in ((i.path_span, i.path) for i in ctx.includes):
            if path in _CP_ASYNC_HEADERS and not pp.skip(node[0]):
                yield self.finding(
                    ctx,
                    node,
                    f"<{path}> (asynchronous copies) has no HIP counterpart; {self.ADVICE}",
                )


# -- PT204 -------------------------------------------------------------------------------------
_CUTLASS_SM80 = re.compile(
    r"SM(?:75|80|89)_(?:\d+x\d+x\d+_\w+|U32x\d_LDSM_\w+|U16x\d_LDSM_\w+|"
    r"U32x\d_STSM_\w+)"
)


@register
class PtxMmaLdmatrix(Rule):
    """NVIDIA tensor-core PTX (`mma.sync`, `ldmatrix`, `stmatrix`) and CUTLASS SM75/SM80 MMA atoms.

    ## What it finds
    `mma.sync`, `mma.sp`, `ldmatrix`, `stmatrix`, `movmatrix` and PTX `wmma.*` in inline asm, and
    CUTLASS/CuTe atoms such as `SM80_16x8x16_F32F16F16F32_TN` or `SM75_U32x4_LDSM_N`.

    ## Why it breaks on AMD
    These are NVIDIA tensor-core instructions with NVIDIA fragment layouts (which lane holds which
    matrix element). AMD uses MFMA (CDNA: gfx90a/gfx942/gfx950) or WMMA (RDNA3/4) instructions
    with different shapes and layouts, and a 64-lane wavefront on CDNA.

    ## Example
    ```cpp
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, ..."
                 : ...);
    ```

    ## Use instead
    rocWMMA (`rocwmma::fragment`, `mma_sync`), MFMA builtins on CDNA
    (`__builtin_amdgcn_mfma_f32_16x16x16f16` compiles for gfx90a/gfx942/gfx950 with clang-22),
    `__builtin_amdgcn_wmma_*` on RDNA3/4, or a library (hipBLASLt, Composable Kernel).

    ## Fix safety
    Display only: porter never rewrites this; the message names the replacement. AMD's matrix
    instructions have other shapes, fragment layouts and lane mappings: the code around the
    instruction has to be re-tiled by hand.

    ## References
    - HIP kernel language reference ("HIP does not support kernel language warp matrix types") [HKL]
    - rocWMMA API reference [ROCWMMA]
    """

    code = "PT204"
    name = "ptx-mma-ldmatrix"
    severity = Severity.ERROR
    fix = Applicability.DISPLAY
    triggers = (b"mma", b"ldmatrix", b"stmatrix", b"movmatrix", b"SM80_", b"SM75_", b"SM89_")
    family = "mma"

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on an asm site or a CUTLASS SM80 atom identifier: without one the
        file needs no parse for this rule."""
        return may_have_sites(data) or any_ident(_CUTLASS_SM80, idents)

    def advice(self, ctx) -> str:
        cdna = [t.arch for t in ctx.options.targets if t.wave == 64 and t.arch != "gfx906"]
        rdna = [
            t.arch
            for t in ctx.options.targets
            if t.family.startswith("rdna3") or t.family == "rdna4"
        ]
        parts = ["rocWMMA"]
        if cdna:
            parts.append("MFMA builtins (`__builtin_amdgcn_mfma_*`)")
        if rdna:
            parts.append("`__builtin_amdgcn_wmma_*` builtins")
        parts.append("or hipBLASLt/Composable Kernel")
        return ", ".join(parts)

    def check(self, ctx):
        pp = ctx.pp
        for s in ctx.asm.family(self.family):
            yield self.finding(
                ctx,
                s.span,
                f"{s.what()} is NVIDIA tensor-core code with NVIDIA "
                f"fragment layouts; rewrite with {self.advice(ctx)}",
            )
        seen_lines = set()
        for node in ctx.identifiers(_CUTLASS_SM80):
            line = ctx.src.position(node.start_byte)[0]
            if line in seen_lines or pp.skip(node.start_byte):
                continue
            seen_lines.add(line)
            yield self.finding(
                ctx,
                node,
                f"CUTLASS atom `{ctx.text(node)}` emits NVIDIA "
                "mma/ldmatrix PTX; "
                f"use {self.advice(ctx)}",
            )


# -- PT205 -------------------------------------------------------------------------------------
ROCWMMA_ARCHS = {
    "gfx908",
    "gfx90a",
    "gfx940",
    "gfx941",
    "gfx942",
    "gfx950",
    "gfx1100",
    "gfx1101",
    "gfx1102",
    "gfx1151",
    "gfx1200",
    "gfx1201",
    "gfx1250",
}


@register
class WmmaApi(Rule):
    """CUDA WMMA (`nvcuda::wmma`, `<mma.h>`): needs rocWMMA, which supports other shapes and GPUs.

    ## What it finds
    - `#include <mma.h>` (once per file): porter maps it to rocWMMA, a separate library;
    - `wmma::fragment` / `rocwmma::fragment` with a shape rocWMMA cannot express (BlockM or BlockN
      other than 16 or 32: CUDA's m32n8k16, m8n32k16, m8n8k4 double, m8n8k32/m8n8k128 sub-byte);
    - `mma_sync(d, a, b, c, satf)` with the fifth (saturate) argument;
    - direct indexing of fragment elements (`frag.x[i]`), whose thread mapping differs.

    ## Why it breaks on AMD
    HIP has no warp-matrix API; rocWMMA provides the same core API (`fragment`, `load_matrix_sync`,
    `mma_sync`, `store_matrix_sync`, `fill_fragment`) for gfx908/gfx90a/gfx942/gfx950 (wave64) and
    gfx11/gfx12 (wave32) only, with fragment BlockM/BlockN of 16 or 32, no `satf` argument, and
    its own element-to-lane layout (a 16x16 fp32 accumulator holds 4 elements per lane on wave64
    against 8 per thread on NVIDIA). Targets outside that list (gfx906, gfx1030) do not build.

    ## Example
    ```cpp
    #include <mma.h>
    using namespace nvcuda;
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> a;   // no rocWMMA shape
    ```

    ## Use instead
    `#include <rocwmma/rocwmma.hpp>` and link rocWMMA (`find_package(rocwmma)`), 16x16 or 32x32
    blocks (re-tile 32x8/8x32), drop `satf` (clamp by hand), and only apply element-wise operations
    to `frag.x[i]` (never assume which matrix element it holds).

    ## Fix safety
    Display only: porter never rewrites this; the message names the replacement. The mapping
    tables rename `nvcuda::wmma` to `rocwmma`; what this rule reports (fragment shapes, the
    `satf` argument, element indexing, the library to link) needs re-tiling or new code, which
    has no single equivalent.

    ## References
    - rocWMMA API reference (supported GPUs, block sizes) [ROCWMMA]
    - HIP kernel language reference (no warp matrix types) [HKL]
    - porter `mappings/wmma.csv` (`nvcuda::wmma` → `rocwmma`, no `satf`)
    """

    code = "PT205"
    name = "wmma-api"
    severity = Severity.ERROR
    fix = Applicability.DISPLAY
    triggers = (b"mma.h", b"wmma")

    def check(self, ctx):
        pp = ctx.pp
        unsupported = [t.arch for t in ctx.options.targets if t.arch not in ROCWMMA_ARCHS]
        for node, path in ((i.path_span, i.path) for i in ctx.includes):
            if pp.skip(node[0]):
                continue
            if path in ("mma.h", "crt/mma.h"):
                if unsupported:
                    yield self.finding(
                        ctx,
                        node,
                        f"<{path}> (CUDA WMMA) maps to rocWMMA, which "
                        "does not "
                        f"support {', '.join(unsupported)}; use a library or "
                        "MFMA/scalar "
                        f"code there",
                        targets=tuple(unsupported),
                    )
                else:
                    yield self.finding(
                        ctx,
                        node,
                        f"<{path}> (CUDA WMMA) maps to rocWMMA "
                        "(<rocwmma/rocwmma.hpp>, a separate library to link): "
                        "fragment "
                        "shapes must be 16 or 32 in M and N and the lane layout "
                        "differs",
                        severity=Severity.WARNING,
                    )
            elif path.startswith("rocwmma/") and unsupported:
                yield self.finding(
                    ctx,
                    node,
                    f"rocWMMA does not support {', '.join(unsupported)}",
                    targets=tuple(unsupported),
                )
        # what follows reads `fragment` types and `mma_sync` calls from the tree; their names
        # are identifier tokens of the bytes when the file is ASCII without `$`, so a file with
        # neither (a trigger matched in `gamma.h` or `tcgen05_mma.h`) needs no parse for it
        data = ctx.data
        idents = ctx.idents
        if (
            b"fragment" not in idents
            and b"mma_sync" not in idents
            and data.isascii()
            and b"$" not in data
        ):
            return
        consts = self._int_constants(ctx)
        frag_vars: set[str] = set()
        for tt in ctx.nodes("template_type"):
            name = tt.child_by_field_name("name")
            if name is None or ctx.text(name) != "fragment":
                continue
            qual = tt.parent
            qtext = (
                ctx.text(qual) if qual is not None and qual.type == "qualified_identifier" else ""
            )
            if (
                not re.search(r"\b(?:wmma|rocwmma)\s*::\s*fragment", qtext)
                and b"nvcuda" not in ctx.data
                and b"rocwmma" not in ctx.data
            ):
                continue
            if pp.skip(tt.start_byte):
                continue
            decl = tt.parent
            while decl is not None and decl.type not in (
                "declaration",
                "field_declaration",
                "parameter_declaration",
            ):
                decl = decl.parent
            if decl is not None:
                for d in decl.children_by_field_name("declarator"):
                    while d is not None and d.type not in ("identifier", "field_identifier"):
                        d = d.child_by_field_name("declarator")
                    if d is not None:
                        frag_vars.add(ctx.text(d))
            args = tt.child_by_field_name("arguments")
            if args is None:
                continue
            a = [c for c in args.named_children if c.type != "comment"]
            if len(a) < 4:
                continue
            dims = [self._value(ctx, x, consts) for x in a[1:4]]
            if dims[0] is None or dims[1] is None:
                continue
            m, n, k = dims
            if m not in (16, 32) or n not in (16, 32):
                yield self.finding(
                    ctx,
                    tt,
                    "WMMA fragment shape "
                    f"m{m}n{n}k{k if k is not None else '?'} "
                    "has no rocWMMA equivalent (BlockM and BlockN must be 16 or "
                    "32); "
                    f"re-tile to 16x16 or 32x32 blocks",
                )
        for call in ctx.nodes("call_expression"):
            fn = call.child_by_field_name("function")
            if fn is None or not re.fullmatch(r"(?:\w+\s*::\s*)*mma_sync", ctx.text(fn)):
                continue
            if (
                "wmma" not in ctx.text(fn)
                and b"nvcuda" not in ctx.data
                and b"rocwmma" not in ctx.data
            ):
                continue
            args = call.child_by_field_name("arguments")
            if (
                args is not None
                and len([c for c in args.named_children if c.type != "comment"]) == 5
                and not pp.skip(call.start_byte)
            ):
                yield self.finding(
                    ctx,
                    call,
                    "`mma_sync` with a saturate (satf) argument does "
                    "not exist in rocWMMA; drop the argument and clamp the "
                    "accumulator explicitly",
                )
        if frag_vars:
            for fe in ctx.nodes("field_expression"):
                f = fe.child_by_field_name("field")
                obj = fe.child_by_field_name("argument")
                if f is None or obj is None or ctx.text(f) != "x" or ctx.text(obj) not in frag_vars:
                    continue
                if (
                    fe.parent is None
                    or fe.parent.type != "subscript_expression"
                    or pp.skip(fe.start_byte)
                ):
                    continue
                if self._elementwise(ctx, fe.parent):
                    continue
                yield self.finding(
                    ctx,
                    fe.parent,
                    f"`{ctx.text(fe.parent)}` indexes a WMMA "
                    "fragment "
                    "element: rocWMMA assigns elements to lanes differently (and "
                    "wave64 "
                    f"lanes hold fewer), so only element-wise operations over all "
                    f"`num_elements` are portable",
                    severity=Severity.WARNING,
                )

    @staticmethod
    def _elementwise(ctx, sub) -> bool:
        """`frag.x[i]` inside `for (int i = 0; i < frag.num_elements; ...)`: portable."""
        m = re.search(r"\[\s*(\w+)\s*\]\s*$", ctx.text(sub))
        if not m:
            return False
        var = m.group(1)
        p = sub.parent
        while p is not None:
            if p.type == "for_statement":
                cond = p.child_by_field_name("condition")
                init = p.child_by_field_name("initializer")
                if (
                    cond is not None
                    and "num_elements" in ctx.text(cond)
                    and init is not None
                    and re.search(r"\b" + re.escape(var) + r"\b", ctx.text(init))
                ):
                    return True
            p = p.parent
        return False

    @staticmethod
    def _int_constants(ctx) -> dict[str, int]:
        out = {}
        for d in ctx.nodes("init_declarator"):
            name, val = d.child_by_field_name("declarator"), d.child_by_field_name("value")
            if (
                name is not None
                and val is not None
                and name.type == "identifier"
                and val.type == "number_literal"
            ):
                try:
                    out[ctx.text(name)] = int(ctx.text(val).rstrip("uUlL"), 0)
                except ValueError:
                    pass
        for d in ctx.nodes("preproc_def"):
            name, val = d.child_by_field_name("name"), d.child_by_field_name("value")
            if name is not None and val is not None:
                try:
                    out[ctx.text(name)] = int(ctx.text(val).strip().rstrip("uUlL"), 0)
                except ValueError:
                    pass
        return out

    @staticmethod
    def _value(ctx, node, consts):
        t = ctx.text(node).strip()
        try:
            return int(t.rstrip("uUlL"), 0)
        except ValueError:
            return consts.get(t)
