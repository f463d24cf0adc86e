"""PT206–PT211: Hopper/Blackwell-only hardware (wgmma/tcgen05, TMA, mbarrier/async barriers,
thread-block clusters, programmatic dependent launch) and dynamic parallelism.

Inline PTX of these families comes from `ctx.asm` (one finding per asm statement); the
host and library spellings are found as identifiers or qualified names outside comments and
strings. Code in branches that HIP-Clang never compiles (or that only HIP-Clang compiles) is
skipped (`ctx.pp.skip`).
"""

from __future__ import annotations

from ..analysis.asm import may_have_sites
from ..analysis.lazyre import re
from ..analysis.lex import code_matches, find_word
from ..analysis.tree import in_comment
from ..findings import Applicability, Severity
from .base import IdentMatcher, Rule, any_ident
from .registry import register


def _ident_findings(rule, ctx, rx, message, *, per_line=True, kinds=None):
    """Findings for identifiers matching `rx` (a str regex matched in full) in live code."""
    pp = ctx.pp
    # the identifier nodes `ctx.identifiers` finds start where their words do: when each word
    # is in a comment or in code HIP-Clang skips, there is nothing to report (no tree read)
    data = ctx.data
    if all(
        pp.skip(pos) or in_comment(data, pos)
        for word in _ident_matcher(rx).matching(ctx.idents)
        for pos in find_word(data, word)
    ):
        return
    seen = set()
    nodes = ctx.identifiers(rx) if kinds is None else ctx.identifiers(rx, kinds)
    for node in nodes:
        if pp.skip(node.start_byte):
            continue
        line = ctx.src.position(node.start_byte)[0]
        if per_line and line in seen:
            continue
        seen.add(line)
        yield rule.finding(ctx, node, message(ctx.text(node)))


_MATCHERS: dict[bytes, IdentMatcher] = {}


def _ident_matcher(rx) -> IdentMatcher:
    """The identifier matcher `ctx.identifiers` uses for `rx` (a str or bytes regex matched in
    full, with its flags), one per pattern."""
    pat = rx.pattern if isinstance(rx.pattern, bytes) else rx.pattern.encode()
    m = _MATCHERS.get(pat)
    if m is None:
        m = _MATCHERS[pat] = IdentMatcher(pat)
    return m


# -- PT206 -------------------------------------------------------------------------------------
_SM90_ATOM = re.compile(r"SM(?:90|100|101|103|110|120|121)_(?!TMA|BULK)\w+")
_SM90_ARCH = re.compile(rb"arch\s*::\s*(Sm(?:90a?|100a?|101a?|103a?|120a?))(?![\w$])")


