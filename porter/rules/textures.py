"""PT60x: textures, surfaces and cache-hint intrinsics (hazards.md section F)."""

from __future__ import annotations

from ..analysis.lazyre import re
from ..analysis.targets import fmt_targets, verb_for
from ..findings import Applicability, Edit, Severity
from .base import Rule, RuleContext
from .registry import register


def no_image_targets(ctx: RuleContext) -> tuple[str, ...]:
    # ROCm 7.2 amd_device_functions.h defines __gfx94plus_clr__ for gfx942 *and* gfx950 and then
    # __HIP_NO_IMAGE_SUPPORT 1, so gfx950 has no texture API either (Target.images says True).
    return tuple(t.arch for t in ctx.options.targets if not t.images or t.arch == "gfx950")


# -- PT601 ------------------------------------------------------------------------------------
_BIND = (
    "cudaBindTexture",
    "cudaBindTexture2D",
    "cudaBindTextureToArray",
    "cudaBindTextureToMipmappedArray",
    "cudaUnbindTexture",
    "cudaGetTextureReference",
    "cudaGetTextureAlignmentOffset",
    "hipBindTexture",
    "hipBindTexture2D",
    "hipBindTextureToArray",
    "hipBindTextureToMipmappedArray",
    "hipUnbindTexture",
    "hipGetTextureReference",
    "hipGetTextureAlignmentOffset",
    "cuTexRefSetAddress",
    "cuTexRefSetAddress2D",
    "cuTexRefSetArray",
    "cuTexRefSetFormat",
    "cuModuleGetTexRef",
    "hipTexRefSetAddress",
    "hipTexRefSetAddress2D",
    "hipTexRefSetArray",
    "hipTexRefSetFormat",
    "hipModuleGetTexRef",
)
_FETCH = (
    "tex1Dfetch",
    "tex1D",
    "tex2D",
    "tex3D",
    "tex1DLayered",
    "tex2DLayered",
    "texCubemap",
    "tex1DLod",
    "tex2DLod",
    "tex3DLod",
    "tex1DGrad",
    "tex2DGrad",
    "tex3DGrad",
    "texCubemapLayered",
    "tex2Dgather",
)


@register
class TextureReference(Rule):
    """Texture reference (`texture<T, N, mode>` and the bind/unbind API).

    ## What it finds
    Declarations of texture references (`texture<float, 1, cudaReadModeElementType> tex;`), the
    reference API (`cudaBindTexture`, `cudaBindTexture2D`, `cudaBindTextureToArray`,
    `cudaUnbindTexture`, `cuTexRefSet*`, and their `hip*` spellings), and `tex1Dfetch(ref, i)`
    style fetches through a reference declared in the file.

    ## Why it breaks on AMD
    Texture references were deprecated in CUDA 11.0 and removed in CUDA 12.0; HIP deprecated its
    copies in HIP 3.8 (they still carry `HIP_DEPRECATED` in ROCm 7.2). They also go through the
    image instructions, which MI300 (gfx942) and MI350 (gfx950) do not have: with ROCm 7.2 the
    texture functions are declared `unavailable` there and compilation fails.

    ## Example
    ```cpp
    texture<float, 1, cudaReadModeElementType> texIn;
    cudaBindTexture(0, texIn, d_in, n * sizeof(float));
    __global__ void k(float* out) { out[threadIdx.x] = tex1Dfetch(texIn, threadIdx.x); }
    ```

    ## Use instead
    Plain global loads (`__ldg(&in[i])` or `in[i]`) with manual addressing and clamping, which
    work on every AMD target; or texture objects (`cudaTextureObject_t`) where the targets have
    image support (not gfx942/gfx950).

    ## References
    - HIPIFY CUDA Runtime API support table (`cudaBindTexture`: deprecated 11.0, removed 12.0;
      `hipBindTexture` deprecated 3.8.0)
    - ROCm 7.2 `hip/hip_runtime_api.h` (`HIP_DEPRECATED` texture reference templates)
    - ROCm 7.2 `hip/amd_detail/amd_device_functions.h` (`__HIP_NO_IMAGE_SUPPORT` on gfx942/gfx950)
    """

    code = "PT601"
    name = "texture-reference"
    severity = Severity.ERROR
    triggers = (
        b"texture<",
        b"texture <",
        b"BindTexture",
        b"UnbindTexture",
        b"TexRef",
        b"TextureReference",
    )

    def check(self, ctx):
        refs: set[str] = set()
        for tt in ctx.nodes("template_type"):
            name = tt.child_by_field_name("name")
            if name is None or ctx.text(name) not in ("texture", "hip::texture"):
                continue
            decl = tt.parent
            if decl is None or decl.type not in ("declaration", "field_declaration"):
                continue
            names = [
                ctx.text(d)
                for d in decl.children_by_field_name("declarator")
                if d.type in ("identifier", "field_identifier")
            ]
            refs.update(names)
            what = ", ".join(f"`{n}`" for n in names) or "a texture reference"
            yield self.finding(
                ctx,
                decl,
                f"texture reference {what} ({ctx.text(tt)}) is removed "
                f"in CUDA 12 and deprecated in HIP, and needs image instructions: "
                f"read the data with plain global loads (or a texture object)",
            )
        for cl in ctx.calls.named(_BIND):
            name, ident, call, args = cl.name, cl.callee, cl.node, cl.args
            yield self.finding(
                ctx,
                ident,
                f"`{name}` belongs to the removed texture-reference "
                f"API: bind nothing and read the buffer with global loads "
                f"(or create a texture object)",
            )
        if refs:
            for cl in ctx.calls.named(_FETCH):
                name, ident, call, args = cl.name, cl.callee, cl.node, cl.args
                if (
                    args
                    and args[0].type == "identifier"
                    and ctx.text(args[0]) in refs
                    and ident.parent.type != "template_function"
                ):
                    yield self.finding(
                        ctx,
                        call,
                        f"`{name}` reads through texture reference "
                        f"`{ctx.text(args[0])}`: replace it with a global load "
                        f"from the bound buffer",
                    )


