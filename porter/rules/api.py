"""PT0xx: API mapping. These findings come from the rewriter (porter/rewrite/cuda.py) and the
engine; the classes here carry their documentation and metadata."""

from __future__ import annotations

from ..findings import Severity
from .base import Rule
from .registry import register


@register
class UnconvertedIdentifier(Rule):
    """CUDA-looking identifier that porter cannot convert.

    ## What it finds
    Identifiers that look like CUDA API names (`cudaX`, `cuX`, `CU_X`, `CUDA_X`, `cublasX`,
    `__nv_x`, ...) or CUDA-looking include paths that are neither in porter's mapping tables nor
    declared by the project itself.
    Also, from porter's completeness check (`porter/rewrite/invariant.py`, run on every port):
    any CUDA name or CUDA include left in the output that nothing else reported, declared or
    explained; such a finding names a porter fault, and its message says so.

    ## Why it breaks on AMD
    HIP has no symbol of that name: the ported code will not compile, or a project macro that
    wraps the name will expand to a CUDA call. Silently passing such names through is how other
    converters produce trees that fail to build far from the cause.

    ## Example
    ```cpp
    cudaSomeNewApi(stream);   // not in the tables
    ```

    ## Use instead
    Look the API up in the HIP documentation; if HIP has it, add a row to the right table in
    `mappings/` (with its source); otherwise guard the call or write an AMD path.

    ## References
    - HIP runtime API reference (ROCm documentation)
    - `mappings/README.md` in this repository
    """

    code = "PT001"
    name = "unconverted-cuda-identifier"
    severity = Severity.WARNING
    emitted_by_engine = True


@register
class UnsupportedApi(Rule):
    """CUDA API with no HIP equivalent (or none in the target ROCm version).

    ## What it finds
    References to CUDA functions, types, enum values, macros or headers that the mapping tables
    mark `unsupported`, or whose HIP equivalent needs a newer ROCm than `--rocm-version`, and
    calls that need an argument rewrite porter cannot do at that position (inside a macro body,
    through a function pointer).

    ## Why it breaks on AMD
    The name does not exist in HIP (for that ROCm version), so the ported file does not compile.

    ## Example
    ```cpp
    cudaGraphInstantiateWithParams(&exec, graph, &params);   // unsupported in HIP
    ```

    ## Use instead
    The finding's message carries the table's note, which names the closest HIP equivalent where
    one exists. Raise `--rocm-version` if the name is only newer.

    ## References
    - HIPIFY's per-area support tables (supported/unsupported flags per side)
    - the `notes` and `source` columns of porter's `mappings/*.csv`
    """

    code = "PT002"
    name = "unsupported-cuda-api"
    severity = Severity.ERROR
    emitted_by_engine = True


@register
class SyntaxErrorRegion(Rule):
    """Region that tree-sitter could not parse.

    ## What it finds
    ERROR and MISSING nodes of the tree-sitter-cuda parse: code the grammar does not understand
    (unbalanced preprocessor branches, unusual attribute macros, genuine syntax errors), once per
    file, naming the first regions.

    Reported only for files porter parses to port them. A file is ported without a parse
    when every decision about it comes from its bytes, as the preprocessor lexes them (which
    includes are directives, which names are in comments or literals): its `#include` lines,
    qualified library names (`thrust::cuda::par`), device code (`__device__`, `threadIdx`),
    and API names that are plain references by their neighbouring tokens (`cudaFree(p)`,
    `return cudaSuccess;`, `cudaStream_t s`; not a declared name, a member, `struct X`, an
    `#undef`, or a name whose row rewrites the call around it). Such a file gets no PT003,
    unless its code brackets do not pair up (a likely syntax error, which the parse then
    reports), it launches a kernel (`<<<`) or it defines a namespace alias; nor does a file with
    no CUDA text at all.

    ## Why it breaks on AMD
    It does not break by itself; but inside such a region porter only rewrites whole identifiers
    that are surely code (not in comments or strings) and cannot run tree-based rules, so review
    the region by hand.

    ## Example
    ```cpp
    __global__ void k(int n { }   // missing ')'
    ```

    ## Use instead
    Fix the syntax, or check the region by hand after porting.

    ## References
    - tree-sitter error recovery (tree-sitter documentation)
    """

    code = "PT003"
    name = "syntax-error-region"
    severity = Severity.WARNING
    emitted_by_engine = True


@register
class DeprecatedHipApi(Rule):
    """CUDA API mapped to a HIP name that HIP deprecates.

    ## What it finds
    References rewritten to a HIP name whose table row is marked `deprecated`.

    ## Why it breaks on AMD
    The code compiles today, but the HIP name may disappear in a later ROCm release.

    ## Example
    ```cpp
    cudaThreadSynchronize();   // becomes hipDeviceSynchronize-era deprecated API
    ```

    ## Use instead
    Move to the replacement named in `porter mappings NAME`.

    ## References
    - HIP deprecated API list (ROCm documentation, `hip/hip_deprecated.h`)
    """

    code = "PT004"
    name = "deprecated-hip-api"
    severity = Severity.INFO
    emitted_by_engine = True


@register
class UnusedSuppression(Rule):
    """`porter: ignore[...]` comment that suppresses nothing.

    ## What it finds
    Inline suppressions (`// porter: ignore[PT101]`) on a line, or the line above one, where no
    finding of the named codes was reported.

    ## Why it breaks on AMD
    It does not; a stale suppression hides the next real finding on that line.

    ## Example
    ```cpp
    int lane = threadIdx.x % warpSize;  // porter: ignore[PT105]
    ```

    ## Use instead
    Remove the comment, or name the code that is actually reported.

    ## References
    - Ruff's `unused-noqa` (RUF100), the model for this check
    """

    code = "PT005"
    name = "unused-suppression"
    severity = Severity.INFO
    emitted_by_engine = True


@register
class CudaApiInPortedCode(Rule):
    """A change adds a CUDA API reference to code that is ported to HIP (`porter review`).

    ## What it finds
    In `porter review`, CUDA API names and CUDA headers on the lines a change adds, in a file
    whose other lines are ported already (it names HIP, and porting it would change only the
    added lines). `porter check` does not report these names: on CUDA sources they are what the
    port converts.

    ## Why it breaks on AMD
    ROCm has no `cudaMalloc` or `<cuda_runtime.h>`: a HIP-only build of the file fails, and a
    project that keeps its port committed has just reintroduced CUDA into it.

    ## Example
    ```cpp
    hipMalloc(&a, n);
    cudaMalloc(&b, n);   // added by the pull request
    ```

    ## Use instead
    The HIP name the message gives (`hipMalloc`), or run `porter port --in-place` on the file.

    ## References
    - the mapping tables in `mappings/` (the HIP name and its source)
    """

    code = "PT006"
    name = "cuda-api-in-ported-code"
    severity = Severity.ERROR
    emitted_by_engine = True