@register
class HopperBlackwellMma(Rule):
    """Hopper/Blackwell warpgroup MMA and register reallocation (`wgmma`, `tcgen05`, `setmaxnreg`).

    ## What it finds
    `wgmma.*`, `tcgen05.*`, `setmaxnreg.*`, `elect.sync` and `fence.proxy.async` in inline PTX
    (or `cuda::ptx::` wrappers), CuTe/CUTLASS SM90/SM100/SM120 atoms (`SM90_64x128x16_F32F16F16_SS`,
    `SM100_MMA_F16BF16_SS`) and `cutlass::arch::Sm90`/`Sm100` collectives.

    ## Why it breaks on AMD
    No AMD GPU has warpgroup-wide asynchronous MMA, tensor memory or per-warpgroup register
    reallocation; the PTX does not compile and the kernel design (producer/consumer warpgroups,
    TMA-fed pipelines) has no direct counterpart.

    ## Example
    ```cpp
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 ..." : ...);
    asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
    ```

    ## Use instead
    Redesign around MFMA (`__builtin_amdgcn_mfma_*`, rocWMMA) with LDS double buffering, or use a
    library (hipBLASLt, Composable Kernel, AITER); no AMD source names a drop-in equivalent.

    ## References
    - Triton `language/core.py` (warp specialization "only supported on Blackwell") [TRI-CORE]
    - rocWMMA API reference [ROCWMMA]
    """

    code = "PT206"
    name = "hopper-blackwell-mma"
    severity = Severity.ERROR
    fix = Applicability.NONE
    triggers = (
        b"wgmma",
        b"tcgen05",
        b"setmaxnreg",
        b"elect.sync",
        b"fence.proxy.async",
        b"SM90_",
        b"SM100_",
        b"SM120_",
        b"Sm90",
        b"Sm100",
        b"Sm120",
        b"ptx::",
    )
    family = "hopper"

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on an asm site, an `SM90_*` atom identifier or an `arch::Sm90`:
        without one the file needs no parse for this rule."""
        return (
            may_have_sites(data)
            or any_ident(_SM90_ATOM, idents)
            or _SM90_ARCH.search(data) is not None
        )

    ADVICE = (
        "redesign around MFMA/rocWMMA with LDS double buffering, or use hipBLASLt/Composable Kernel"
    )

    def check(self, ctx):
        for s in ctx.asm.family(self.family):
            yield self.finding(
                ctx,
                s.span,
                f"{s.what()} (Hopper/Blackwell warpgroup MMA or "
                "register "
                f"reallocation) has no AMD equivalent; {self.ADVICE}",
            )
        yield from _ident_findings(
            self,
            ctx,
            _SM90_ATOM,
            lambda t: (
                f"CuTe/CUTLASS atom `{t}` targets Hopper/Blackwell tensor cores; {self.ADVICE}"
            ),
        )
        pp = ctx.pp
        seen = set()
        for m in code_matches(ctx, _SM90_ARCH, word_start=True):
            line = ctx.src.position(m.start())[0]
            if line in seen or pp.skip(m.start()):
                continue
            seen.add(line)
            yield self.finding(
                ctx,
                (m.start(1), m.end(1)),
                f"`arch::{m.group(1).decode()}` "
                "selects a CUTLASS "
                f"Hopper/Blackwell kernel (wgmma, TMA, clusters); {self.ADVICE}",
            )


# -- PT207 -------------------------------------------------------------------------------------
_TMA_IDS = re.compile(
    r"\w*cuTensorMapEncode\w*|cuTensorMapReplace\w*|CUtensorMap\w*|CUtensorMap"
    r"|cp_async_bulk_tensor\w*|cp_async_bulk_global_to_shared|cp_async_bulk_shared_to_global"
    r"|cp_reduce_async_bulk\w*|SM(?:90|100)_TMA_\w+|SM90_BULK_\w+|make_tma_copy\w*"
    r"|make_tma_atom\w*|fence_proxy_async_shared_cta"
)


@register
class TmaTensorMap(Rule):
    """Tensor Memory Accelerator (TMA): `cuTensorMapEncodeTiled`, `CUtensorMap`, `cp.async.bulk`.

    ## What it finds
    `cp.async.bulk(.tensor)`, `cp.reduce.async.bulk` and `tensormap.*` in inline PTX or
    `cuda::ptx::` wrappers; host `cuTensorMapEncodeTiled`/`Im2col` (and `PFN_` pointers to them),
    `CUtensorMap`; libcu++ `cuda::device::experimental::cp_async_bulk_tensor_*`; CuTe
    `SM90_TMA_LOAD`/`make_tma_copy`.

    ## Why it breaks on AMD
    MI200/MI300/MI350 have no TMA unit: there is no tensor-map object, no bulk asynchronous
    tensor copy and no transaction-count barrier. HIPIFY lists `cuTensorMapEncode*` as unsupported;
    gfx1250's tensor data mover (TDM) is a different API (Triton `supports_tdm`).

    ## Example
    ```cpp
    CUtensorMap map;
    cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, ptr, dims, strides, box, elem,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, ...);
    ```

    ## Use instead
    Pointer-based tiled loads: each thread loads its part of the tile (vectorized 16-byte loads)
    into LDS, then `__syncthreads()`; pass base pointers and strides instead of a tensor map.

    ## References
    - hipify-perl unsupported API list (`cuTensorMapEncode*`) [HIPIFY-PERL]
    - Triton AMD backend (`supports_tdm` for gfx1250) [TRI-AMD]
    """

    code = "PT207"
    name = "tma-tensor-map"
    severity = Severity.ERROR
    fix = Applicability.NONE
    triggers = (
        b"TensorMap",
        b"tensormap",
        b"cp.async.bulk",
        b"cp_async_bulk",
        b"TMA",
        b"tma_",
        b"cp.reduce.async.bulk",
        b"ptx::",
    )
    family = "tma"

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on an asm site or a TMA identifier: without one the file needs no
        parse for this rule."""
        return may_have_sites(data) or any_ident(_TMA_IDS, idents)

    ADVICE = (
        "load tiles with pointer arithmetic into LDS (16-byte vector loads) and `__syncthreads()`"
    )

    def check(self, ctx):
        for s in ctx.asm.family(self.family):
            yield self.finding(
                ctx,
                s.span,
                f"{s.what()} (TMA bulk tensor copy) has no AMD equivalent; {self.ADVICE}",
            )
        yield from _ident_findings(
            self,
            ctx,
            _TMA_IDS,
            lambda t: (
                f"`{t}` is part of the Hopper "
                "TMA "
                f"(tensor-map) API, which AMD GPUs lack; {self.ADVICE}"
            ),
        )


