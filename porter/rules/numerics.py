"""PT70x: numerics and data types (hazards.md section H)."""

from __future__ import annotations

from ..analysis.functions import (
    ancestors,
    device_kind,
    enclosing_function,
    may_be_device_code,
)
from ..analysis.lazyre import re
from ..analysis.targets import fmt_targets, verb_for
from ..findings import Severity
from .base import Rule
from .registry import register

_OPS_F = ("__fadd", "__fsub", "__fmul", "__fdiv", "__fmaf", "__frcp", "__fsqrt")
_OPS_D = ("__dadd", "__dsub", "__dmul", "__ddiv", "__fma", "__drcp", "__dsqrt")
_DIRECTED = tuple(f"{op}_{m}" for op in _OPS_F + _OPS_D for m in ("rd", "ru", "rz"))
_OCML = b"OCML_BASIC_ROUNDED_OPERATIONS"


@register
class DirectedRounding(Rule):
    """Arithmetic intrinsics with directed rounding (`__fadd_rz`, `__dmul_ru`, ...).

    ## What it finds
    Calls of the round-toward-zero / up / down arithmetic intrinsics: `__fadd_rz|ru|rd`,
    `__fsub_*`, `__fmul_*`, `__fdiv_*`, `__fmaf_*`, `__frcp_*`, `__fsqrt_*`, `__dadd_*`,
    `__dsub_*`, `__dmul_*`, `__ddiv_*`, `__fma_*`, `__drcp_*`, `__dsqrt_*`, in files that do not
    define `OCML_BASIC_ROUNDED_OPERATIONS`.

    ## Why it breaks on AMD
    HIP documents only round-to-nearest for these basic operations. clang's HIP math wrapper
    (`__clang_hip_math.h`) declares the `_rd`, `_ru` and `_rz` variants only under
    `#if defined OCML_BASIC_ROUNDED_OPERATIONS`; without that macro only the `_rn` variants
    exist and the call does not compile.

    ## Example
    ```cpp
    float lo = __fadd_rd(a, b), hi = __fadd_ru(a, b);   // interval arithmetic
    ```

    ## Use instead
    Compile with `-DOCML_BASIC_ROUNDED_OPERATIONS` (the OCML `__ocml_add_rtn_f32` & co. then
    implement them), or round-to-nearest operations with an error analysis.

    ## References
    - HIP programming manual / math API, "Math functions with special rounding modes"
    - clang `__clang_hip_math.h` (LLVM 22; `OCML_BASIC_ROUNDED_OPERATIONS` guards)
    - HIPIFY `hipify-perl` unsupported device functions
    """

    code = "PT701"
    name = "directed-rounding"
    severity = Severity.ERROR
    triggers = tuple(f"{op}_r".encode() for op in _OPS_F + _OPS_D)

    def check(self, ctx):
        if _OCML in ctx.data:
            return
        for cl in ctx.calls.named(_DIRECTED):
            name, ident, _call, _args = cl.name, cl.callee, cl.node, cl.args
            yield self.finding(
                ctx,
                ident,
                f"`{name}` is declared by HIP only when compiling with "
                f"`-DOCML_BASIC_ROUNDED_OPERATIONS`: add that define, or use the "
                f"round-to-nearest `{name[:-3]}_rn` with an error analysis",
            )


_OCP_TYPES = re.compile(r"__(?:nv|hip)_fp8(?:x2|x4)?_e(?:4m3|5m2)")
_FNUZ_TYPES = re.compile(r"__hip_fp8(?:x2|x4)?_e(?:4m3|5m2)_fnuz")
_FP8_GUARDS = (
    "HIP_FP8_TYPE",
    "__gfx9",
    "__gfx12",
    "__gfx11",
    "__HIP_DEVICE_COMPILE__",
    "__CUDA_ARCH__",
    "__HIP_PLATFORM",
)


