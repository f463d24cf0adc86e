"""PT305: CUDA header include guards used as feature tests."""

from __future__ import annotations

import re

from ..findings import Applicability, Edit, Severity
from .base import Rule
from .registry import register

# The include guard of each CUDA toolkit header (read in CUDA 13's include/ folder).
CUDA_GUARDS = {
    "__CUDA_RUNTIME_H__": "cuda_runtime.h",
    "__CUDA_RUNTIME_API_H__": "cuda_runtime_api.h",
    "__DRIVER_TYPES_H__": "driver_types.h",
    "__VECTOR_TYPES_H__": "vector_types.h",
    "__DEVICE_TYPES_H__": "device_types.h",
    "__CUDA_FP16_H__": "cuda_fp16.h",
    "__CUDA_BF16_H__": "cuda_bf16.h",
    "__TEXTURE_TYPES_H__": "texture_types.h",
    "__SURFACE_TYPES_H__": "surface_types.h",
    "__CUDA_GL_INTEROP_H__": "cuda_gl_interop.h",
    "__CUDA_PROFILER_API_H__": "cuda_profiler_api.h",
    "__VECTOR_FUNCTIONS_H__": "vector_functions.h",
    "__LIBRARY_TYPES_H__": "library_types.h",
    "__cuda_cuda_h__": "cuda.h",
    "CU_COMPLEX_H_": "cuComplex.h",
    "__CHANNEL_DESCRIPTOR_H__": "channel_descriptor.h",
    "__DRIVER_FUNCTIONS_H__": "driver_functions.h",
}
# The include guard of each HIP header those map to (the same in ROCm 6.4 and 7.2).
HIP_GUARDS = {
    "hip/hip_runtime.h": "HIP_INCLUDE_HIP_HIP_RUNTIME_H",
    "hip/hip_runtime_api.h": "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H",
    "hip/driver_types.h": "HIP_INCLUDE_HIP_DRIVER_TYPES_H",
    "hip/hip_vector_types.h": "HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H",
    "hip/hip_fp16.h": "HIP_INCLUDE_HIP_HIP_FP16_H",
    "hip/hip_bf16.h": "HIP_INCLUDE_HIP_HIP_BF16_H",
    "hip/texture_types.h": "HIP_INCLUDE_HIP_TEXTURE_TYPES_H",
    "hip/surface_types.h": "HIP_INCLUDE_HIP_SURFACE_TYPES_H",
    "hip/hip_complex.h": "HIP_INCLUDE_HIP_HIP_COMPLEX_H",
    "hip/library_types.h": "HIP_INCLUDE_HIP_LIBRARY_TYPES_H",
    "hip/hip_profile.h": "HIP_INCLUDE_HIP_HIP_PROFILE_H",
    "hip/channel_descriptor.h": "HIP_INCLUDE_HIP_CHANNEL_DESCRIPTOR_H",
    "hip/hip_gl_interop.h": "HIP_GL_INTEROP_H",
}
_NAMES = re.compile(rb"\b(" + b"|".join(re.escape(g.encode()) for g in CUDA_GUARDS) + rb")\b")
_CONDITION = re.compile(
    rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b[^\n]*", re.MULTILINE
)


@register
class CudaHeaderGuardTest(Rule):
    """CUDA header include guard used as a feature test.

    ## What it finds
    `#ifdef`/`#if defined(...)`/`#ifndef` tests of the include guard of a CUDA header
    (`__CUDA_RUNTIME_H__`, `__DRIVER_TYPES_H__`, `__cuda_cuda_h__`, `__VECTOR_TYPES_H__`, ...),
    which code uses to ask "has the CUDA runtime been included before me?".

    ## Why it breaks on AMD
    HIP's headers never define CUDA's guards, so on AMD the test is false and the code under it
    silently vanishes. NVIDIA's cuda-samples `helper_cuda.h` wraps `checkCudaErrors` and
    `findCudaDevice` in `#ifdef __CUDA_RUNTIME_H__`: the port then fails with "use of undeclared
    identifier 'checkCudaErrors'".

    ## Example
    ```cpp
    #ifdef __CUDA_RUNTIME_H__
    #define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
    #endif
    ```

    ## Use instead
    Test the guard of the HIP header the CUDA header becomes: `cuda_runtime.h` becomes
    `hip/hip_runtime.h`, whose guard is `HIP_INCLUDE_HIP_HIP_RUNTIME_H` (the safe fix renames
    the guard; porter applies it). Where the HIP header's guard is not known, test a macro the
    project defines itself.

    ## Fix safety
    Safe. The fix renames the tested guard to the guard of the HIP header that the port puts in
    place of the CUDA one (`__CUDA_RUNTIME_H__` → `HIP_INCLUDE_HIP_HIP_RUNTIME_H`), so the test
    asks the same question of the ported include: has that header been included? Offered only
    when porter knows the HIP header's guard (read in ROCm 6.4 and 7.2 `include/hip/`); other
    guards are reported without a fix.

    ## References
    - CUDA 13 `include/` (the guard of each header: `cuda_runtime.h` defines
      `__CUDA_RUNTIME_H__`, `cuda.h` defines `__cuda_cuda_h__`, ...)
    - ROCm 6.4 and 7.2 `include/hip/` (`hip_runtime.h` defines
      `HIP_INCLUDE_HIP_HIP_RUNTIME_H`, ...)
    """

    code = "PT305"
    name = "cuda-header-guard-test"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = tuple(g.encode() for g in CUDA_GUARDS)

    def check(self, ctx):
        data = ctx.data
        for line in _CONDITION.finditer(data):
            for m in _NAMES.finditer(data, line.start(), line.end()):
                start, end = m.span()
                if ctx.in_comment_or_string(start, end):
                    continue
                node = ctx.root.descendant_for_byte_range(start, end) if ctx.root else None
                if node is not None and ctx.vendor.at(node).not_for_amd:
                    continue
                guard = m.group(1).decode()
                header = CUDA_GUARDS[guard]
                hip_header = self._hip_header(ctx, header)
                hip_guard = HIP_GUARDS.get(hip_header or "")
                what = (
                    f"`{guard}` is the include guard of CUDA's `{header}`, tested here as a "
                    f"feature test: HIP's headers never define it, so this test is false on "
                    f"AMD and the code it guards vanishes"
                )
                if hip_guard is None:
                    yield self.finding(
                        ctx,
                        (start, end),
                        f"{what}; test a macro the project "
                        f"defines itself (porter knows no HIP guard for it)",
                    )
                    continue
                fix = self.make_fix(
                    [Edit(start, end, hip_guard.encode())], Applicability.SAFE, f"test {hip_guard}"
                )
                yield self.finding(
                    ctx,
                    (start, end),
                    f"{what}; `{header}` becomes `{hip_header}`, whose guard is `{hip_guard}`",
                    fix=fix,
                )

    @staticmethod
    def _hip_header(ctx, header: str) -> str | None:
        if ctx.index is None:
            return None
        found = ctx.index.lookup_header(header, None)
        return found[1] if found is not None and found[1] else None