# -- PT208 -------------------------------------------------------------------------------------
_BARRIER_QUAL = re.compile(
    rb"cuda\s*::\s*(?:(?:std\s*::\s*)?"
    rb"(barrier|latch|counting_semaphore"
    rb"|binary_semaphore)(?![\w$])|device\s*::\s*"
    rb"(barrier_arrive_tx|barrier_expect_tx|barrier_native_handle)(?![\w$]))"
)
_BARRIER_IDS = re.compile(r"__mbarrier_\w+|__awbarrier_\w+")
_BARRIER_HEADERS = {
    "cuda/barrier",
    "cuda/std/barrier",
    "cuda/latch",
    "cuda/std/latch",
    "cuda/semaphore",
    "cuda/std/semaphore",
    "cuda_awbarrier.h",
    "cuda_awbarrier_primitives.h",
    "cuda_awbarrier_helpers.h",
}
_BARRIER_HEADER_BYTES = tuple(sorted(h.encode() for h in _BARRIER_HEADERS))


@register
class AsyncBarrier(Rule):
    """Asynchronous barriers: `cuda::barrier`, `cuda::std::latch`/semaphores, `mbarrier` PTX.

    ## What it finds
    `cuda::barrier`, `cuda::std::barrier`, `cuda::(std::)latch`, `cuda::(std::)counting_semaphore`/
    `binary_semaphore`, `cuda::device::barrier_arrive_tx`, the headers `<cuda/barrier>`,
    `<cuda/std/barrier>`, `<cuda/latch>`, `<cuda/semaphore>`, `<cuda_awbarrier.h>`,
    `__mbarrier_*`/`__awbarrier_*` intrinsics, and `mbarrier.*` in inline PTX.

    ## Why it breaks on AMD
    libhipcxx does not support `<cuda/std/latch>`, `<cuda/std/barrier>`, `<cuda/std/semaphore>`,
    `<cuda/latch>` or `<cuda/barrier>`, and AMD GPUs have no shared-memory barrier objects with
    arrival/transaction counts (mbarrier); HIP has no `__mbarrier_*` intrinsics.

    ## Example
    ```cpp
    #include <cuda/barrier>
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    init(&bar, blockDim.x);
    bar.arrive_and_wait();
    ```

    ## Use instead
    `__syncthreads()` for block-wide phases, or flags in LDS/global memory with atomics and
    `__threadfence_block()`/`__threadfence()` for producer/consumer hand-offs.

    ## Fix safety
    Display only: porter never rewrites this; the message names the replacement. Barrier objects
    with arrival and transaction counts have no AMD counterpart; replacing them with
    `__syncthreads()` or flag protocols changes the synchronisation design and needs review of
    every participant.

    ## References
    - libhipcxx limitations page [LIBHIPCXX]
    - porter `mappings/libcxx.csv`, `headers.csv` (unsupported rows)
    """

    code = "PT208"
    name = "async-barrier"
    severity = Severity.ERROR
    fix = Applicability.DISPLAY
    triggers = (b"barrier", b"latch", b"semaphore", b"mbarrier", b"awbarrier")
    family = "mbarrier"

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on an asm site, a qualified barrier name, an mbarrier intrinsic or
        the path of a barrier header: without one the file needs no parse for this rule."""
        return (
            may_have_sites(data)
            or _BARRIER_QUAL.search(data) is not None
            or any_ident(_BARRIER_IDS, idents)
            or any(h in data for h in _BARRIER_HEADER_BYTES)
        )

    ADVICE = "use `__syncthreads()`, or LDS/global flags with atomics and `__threadfence*()`"

    def check(self, ctx):
        pp = ctx.pp
        for s in ctx.asm.family(self.family):
            yield self.finding(
                ctx,
                s.span,
                f"{s.what()} (mbarrier arrive/wait) has no AMD equivalent; {self.ADVICE}",
            )
        for m in code_matches(ctx, _BARRIER_QUAL, word_start=True):
            if pp.skip(m.start()):
                continue
            what = re.sub(r"\s+", "", ctx.data[m.start() : m.end()].decode())
            yield self.finding(
                ctx,
                (m.start(), m.end()),
                f"`{what}` is not supported by HIP/libhipcxx; {self.ADVICE}",
            )
        yield from _ident_findings(
            self,
            ctx,
            _BARRIER_IDS,
            lambda t: f"`{t}` (mbarrier intrinsic) has no HIP equivalent; {self.ADVICE}",
        )
        for node, path in ((i.path_span, i.path) for i in ctx.includes):
            if path in _BARRIER_HEADERS and not pp.skip(node[0]):
                yield self.finding(
                    ctx, node, f"<{path}> is not supported by HIP/libhipcxx; {self.ADVICE}"
                )


# -- PT209 -------------------------------------------------------------------------------------
_CLUSTER_IDS = re.compile(
    r"cudaLaunchAttribute(?:Preferred)?ClusterDimension|cudaLaunchAttributeClusterSchedulingPolicyPreference"
    r"|cudaFuncAttributeRequiredCluster(?:Width|Height|Depth)|cudaFuncAttributeNonPortableClusterSizeAllowed"
    r"|cudaFuncAttributeClusterSchedulingPolicyPreference|cudaFuncAttributeClusterDimMustBeSet"
    r"|cudaOccupancyMaxActiveClusters|cudaOccupancyMaxPotentialClusterSize|cuOccupancyMaxActiveClusters"
    r"|cuOccupancyMaxPotentialClusterSize|CU_LAUNCH_ATTRIBUTE_(?:PREFERRED_)?CLUSTER_\w+"
    r"|CU_FUNC_ATTRIBUTE_\w*CLUSTER\w*|__cluster_(?:barrier_\w+|map_shared_rank|query_shared_rank)"
    r"|__clusterDim\w*|__clusterIdx|__clusterRelative\w+|__clusterGridDimInClusters|__clusterSizeInBlocks"
    r"|this_cluster|cluster_group"
)
_CLUSTER_DIMS = re.compile(rb"__cluster_dims__(?![\w$])")
_CLUSTER_METHODS = {
    "sync",
    "map_shared_rank",
    "block_rank",
    "block_index",
    "dim_blocks",
    "num_blocks",
    "barrier_arrive",
    "barrier_wait",
    "query_shared_rank",
}


@register
class ThreadBlockCluster(Rule):
    """Thread-block clusters and distributed shared memory (`__cluster_dims__`, `this_cluster()`).

    ## What it finds
    `__cluster_dims__(...)` (also in macros), `cg::this_cluster()`, `cluster_group`,
    `cluster.sync()` / `cluster.map_shared_rank(...)` on a cluster object,
    `cudaLaunchAttributeClusterDimension`, `cudaFuncAttributeRequiredCluster*`,
    `cudaFuncAttributeNonPortableClusterSizeAllowed`, `cudaOccupancyMaxActiveClusters`,
    `__cluster*` device functions, and cluster PTX (`barrier.cluster`, `mapa`, `%cluster_ctarank`,
    `shared::cluster`).

    ## Why it breaks on AMD
    HIP has no thread-block clusters or distributed shared memory on MI200/MI300/MI350 or RDNA;
    HIPIFY marks these APIs unsupported. clang-22 accepts `__cluster_dims__` only for gfx1250 and
    rejects it elsewhere ("'cluster_dims' is not supported for this GPU architecture"); Triton
    supports `num_ctas > 1` only on gfx1250.

    ## Example
    ```cpp
    __global__ void __cluster_dims__(2, 1, 1) k(float* out) {
      cg::cluster_group cluster = cg::this_cluster();
      float* peer = cluster.map_shared_rank(smem, cluster.block_rank() ^ 1);
      cluster.sync();
    }
    ```

    ## Use instead
    Exchange data between blocks through global memory (with atomics/flags or a second kernel),
    or enlarge the block so one workgroup holds the data in LDS.

    ## References
    - HIPIFY runtime API support table (cluster attributes and functions unsupported) [HIPIFY-RT]
    - clang `__clang_hip_runtime_wrapper.h` (`__cluster_dims__` → `cluster_dims` attribute)
    - Triton AMD backend ("num_ctas > 1 not supported") [TRI-AMD]
    """

    code = "PT209"
    name = "thread-block-cluster"
    severity = Severity.ERROR
    fix = Applicability.NONE
    triggers = (b"cluster", b"Cluster", b"CLUSTER", b"mapa", b"getctarank")
    family = "cluster"

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on an asm site, `__cluster_dims__`, a cluster identifier or a
        method call on a cluster object (`map_shared_rank`, or a variable from `this_cluster()`
        or typed `cluster_group`): without one the file needs no parse for this rule."""
        return (
            may_have_sites(data)
            or b"__cluster_dims__" in data
            or b"map_shared_rank" in data
            or b"this_cluster" in data
            or b"cluster_group" in data
            or any_ident(_CLUSTER_IDS, idents)
        )

    ADVICE = "exchange data through global memory (flags/atomics or a second kernel) instead"

    def check(self, ctx):
        pp = ctx.pp
        no_cluster = tuple(t.arch for t in ctx.options.targets if t.arch != "gfx1250")
        for s in ctx.asm.family(self.family):
            yield self.finding(
                ctx,
                s.span,
                f"{s.what()} (thread-block cluster / distributed "
                f"shared memory) has no AMD equivalent; {self.ADVICE}",
            )
        for m in code_matches(ctx, _CLUSTER_DIMS, word_start=True):
            if pp.skip(m.start()):
                continue
            if no_cluster:
                yield self.finding(
                    ctx,
                    (m.start(), m.end()),
                    "`__cluster_dims__` is rejected by "
                    "HIP-Clang "
                    f"for {', '.join(no_cluster)} (clusters exist only on gfx1250); "
                    f"{self.ADVICE}",
                    targets=no_cluster,
                )
            else:
                yield self.finding(
                    ctx,
                    (m.start(), m.end()),
                    "`__cluster_dims__` compiles only "
                    "for gfx1250; "
                    "keep other targets out of this kernel",
                    severity=Severity.INFO,
                )
        yield from _ident_findings(
            self,
            ctx,
            _CLUSTER_IDS,
            lambda t: f"`{t}` (thread-block clusters) has no HIP equivalent; {self.ADVICE}",
        )
        # methods on cluster objects: variables initialised from this_cluster() or typed
        # cluster_group (neither, nor `map_shared_rank`, in the file: none, and no tree walk)
        data = ctx.data
        if (
            b"map_shared_rank" not in data
            and b"this_cluster" not in data
            and b"cluster_group" not in data
        ):
            return
        cluster_vars = set()
        for d in ctx.nodes("init_declarator"):
            val, name = d.child_by_field_name("value"), d.child_by_field_name("declarator")
            if (
                val is not None
                and name is not None
                and name.type == "identifier"
                and re.search(r"\bthis_cluster\s*\(", ctx.text(val))
            ):
                cluster_vars.add(ctx.text(name))
        for decl in ctx.nodes("declaration", "parameter_declaration"):
            t = decl.child_by_field_name("type")
            if t is not None and re.search(r"\bcluster_group\b", ctx.text(t)):
                for d in decl.children_by_field_name("declarator"):
                    while d is not None and d.type != "identifier":
                        d = d.child_by_field_name("declarator")
                    if d is not None:
                        cluster_vars.add(ctx.text(d))
        for call in ctx.nodes("call_expression"):
            fn = call.child_by_field_name("function")
            if fn is None or fn.type != "field_expression":
                continue
            obj, fld = fn.child_by_field_name("argument"), fn.child_by_field_name("field")
            if obj is None or fld is None:
                continue
            meth = ctx.text(fld)
            if meth == "map_shared_rank" or (
                meth in _CLUSTER_METHODS and ctx.text(obj) in cluster_vars
            ):
                if pp.skip(call.start_byte):
                    continue
                yield self.finding(
                    ctx,
                    call,
                    f"`{ctx.text(obj)}.{meth}()` is a "
                    "thread-block-cluster "
                    f"operation with no AMD equivalent; {self.ADVICE}",
                )