# -- PT602 ------------------------------------------------------------------------------------
_OBJ_FETCH = _FETCH + (
    "tex1DLayeredLod",
    "tex2DLayeredLod",
    "tex1DLayeredGrad",
    "tex2DLayeredGrad",
    "texCubemapLod",
    "texCubemapGrad",
    "texCubemapLayeredLod",
    "texCubemapLayeredGrad",
)
_SURF = (
    "surf1Dread",
    "surf1Dwrite",
    "surf2Dread",
    "surf2Dwrite",
    "surf3Dread",
    "surf3Dwrite",
    "surf1DLayeredread",
    "surf1DLayeredwrite",
    "surf2DLayeredread",
    "surf2DLayeredwrite",
    "surfCubemapread",
    "surfCubemapwrite",
    "surfCubemapLayeredread",
    "surfCubemapLayeredwrite",
)
_OBJ_HOST = (
    "cudaCreateTextureObject",
    "hipCreateTextureObject",
    "cudaCreateSurfaceObject",
    "hipCreateSurfaceObject",
    "cuTexObjectCreate",
    "hipTexObjectCreate",
    "cuSurfObjectCreate",
)


@register
class TextureImageUnsupported(Rule):
    """Texture or surface object used on a target without image support (MI300, MI350).

    ## What it finds
    Device-side texture and surface functions (`tex1D<T>`, `tex2D<T>`, `tex3D<T>`,
    `tex1Dfetch<T>`, `tex2DLayered<T>`, `surf2Dwrite`, `surf1Dread`, ...) and the host calls that
    create texture or surface objects (`cudaCreateTextureObject`, `cudaCreateSurfaceObject`),
    when a selected `--offload-arch` has no image support. Code AMD does not compile (the
    NVIDIA side of a vendor switch) is not reported.

    ## Why it breaks on AMD
    For gfx942 (MI300A/MI300X/MI325X), and in ROCm 7.2 also gfx950 (MI350X/MI355X), HIP defines
    `__HIP_NO_IMAGE_SUPPORT 1` and the texture/surface functions carry
    `__attribute__((unavailable("The image/texture API not supported on the device")))`: the
    device code does not compile. At run time `hipDeviceAttributeImageSupport` is 0 there. Other
    targets (gfx90a, RDNA) support texture objects.

    ## Example
    ```cpp
    __global__ void k(cudaTextureObject_t t, float* out) {
      out[threadIdx.x] = tex2D<float>(t, threadIdx.x + 0.5f, blockIdx.x + 0.5f);
    }
    ```

    ## Use instead
    Global-memory loads with manual addressing, border clamping and (if needed) interpolation;
    `__ldg` is fine. Keep the texture path under `#if !defined(__HIP_NO_IMAGE_SUPPORT)` if other
    targets should still use it (such guarded code is not reported).

    ## References
    - ROCm 7.2 `hip/amd_detail/amd_device_functions.h` (`__gfx94plus_clr__` for gfx942 and
      gfx950, then `__HIP_NO_IMAGE_SUPPORT 1`)
    - ROCm 7.2 `hip/amd_detail/host_defines.h` (`__hip_img_chk__` unavailable attribute)
    - HIP kernel language reference, Texture functions and Surface functions
    """

    code = "PT602"
    name = "texture-image-unsupported"
    severity = Severity.ERROR
    triggers = (
        b"tex1D",
        b"tex2D",
        b"tex3D",
        b"texCubemap",
        b"surf1D",
        b"surf2D",
        b"surf3D",
        b"surfCubemap",
        b"TextureObject",
        b"SurfaceObject",
        b"TexObjectCreate",
        b"SurfObjectCreate",
    )

    def check(self, ctx):
        archs = no_image_targets(ctx)
        if not archs:
            return
        where = fmt_targets(archs)
        guard = ("__HIP_NO_IMAGE_SUPPORT",)
        for cl in ctx.calls.named(_OBJ_FETCH + _SURF):
            name, ident, call, _args = cl.name, cl.callee, cl.node, cl.args
            if ctx.pp.guarded_by(call.start_byte, guard) or ctx.vendor.at(call).not_for_amd:
                continue
            yield self.finding(
                ctx,
                ident,
                f"`{name}` needs image instructions, which {where} "
                f"{verb_for(archs, 'lack')} (HIP marks it unavailable there): use global-memory "
                f"loads with manual addressing, or guard it with "
                f"`#if !defined(__HIP_NO_IMAGE_SUPPORT)`",
                targets=archs,
            )
        for cl in ctx.calls.named(_OBJ_HOST):
            name, ident, call, _args = cl.name, cl.callee, cl.node, cl.args
            if ctx.pp.guarded_by(call.start_byte, guard) or ctx.vendor.at(call).not_for_amd:
                continue
            yield self.finding(
                ctx,
                ident,
                f"`{name}` creates an image object, which {where} "
                f"{verb_for(archs, 'do', 'does')} not support (hipDeviceAttributeImageSupport is "
                f"0): pass the "
                f"plain device pointer instead",
                targets=archs,
            )