@register
class Fp8TypesPerTarget(Rule):
    """fp8 type whose encoding the target GPU cannot compute on (OCP vs FNUZ).

    ## What it finds
    In `__device__`/`__global__` functions: the OCP fp8 types (`__nv_fp8_e4m3`, `__nv_fp8_e5m2`,
    `__nv_fp8x2_*`, `__nv_fp8x4_*`, and the HIP names they map to, `__hip_fp8_e4m3`, ...) when
    a FNUZ target (gfx942) is selected; the FNUZ types (`__hip_fp8_e4m3_fnuz`, ...) when an OCP
    target (gfx950, gfx12) is selected.

    ## Why it breaks on AMD
    MI300 (gfx940/941/942) computes fp8 only in the FNUZ encodings; MI350 (gfx950) and RDNA4
    (gfx1200/1201) only in the OCP ones. ROCm 7.2's `amd_hip_fp8.h` sets `HIP_FP8_TYPE_OCP 0`
    when compiling for gfx942 and `HIP_FP8_TYPE_FNUZ 0` for gfx950/gfx12, and then declares the
    other family's constructors and conversions `__host__` only: device code using them does
    not compile for that target. porter maps CUDA's `__nv_fp8_*` to the OCP `__hip_fp8_*` names.
    Targets without fp8 hardware (gfx90a, RDNA3) emulate both.

    ## Example
    ```cpp
    __global__ void quant(const float* x, __nv_fp8_e4m3* y) {
        y[threadIdx.x] = __nv_fp8_e4m3(x[threadIdx.x]);
    }
    ```

    ## Use instead
    Select the type per target: `__hip_fp8_e4m3_fnuz` under `#if defined(__gfx942__)` (or
    `HIP_FP8_TYPE_FNUZ`), `__hip_fp8_e4m3` otherwise, and rescale values (E4M3-FNUZ max 240,
    OCP E4M3 max 448).

    ## References
    - ROCm 7.2 `hip/amd_detail/amd_hip_fp8.h` (`HIP_FP8_TYPE_OCP`/`HIP_FP8_TYPE_FNUZ` per arch)
    - HIP reference, fp8 numbers (`fp8_numbers.rst`)
    - hipBLASLt: FNUZ only on gfx942, OCP only on gfx950/gfx12 (ROCm issue #6019)
    """

    code = "PT702"
    name = "fp8-types-per-target"
    severity = Severity.ERROR
    triggers = (b"_fp8",)

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is in device code (`device_kind`): without `__device__` or
        `__global__` in the file it needs no parse for this rule."""
        return may_be_device_code(data)

    def check(self, ctx):
        fnuz = tuple(t.arch for t in ctx.options.targets if t.fp8 == "fnuz")
        ocp = tuple(t.arch for t in ctx.options.targets if t.fp8 == "ocp")
        seen: set[tuple[int, str]] = set()
        for pattern, archs, kind, other in (
            (_FNUZ_TYPES, ocp, "FNUZ", "OCP"),
            (_OCP_TYPES, fnuz, "OCP", "FNUZ"),
        ):
            if not archs:
                continue
            for ident in ctx.identifiers(
                re.compile(pattern.pattern), kinds=frozenset({"type_identifier", "identifier"})
            ):
                name = ctx.text(ident)
                fn = enclosing_function(ident, lambdas=True)
                if fn is None or device_kind(ctx, ident) == "host":
                    continue
                if ctx.pp.guarded_by(ident.start_byte, _FP8_GUARDS):
                    continue
                key = (fn.start_byte, name)
                if key in seen:
                    continue
                seen.add(key)
                where = fmt_targets(archs)
                yield self.finding(
                    ctx,
                    ident,
                    f"`{name}` is an {kind} fp8 type, but {where} "
                    f"{verb_for(archs, 'compute')} fp8 only in {other}: HIP declares its device "
                    f"conversions host-only there; select the "
                    f"{'`_fnuz`' if other == 'FNUZ' else 'OCP'} type per target",
                    targets=archs,
                )


_E4M3_MAX = re.compile(
    rb"^448(?:\.0*)?(?:[eE]\+?0+)?[fFlL]?$|^448\.0*[fF]?$"
    rb"|^4\.48[eE]\+?0*2[fF]?$"
)
_FP8_CONTEXT = re.compile(rb"fp8|e4m3|E4M3|FP8|float8")


@register
class Fp8FnuzRange(Rule):
    """Hard-coded OCP E4M3 maximum (448) used on a FNUZ target (MI300).

    ## What it finds
    Floating-point literals equal to 448 (`448.0f`, `448.f`, `4.48e2`) in files that deal with
    fp8 (mention `fp8`/`e4m3`), including inside `#define` bodies, when a FNUZ target (gfx942)
    is selected.

    ## Why it breaks on AMD
    E4M3-FNUZ, the only fp8 encoding MI300 computes in, has a range of +-240 (exponent bias 8,
    NaN 0x80, no Inf), against +-448 for OCP E4M3FN (bias 7). Scales computed as
    `amax / 448.0f` produce values that overflow or saturate on MI300: results are silently
    wrong. (E5M2 keeps its 57344 maximum in both encodings.)

    ## Example
    ```cpp
    #define FP8_E4M3_MAX 448.0f
    float scale = amax / FP8_E4M3_MAX;
    ```

    ## Use instead
    Take the maximum from the type for the target (240 for `__hip_fp8_e4m3_fnuz`, 448 for
    OCP), or select it with `#if defined(__gfx942__)`; rescale stored checkpoints by 0.5.

    ## References
    - Triton issue #6542 (e4m3fnuz max 240 vs 448) and PR #4596 (bias and NaN encodings)
    - HIP reference, fp8 numbers (FNUZ definition)
    - ROCm 7.2 `hip/amd_detail/amd_hip_fp8.h` (saturation clamps at 240.0 and 448.0)
    """

    code = "PT703"
    name = "fp8-fnuz-range"
    severity = Severity.ERROR
    triggers = (b"448",)

    def check(self, ctx):
        fnuz = tuple(t.arch for t in ctx.options.targets if t.fp8 == "fnuz")
        if not fnuz or not _FP8_CONTEXT.search(ctx.data):
            return
        where = fmt_targets(fnuz)
        msg = (
            f"448 is the OCP E4M3 maximum; {where} {verb_for(fnuz, 'compute')} fp8 as "
            f"E4M3-FNUZ, whose maximum is 240: take the limit per target"
        )
        for lit in ctx.nodes("number_literal"):
            t = ctx.btext(lit)
            if (b"." in t or b"e" in t.lower() or t[-1:] in b"fF") and _E4M3_MAX.match(t):
                if ctx.pp.guarded_by(lit.start_byte, ("__gfx9", "HIP_FP8_TYPE", "FNUZ", "fnuz")):
                    continue
                yield self.finding(ctx, lit, msg, targets=fnuz)
        for body in ctx.macro_bodies():
            text = ctx.btext(body)
            for m in re.finditer(
                rb"(?<![\w.])(448\.0*[fF]?|448[fF]|4\.48[eE]\+?0*2[fF]?)(?![\w.])", text
            ):
                yield self.finding(
                    ctx,
                    (body.start_byte + m.start(1), body.start_byte + m.end(1)),
                    msg,
                    targets=fnuz,
                )


_TF32 = (
    "CUBLAS_TF32_TENSOR_OP_MATH",
    "HIPBLAS_TF32_TENSOR_OP_MATH",
    "CUBLAS_COMPUTE_32F_FAST_TF32",
    "HIPBLAS_COMPUTE_32F_FAST_TF32",
    "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION",
    "CUBLASLT_COMPUTE_32F_FAST_TF32",
    "setAllowTF32CuBLAS",
    "setAllowTF32CuDNN",
)


@register
class Tf32MathMode(Rule):
    """TF32 math mode requested from cuBLAS/cuDNN.

    ## What it finds
    `CUBLAS_TF32_TENSOR_OP_MATH`, `CUBLAS_COMPUTE_32F_FAST_TF32`,
    `CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION`, ATen's `setAllowTF32CuBLAS`/`setAllowTF32CuDNN`,
    and the `HIPBLAS_*` names they map to.

    ## Why it breaks on AMD
    AMD's reduced-precision fp32 matrix math (XF32) exists on CDNA3 (gfx942) only. On other
    targets the request is ignored and fp32 GEMMs run at full IEEE precision (slower than on an
    NVIDIA GPU with TF32); on gfx942 the numerics are XF32's, not TF32's. Either way results and
    performance differ from the NVIDIA run the code was tuned on.

    ## Example
    ```cpp
    cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH);
    ```

    ## Use instead
    Decide the precision explicitly per target (fp32, bf16 or fp16 inputs), and compare
    results with tolerances that match it.

    ## References
    - Triton AMD backend `compiler.py` (`tf32` allowed only for gfx942)
    - rocWMMA API reference (`xf32` data type)
    """

    code = "PT704"
    name = "tf32-math-mode"
    severity = Severity.WARNING
    triggers = (b"TF32", b"ALLOW_CONVERSION")

    def check(self, ctx):
        archs = tuple(t.arch for t in ctx.options.targets)
        xf32 = [a for a in archs if a in ("gfx940", "gfx941", "gfx942")]
        other = [a for a in archs if a not in xf32]
        for ident in ctx.identifiers(_TF32, kinds=frozenset({"identifier", "field_identifier"})):
            name = ctx.text(ident)
            parts = []
            if other:
                parts.append(f"{fmt_targets(other)} {verb_for(other, 'run')} it as full fp32")
            if xf32:
                parts.append(
                    f"{fmt_targets(xf32)} {verb_for(xf32, 'use')} XF32, whose numerics differ "
                    "from TF32"
                )
            yield self.finding(
                ctx,
                ident,
                f"`{name}` requests TF32, but "
                + " and ".join(parts)
                + ": choose the precision explicitly per target",
            )


@register
class LongDouble(Rule):
    """`long double` in device code.

    ## What it finds
    `long double` variables, parameters and casts inside `__device__`/`__global__` functions
    (in `__host__ __device__` functions only variables: `long double` overloads of math
    functions are fine), and `long double` members of structs that are passed to kernels in the
    same file.

    ## Why it breaks on AMD
    AMDGPU treats `long double` as the 64-bit `double`, while x86-64 host code uses the 80-bit
    x87 format (16 bytes with padding). Device arithmetic silently loses the extra precision the
    code asked for, and a struct with a `long double` member has a different layout on host and
    device, so data copied between them is garbage.

    ## Example
    ```cpp
    struct Acc { long double sum; int n; };
    __global__ void k(Acc* a) { long double t = a->sum; }
    ```

    ## Use instead
    `double` (or a double-double pair where more precision is needed).

    ## References
    - HIP programming manual, "Use of Long Double Type"
    """

    code = "PT705"
    name = "long-double"
    severity = Severity.WARNING
    triggers = (b"long double",)

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """A finding is in a function whose head says `__device__` or `__global__`
        (functions.device_kind), or a member of a struct named in a `__global__` function's
        head: without either word the file needs no parse for this rule."""
        return b"__device__" in data or b"__global__" in data

    def check(self, ctx):
        kernel_types: set[str] = set()
        for fn in ctx.nodes("function_definition"):
            head = ctx.data[fn.start_byte : (fn.child_by_field_name("body") or fn).start_byte]
            if b"__global__" in head:
                kernel_types.update(re.findall(r"[A-Za-z_]\w*", head.decode("utf-8", "replace")))
        for st in ctx.nodes("sized_type_specifier"):
            text = " ".join(ctx.text(st).split())
            if text != "long double":
                continue
            kind = device_kind(ctx, st)
            if (
                kind == "hd"
                and st.parent is not None
                and st.parent.type
                in (
                    "parameter_declaration",
                    "function_definition",
                    "template_argument_list",
                    "type_descriptor",
                )
            ):
                continue  # long double overloads of __host__ __device__ functions (math sets)
            if kind != "host":
                yield self.finding(
                    ctx,
                    st,
                    "`long double` is a 64-bit double on AMD GPUs (80-bit "
                    "on the x86 host): use `double`",
                )
                continue
            for a in ancestors(st):
                if a.type in ("struct_specifier", "class_specifier"):
                    name = a.child_by_field_name("name")
                    if name is not None and ctx.text(name) in kernel_types:
                        yield self.finding(
                            ctx,
                            st,
                            f"`long double` member of `{ctx.text(name)}`, "
                            f"which is passed to a kernel: the layout differs "
                            f"between the x86 host (80-bit) and the GPU (64-bit); "
                            f"use `double`",
                        )
                    break


_RN = ("__fadd_rn", "__fsub_rn", "__fmul_rn", "__dadd_rn", "__dsub_rn", "__dmul_rn")


@register
class FpContraction(Rule):
    """`__fmul_rn`/`__fadd_rn` used to block FMA contraction.

    ## What it finds
    Calls of `__fmul_rn`, `__fadd_rn`, `__fsub_rn`, `__dmul_rn`, `__dadd_rn`, `__dsub_rn` in
    files without `#pragma clang fp contract(off)` or `-DOCML_BASIC_ROUNDED_OPERATIONS`.

    ## Why it breaks on AMD
    In CUDA these intrinsics are never merged into an FMA, which is why error-free
    transformations (TwoSum, TwoProduct, Kahan summation) use them. In HIP, without
    `OCML_BASIC_ROUNDED_OPERATIONS`, they are defined as plain `x * y` / `x + y`, and HIP-Clang
    defaults to `-ffp-contract=fast-honor-pragmas`: the multiply and the add may be fused, and
    the compensation term becomes zero. Results differ from nvcc's.

    ## Example
    ```cpp
    float p = __fmul_rn(a, b);
    float err = fmaf(a, b, -p);   // may become 0 when p is contracted
    ```

    ## Use instead
    `#pragma clang fp contract(off)` in the function (or `-ffp-contract=off`), and
    tolerance-based comparisons against reference results.

    ## References
    - HIP programming manual, "FMA and contractions"
    - clang `__clang_hip_math.h` (`__fmul_rn` is `__x * __y` without
      `OCML_BASIC_ROUNDED_OPERATIONS`)
    """

    code = "PT706"
    name = "fp-contraction"
    severity = Severity.INFO
    triggers = tuple(n.encode() for n in _RN)

    def check(self, ctx):
        if _OCML in ctx.data or re.search(
            rb"fp\s+contract\s*\(\s*off|FP_CONTRACT\s+OFF|"
            rb"ffp-contract=off",
            ctx.data,
        ):
            return
        for cl in ctx.calls.named(_RN):
            name, ident, _call, _args = cl.name, cl.callee, cl.node, cl.args
            yield self.finding(
                ctx,
                ident,
                f"`{name}` is a plain operation in HIP and may be fused "
                f"into an FMA (clang's default -ffp-contract=fast-honor-pragmas): "
                f"add `#pragma clang fp contract(off)` if the code relies on it "
                f"not being contracted",
            )


# ROCm 7.2 declares these only for one 16-bit float type, where CUDA 13 has both (computed from
# amd_hip_fp16.h / amd_hip_bf16.h against cuda_fp16.h / cuda_bf16.h)
_HIP_BF16_ONLY = frozenset({"__hmax2", "__hmin2"})
_HIP_FP16_ONLY = frozenset(
    {
        "__hadd2_sat",
        "__hadd_sat",
        "__hequ2",
        "__hfma2_sat",
        "__hfma_sat",
        "__hgeu2",
        "__hgtu2",
        "__hleu2",
        "__hltu2",
        "__hmax_nan",
        "__hmin_nan",
        "__hmul2_sat",
        "__hmul_sat",
        "__hneu2",
        "__hsub2_sat",
        "__hsub_sat",
    }
)
_HALF_T = re.compile(r"\b(?:__half2?|half2?)\b")
_BF16_T = re.compile(r"\b(?:__nv_bfloat162?|nv_bfloat162?|__hip_bfloat162?|hip_bfloat16)\b")
_HALF_MAKERS = (
    "__float2half",
    "__float2half_rn",
    "__floats2half2_rn",
    "__half2half2",
    "__float2half2_rn",
    "__halves2half2",
    "__low2half2",
    "__high2half2",
)
_BF16_MAKERS = (
    "__float2bfloat16",
    "__float2bfloat16_rn",
    "__floats2bfloat162_rn",
    "__bfloat162bfloat162",
    "__float22bfloat162_rn",
    "__halves2bfloat162",
)


@register
class HalfBf16OneTypeOnly(Rule):
    """16-bit float intrinsic that HIP declares for the other type only.

    ## What it finds
    Calls of `__hmax2`/`__hmin2` on `__half2` values, and of the saturating, NaN-propagating and
    unordered-compare intrinsics (`__hadd_sat`, `__hmul_sat`, `__hfma_sat`, `__hmax_nan`,
    `__hequ2`, ...) on `__nv_bfloat16` values, where the argument's type is visible (a variable
    declared in the function, or a conversion call).

    ## Why it breaks on AMD
    CUDA 13 overloads these for both `__half` and `__nv_bfloat16`. ROCm 7.2 declares `__hmax2`
    and `__hmin2` only in `amd_hip_bf16.h`, and the saturating/NaN/unordered variants only in
    `amd_hip_fp16.h`, so the other type's call does not compile ("no matching function"). The
    rename itself is right, so porter's mapping step cannot see it.

    ## Example
    ```cpp
    __half2 a = __hmax2(x, y);                 // x, y: __half2
    __nv_bfloat16 c = __hmul_sat(p, q);        // p, q: __nv_bfloat16
    ```

    ## Use instead
    Compare and select by hand (`__hgt2`/`__hlt2` with `__hmul2` masks), or convert to float
    (`__half22float2`, `__bfloat162float`), compute, and convert back; saturate with
    `__hmin`/`__hmax` against 0 and 1 where HIP has them for that type.

    ## References
    - ROCm 7.2 `hip/amd_detail/amd_hip_fp16.h`, `amd_hip_bf16.h`
    - CUDA 13 `cuda_fp16.hpp`, `cuda_bf16.hpp`
    """

    code = "PT707"
    name = "half-bf16-one-type-only"
    severity = Severity.ERROR
    triggers = tuple(n.encode() for n in sorted(_HIP_BF16_ONLY | _HIP_FP16_ONLY))

    def check(self, ctx):
        for cl in ctx.calls.named(tuple(_HIP_BF16_ONLY | _HIP_FP16_ONLY)):
            name, ident, call, args = cl.name, cl.callee, cl.node, cl.args
            want_bf16 = name in _HIP_BF16_ONLY
            for a in args:
                kind = self._kind(ctx, a, call)
                if kind is None:
                    continue
                if (kind == "half") == want_bf16:
                    have = "__half" if kind == "half" else "bf16"
                    only = "bfloat16" if want_bf16 else "half"
                    yield self.finding(
                        ctx,
                        ident,
                        f"`{name}` on {have} values: ROCm 7.2 "
                        "declares it "
                        f"for {only} only, so this call does not compile; compute "
                        f"through float or compare and select by hand",
                    )
                break

    @staticmethod
    def _kind(ctx, arg, call):
        n = arg
        while n is not None and n.type == "parenthesized_expression" and n.named_child_count:
            n = n.named_children[0]
        if n is None:
            return None
        if n.type == "call_expression":
            f = n.child_by_field_name("function")
            fname = ctx.text(f) if f is not None else ""
            if fname in _HALF_MAKERS:
                return "half"
            if fname in _BF16_MAKERS:
                return "bf16"
            return None
        if n.type == "identifier":
            t = ctx.decls.type_of(ctx.text(n), call)
            if t:
                if _BF16_T.search(t):
                    return "bf16"
                if _HALF_T.search(t):
                    return "half"
        return None