# -- PT210 -------------------------------------------------------------------------------------
_PDL_IDS = re.compile(
    r"cudaLaunchAttributeProgrammatic\w+|hipLaunchAttributeProgrammatic\w+"
    r"|cudaGridDependencySynchronize|cudaTriggerProgrammaticLaunchCompletion"
    r"|CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_\w+|programmaticStreamSerializationAllowed"
    r"|programmaticEvent"
)


@register
class ProgrammaticDependentLaunch(Rule):
    """Programmatic dependent launch (PDL): `cudaGridDependencySynchronize`, `griddepcontrol`.

    ## What it finds
    `cudaLaunchAttributeProgrammaticStreamSerialization`/`ProgrammaticEvent` (and
    `programmaticStreamSerializationAllowed`), `cudaGridDependencySynchronize()`,
    `cudaTriggerProgrammaticLaunchCompletion()`, `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_*`, and
    `griddepcontrol.*` PTX / `cuda::ptx::griddepcontrol_*`. (`cudaLaunchKernelEx` itself maps to
    `hipLaunchKernelEx` from ROCm 7.2 and is handled by the mapping tables.)

    ## Why it breaks on AMD
    Overlapping a dependent kernel's prologue with its predecessor is NVIDIA-only (Hopper+); the
    HIP launch attributes have no programmatic-serialization value and the device functions do not
    exist (Triton's `gdc_*` helpers are in `extra.cuda` only).

    ## Example
    ```cpp
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    // in the kernel:
    cudaGridDependencySynchronize();
    ```

    ## Use instead
    Drop the attribute and launch normally (`<<<>>>`, `hipLaunchKernelGGL` or `hipLaunchKernelEx`
    without it). Without PDL a kernel starts only after the previous one in the stream finished,
    so `cudaGridDependencySynchronize()` and `cudaTriggerProgrammaticLaunchCompletion()` can simply
    be removed on AMD.

    ## Fix safety
    Display only: porter never rewrites this; the message names the replacement. Removing the
    calls and attributes is correct on AMD, but they sit in launch-configuration code (attribute
    arrays and their counts) that has to be edited consistently by hand.

    ## References
    - HIPIFY runtime API support table [HIPIFY-RT]; porter `mappings/runtime.csv`
    - Triton `language/extra/cuda/gdc.py` [TRI-XCUDA]
    """

    code = "PT210"
    name = "programmatic-dependent-launch"
    severity = Severity.ERROR
    fix = Applicability.DISPLAY
    triggers = (
        b"Programmatic",
        b"programmatic",
        b"GridDependency",
        b"griddepcontrol",
        b"PROGRAMMATIC",
    )
    family = "pdl"

    def check(self, ctx):
        for s in ctx.asm.family(self.family):
            yield self.finding(
                ctx,
                s.span,
                f"{s.what()} (programmatic dependent launch) does not "
                f"exist on AMD; remove it: without PDL the kernel starts after its "
                f"predecessor finished",
            )

        def msg(t):
            if t in ("cudaGridDependencySynchronize", "cudaTriggerProgrammaticLaunchCompletion"):
                return (
                    f"`{t}()` (programmatic dependent launch) does not exist in HIP; remove "
                    "the call: "
                    f"without PDL the kernel starts only after the previous one finished"
                )
            return (
                f"`{t}` (programmatic dependent launch) has no HIP equivalent; drop the "
                "attribute and "
                f"launch normally"
            )

        yield from _ident_findings(self, ctx, _PDL_IDS, msg)