# -- PT603 ------------------------------------------------------------------------------------
_HINT_LOADS = ("__ldcg", "__ldca", "__ldcs")
_HALF_RX = re.compile(r"half|__hip_bfloat|bfloat16")


def _base_ident(node):
    """The identifier a pointer expression is built from: `p`, `p + i`, `&p[i]`, `(p)`."""
    while node is not None:
        if node.type == "identifier":
            return node
        if node.type in ("pointer_expression", "parenthesized_expression"):
            node = node.child_by_field_name("argument") or (
                node.named_children[0] if node.named_children else None
            )
        elif node.type == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif node.type == "binary_expression":
            node = node.child_by_field_name("left")
        elif node.type == "cast_expression":
            return None
        else:
            return None
    return None


@register
class CacheHintIntrinsics(Rule):
    """Cache-hint load intrinsics (`__ldcg`, `__ldca`, `__ldcs`) on non-half data.

    ## What it finds
    Calls of `__ldcg`, `__ldca` and `__ldcs` whose pointer is not a `__half`/`__half2` pointer.
    (The store hints `__stcg`, `__stcs`, `__stwb`, `__stwt` and the loads `__ldlu`, `__ldcv` are
    not declared by HIP at all; porter's mapping check reports them as PT002.)

    ## Why it breaks on AMD
    ROCm 7.2 declares these three intrinsics only for `const __half*` and `const __half2*`
    (`amd_hip_fp16.h`, each just `return *ptr;`). A call on `float*`, `int4*` or any other
    pointer finds no overload and the file does not compile. The hint itself has no AMD
    meaning here: HIP's own definition is a plain load.

    ## Example
    ```cpp
    float v = __ldcg(&in[i]);     // no __ldcg(const float*) in HIP
    ```

    ## Use instead
    A plain load `*(&in[i])` (the safe fix; identical to what HIP's `__half` overload does), or
    `__builtin_nontemporal_load(p)` for streaming data that should bypass the caches.

    ## Fix safety
    Safe. The fix replaces `__ldcg(p)`, `__ldca(p)` or `__ldcs(p)` by the plain load `*(p)`
    (`(*(p))` when the result is an operand of `.`, `[]` or a call), which is exactly the body
    of HIP's own `__half` overloads: on AMD only the compile error goes; on NVIDIA the load
    loses its cache hint, which changes speed, not results. Also offered, with the finding
    lowered to a warning, when porter cannot tell the pointer's type (the plain load is right
    for a `__half` pointer too).

    ## References
    - ROCm 7.2 `hip/amd_detail/amd_hip_fp16.h` (the only `__ldcg`/`__ldca`/`__ldcs` overloads)
    - HIPIFY `hipify-perl` unsupported device functions (`__stcs`, `__stcg`, `__stwb`, `__stwt`,
      `__ldlu`, `__ldcv`)
    - HIPIFY CUDA Device API support table
    """

    code = "PT603"
    name = "cache-hint-intrinsics"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = (b"__ldcg", b"__ldca", b"__ldcs")

    def check(self, ctx):
        for cl in ctx.calls.named(_HINT_LOADS):
            name, ident, call, args = cl.name, cl.callee, cl.node, cl.args
            if len(args) != 1:
                continue
            base = _base_ident(args[0])
            tname = ctx.decls.type_of(ctx.text(base), call) if base is not None else None
            if tname is not None and _HALF_RX.search(tname):
                continue
            parent = call.parent
            if parent is not None and parent.type in (
                "field_expression",
                "subscript_expression",
                "call_expression",
            ):
                edits = [
                    Edit(ident.start_byte, ident.end_byte, b"(*"),
                    Edit(call.end_byte, call.end_byte, b")"),
                ]
            else:
                edits = [Edit(ident.start_byte, ident.end_byte, b"*")]
            fx = self.make_fix(
                edits, Applicability.SAFE, f"replace `{name}(p)` with the plain load `*(p)`"
            )
            if tname is None:
                yield self.finding(
                    ctx,
                    ident,
                    f"`{name}` exists in HIP only for `__half`/"
                    f"`__half2` pointers; if `{ctx.text(args[0])}` is not one, use "
                    f"a plain load",
                    severity=Severity.WARNING,
                    fix=fx,
                )
            else:
                yield self.finding(
                    ctx,
                    ident,
                    f"`{name}` on a `{tname}` pointer does not compile "
                    f"with HIP (only `__half`/`__half2` overloads exist): use a "
                    f"plain load",
                    fix=fx,
                )


