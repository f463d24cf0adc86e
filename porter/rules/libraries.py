"""PT85x: NVIDIA libraries without a drop-in AMD counterpart (hazards.md section J)."""

from __future__ import annotations

from re import Pattern

from ..analysis.lazyre import re
from ..findings import Severity
from .base import Rule
from .registry import register


def _includes(ctx, rx: Pattern):
    """(span of the directive, path) of the matching #include lines; works without a tree."""
    for inc in ctx.includes:
        if rx.match(inc.path):
            yield inc.span, inc.path


@register
class CudnnToMiopen(Rule):
    """cuDNN used: MIOpen is not a drop-in replacement.

    ## What it finds
    `#include <cudnn.h>` (and `cudnn_*.h`, `cudnn_frontend.h`), once per include.

    ## Why it breaks on AMD
    MIOpen has no `hip*` marshalling interface mirroring cuDNN (unlike hipBLAS for cuBLAS):
    descriptors, algorithm search (`miopenFindConvolution*` must run before use), workspace
    rules and supported layouts differ, and the cuDNN frontend/graph API has no counterpart.
    HIPIFY's direct MIOpen translation is described as initial. Expect manual work.

    ## Example
    ```cpp
    #include <cudnn.h>
    cudnnConvolutionForward(handle, &alpha, xDesc, x, wDesc, w, convDesc, algo, ...);
    ```

    ## Use instead
    MIOpen's API (porter maps the names it can; see the PT002 findings for the rest), or a
    framework-level operator (PyTorch, ONNX Runtime) that already has a ROCm backend.

    ## References
    - HIP porting guide, Library Equivalents
    - HIPIFY `CHANGELOG.md` 6.3.0 (MIOpen translation status)
    """

    code = "PT851"
    name = "cudnn-to-miopen"
    needs_tree = False
    severity = Severity.WARNING
    triggers = (b"cudnn",)

    def check(self, ctx):
        for inc, p in _includes(
            ctx,
            re.compile(
                r"^(cudnn(_\w+)?\.h|cudnn_frontend\.h|"
                r"cudnn_frontend/.*)$"
            ),
        ):
            yield self.finding(
                ctx,
                inc,
                f"`{p}`: MIOpen is not a drop-in cuDNN; port the "
                f"descriptor/algorithm code to MIOpen's API by hand (or use a "
                f"framework operator)",
            )


_HIPCXX_MISSING = re.compile(r"^cuda/(std/)?(barrier|latch|semaphore|pipeline|annotated_ptr)$")


@register
class LibcuxxUnsupported(Rule):
    """libcu++ headers that libhipcxx does not provide.

    ## What it finds
    `#include <cuda/barrier>`, `<cuda/std/barrier>`, `<cuda/std/latch>`,
    `<cuda/std/semaphore>`, `<cuda/pipeline>`, `<cuda/annotated_ptr>`.

    ## Why it breaks on AMD
    libhipcxx provides much of libcu++ under the same `cuda::` names, but not barrier, latch or
    semaphore; `cuda::pipeline`/`memcpy_async` and `annotated_ptr` rely on PTX and Hopper/Ampere
    hardware (async copies, L2 access properties) and are unavailable. The include fails.

    ## Example
    ```cpp
    #include <cuda/barrier>
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    ```

    ## Use instead
    `__syncthreads()` or cooperative groups for block barriers, atomics for latches and
    semaphores, plain loads/stores for pipelines; keep the supported libhipcxx headers
    (`<cuda/std/atomic>`, `<cuda/std/type_traits>`, ...).

    ## References
    - libhipcxx documentation, limitations and extensions pages
    """

    code = "PT852"
    name = "libcuxx-unsupported"
    needs_tree = False
    severity = Severity.WARNING
    # the last component of each _HIPCXX_MISSING path is an identifier token of a file that
    # includes it (`cuda/` alone is in every libcu++ user)
    triggers = (b"barrier", b"latch", b"semaphore", b"pipeline", b"annotated_ptr")

    def check(self, ctx):
        for inc, p in _includes(ctx, _HIPCXX_MISSING):
            yield self.finding(
                ctx,
                inc,
                f"`<{p}>` is not provided by libhipcxx: use "
                f"`__syncthreads()`/cooperative groups or atomics instead",
            )


@register
class CutlassCute(Rule):
    """CUTLASS or CuTe used: no AMD port exists.

    ## What it finds
    `#include <cutlass/...>` and `#include <cute/...>`, once per include.

    ## Why it breaks on AMD
    CUTLASS and CuTe are built on NVIDIA tensor-core atoms (`mma.sync`, `wgmma`, `ldmatrix`,
    `cp.async`, TMA) written in PTX, with SM80/SM90/SM100-specific layouts. No porting tool
    (HIPIFY, torch hipify, SYCLomatic) translates them, and porter cannot either: the code
    will not compile for AMD.

    ## Example
    ```cpp
    #include <cutlass/gemm/device/gemm.h>
    using Gemm = cutlass::gemm::device::Gemm<float, cutlass::layout::RowMajor, ...>;
    ```

    ## Use instead
    AMD Composable Kernel (CK) for fused GEMM/attention kernels, hipBLASLt for GEMMs with
    epilogues, or rocWMMA for hand-written matrix-core kernels.

    ## References
    - HIPIFY `hipify-perl` and SYCLomatic API listings (no CUTLASS/CuTe coverage)
    - ROCm documentation, optimizing with Composable Kernel
    """

    code = "PT853"
    name = "cutlass-cute"
    needs_tree = False
    severity = Severity.ERROR
    triggers = (b"cutlass/", b"cute/")

    def check(self, ctx):
        for inc, p in _includes(ctx, re.compile(r"^(cutlass|cute)/")):
            lib = "CUTLASS" if p.startswith("cutlass") else "CuTe"
            yield self.finding(
                ctx,
                inc,
                f"`{p}`: {lib} has no AMD port; reimplement the kernel "
                f"with Composable Kernel, hipBLASLt or rocWMMA",
            )