# -- PT211 -------------------------------------------------------------------------------------
_DP_CALLS = {
    "cudaDeviceSynchronize",
    "hipDeviceSynchronize",
    "cudaLaunchKernel",
    "hipLaunchKernel",
    "cudaLaunchDevice",
    "cudaGetParameterBuffer",
    "cudaGetParameterBufferV2",
    "cudaStreamCreateWithFlags",
    "hipStreamCreateWithFlags",
    "cudaStreamTailLaunch",
    "cudaStreamFireAndForget",
    "hipLaunchKernelGGL",
    "cudaLaunchCooperativeKernel",
}
_DP_BYTES = frozenset(n.encode() for n in _DP_CALLS)


@register
class DynamicParallelism(Rule):
    """Dynamic parallelism: a kernel launched (or the device synchronized) from device code.

    ## What it finds
    `kernel<<<...>>>(...)` launches, `cudaLaunchKernel`/`hipLaunchKernelGGL`, and
    `cudaDeviceSynchronize()`/`cudaStreamCreateWithFlags` calls inside `__global__` functions or
    `__device__` (not `__host__ __device__`) functions.

    ## Why it breaks on AMD
    HIP does not support dynamic parallelism (`__HIP_ARCH_HAS_DYNAMIC_PARALLEL__` is 0); device
    code cannot launch kernels or wait for them, so this does not compile. (The `-rdc=true` +
    `cudadevrt` build setup is a build-file concern.)

    ## Example
    ```cpp
    __global__ void parent(int* data, int n) {
      if (threadIdx.x == 0) child<<<n / 256, 256>>>(data);
      cudaDeviceSynchronize();
    }
    ```

    ## Use instead
    Launch the child work from the host (one kernel per level, or a queue processed by the next
    launch), or make the kernel persistent and loop over work items in device code.

    ## References
    - HIP FAQ (dynamic parallelism unsupported) [HFAQ]
    - HIP porting guide (`__HIP_ARCH_HAS_DYNAMIC_PARALLEL__`) [HPG]; `hip/hip_common.h` ROCm 7.2
    """

    code = "PT211"
    name = "dynamic-parallelism"
    severity = Severity.ERROR
    fix = Applicability.NONE
    triggers = (b"__global__", b"__device__")

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """A finding is a `<<<` launch or a call of a `_DP_CALLS` name, whose name node is then
        one of the file's identifier tokens (as `CallIndex.may_call` reads them): without either
        the file needs no parse for this rule. (One set test instead of 13 searches of the
        bytes.)"""
        return b"<<<" in data or not _DP_BYTES.isdisjoint(idents)

    def check(self, ctx):
        if b"<<<" not in ctx.data and not any(n.encode() in ctx.data for n in _DP_CALLS):
            return
        pp = ctx.pp
        for fd in ctx.nodes("function_definition"):
            decl = fd.child_by_field_name("declarator")
            body = fd.child_by_field_name("body")
            if decl is None or body is None:
                continue
            head = ctx.data[fd.start_byte : decl.start_byte]
            if b"__global__" in head:
                kind = "__global__"
            elif re.search(rb"(?<![\w$])__device__(?![\w$])", head) and not re.search(
                rb"(?<![\w$])__host__(?![\w$])", head
            ):
                kind = "__device__"
            else:
                continue
            fname = ctx.text(decl).split("(")[0].strip()
            for kcs in ctx.captures("(kernel_call_syntax) @k", body).get("k", []):
                call = kcs.parent
                if call is None or pp.skip(call.start_byte):
                    continue
                fn = call.child_by_field_name("function")
                callee = ctx.text(fn) if fn is not None else "a kernel"
                yield self.finding(
                    ctx,
                    call if call.type == "call_expression" else kcs,
                    f"`{callee}<<<...>>>` launched from {kind} function `{fname}` "
                    "needs "
                    "dynamic parallelism, which HIP does not support; launch it "
                    "from "
                    f"the host or make the kernel persistent",
                )
            for call in ctx.captures("(call_expression function: (identifier) @f) @c", body).get(
                "c", []
            ):
                fn = call.child_by_field_name("function")
                name = ctx.text(fn) if fn is not None else ""
                if name not in _DP_CALLS or pp.skip(call.start_byte):
                    continue
                yield self.finding(
                    ctx,
                    call,
                    f"`{name}()` in {kind} function `{fname}` is "
                    "device-side "
                    "runtime API (dynamic parallelism), which HIP does not "
                    "support; move "
                    f"it to the host",
                )