# -- PT604 ------------------------------------------------------------------------------------
@register
class LdgNoop(Rule):
    """`__ldg` is supported and is an ordinary load on AMD.

    ## What it finds
    Calls of `__ldg(p)`.

    ## Why it breaks on AMD
    It does not break: HIP declares `__ldg` for the scalar, vector and half types
    (`hip_ldg.h`, `amd_hip_fp16.h`) and compiles it to a normal global load, which on AMD goes
    through L1 and L2 anyway. It is reported only so that ports do not spend effort rewriting it.

    ## Example
    ```cpp
    float v = __ldg(&in[i]);
    ```

    ## Use instead
    Keep it. Read-only data benefits more from `const __restrict__` pointers, which let the
    compiler use scalar or non-coherent loads.

    ## References
    - HIP porting guide, Textures and Cache Control
    - HIPIFY CUDA Device API support table (`__ldg` supported)
    - ROCm 7.2 `hip/amd_detail/hip_ldg.h`
    """

    code = "PT604"
    name = "ldg-noop"
    severity = Severity.INFO
    triggers = (b"__ldg",)

    def check(self, ctx):
        seen = 0
        for cl in ctx.calls.named(("__ldg",)):
            _name, ident, _call, _args = cl.name, cl.callee, cl.node, cl.args
            seen += 1
            if seen == 1:
                first = ident
        if seen:
            more = f" (and {seen - 1} more in this file)" if seen > 1 else ""
            yield self.finding(
                ctx,
                first,
                f"`__ldg` is a plain global load on AMD{more}: keep it, no port work is needed",
            )
