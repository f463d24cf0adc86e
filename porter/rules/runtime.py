"""PT80x: runtime, driver, RTC, binaries and language features (hazards.md section I)."""

from __future__ import annotations

from ..analysis.functions import ancestors, enclosing_function, function_head
from ..analysis.lazyre import re
from ..analysis.lex import find_word, is_declaration_name
from ..findings import Applicability, Edit, Severity
from ..parse import cuda as P
from .base import Rule
from .registry import register

_ARCH_OPT = re.compile(
    r"(?:^|\s)(-arch[= ]|--gpu-architecture[= ]|-gencode\s*arch=)"
    r"\s*(?:sm|compute|lto)_\w*"
)
_NV_ONLY_OPT = re.compile(
    r"(?:^|\s)(-default-device|--extensible-whole-program|-ewp|"
    r"--dopt|-dlto|--dlink-time-opt)\b"
)


def _string_content(ctx, lit) -> str:
    return "".join(ctx.text(c) for c in lit.named_children if c.type == "string_content")


@register
class NvrtcOptions(Rule):
    """NVRTC compile options that hipRTC does not understand.

    ## What it finds
    In files that use NVRTC or hipRTC (`nvrtcCompileProgram`, `hiprtcCompileProgram`), string
    literals holding NVIDIA architecture options (`-arch=sm_80`, `--gpu-architecture=compute_90`,
    `-arch=compute_` built up at run time) and NVRTC-only options (`-default-device`,
    `-dlto`, `--extensible-whole-program`).

    ## Why it breaks on AMD
    porter maps the NVRTC API names to hipRTC, but not the option strings. hipRTC compiles to
    AMDGPU code objects, never PTX: the architecture option is
    `--gpu-architecture=gfx942[:sramecc+:xnack-]` (needed when no GPU is present; by default
    the current device's arch is used), and NVIDIA `sm_`/`compute_` names are rejected, so the
    compilation fails at run time. `-default-device` has no hipRTC meaning (device code is the
    default).

    ## Example
    ```cpp
    const char* opts[] = {"--gpu-architecture=compute_80", "-default-device"};
    nvrtcCompileProgram(prog, 2, opts);
    ```

    ## Use instead
    Build the option list per vendor: on AMD pass `--gpu-architecture=` with the device's
    `gcnArchName` (from `hipGetDeviceProperties`) or omit it; drop `-default-device`.

    ## References
    - HIP RTC programming guide (`hip_rtc.md`: options, `hiprtcGetCode`, target-ID syntax)
    - hipify_torch `cuda_to_hip_mappings.py` (`nvrtc.h` -> `hip/hiprtc.h`)
    """

    code = "PT801"
    name = "nvrtc-options"
    severity = Severity.ERROR
    triggers = (b"nvrtc", b"hiprtc")

    def check(self, ctx):
        if not re.search(rb"(nvrtc|hiprtc)(CompileProgram|CreateProgram)", ctx.data):
            return
        for lit in ctx.nodes("string_literal"):
            s = _string_content(ctx, lit)
            if len(s) > 200:
                continue
            m = _ARCH_OPT.search(s) or _NV_ONLY_OPT.search(s)
            if not m:
                continue
            yield self.finding(
                ctx,
                lit,
                f"NVRTC option `{s.strip()}` is not understood by "
                f"hipRTC: pass `--gpu-architecture=<gfx arch>` (or nothing) on AMD "
                f"and drop NVIDIA-only options",
            )


_LOAD_FILE = ("cuModuleLoad", "hipModuleLoad")
_LOAD_EX = ("cuModuleLoadDataEx", "hipModuleLoadDataEx")
_JIT_INPUT = (
    "CU_JIT_INPUT_PTX",
    "CU_JIT_INPUT_CUBIN",
    "CU_JIT_INPUT_FATBINARY",
    "hipJitInputPtx",
    "hipJitInputCubin",
    "hipJitInputFatBinary",
    "HIPRTC_JIT_INPUT_PTX",
    "HIPRTC_JIT_INPUT_CUBIN",
    "HIPRTC_JIT_INPUT_FATBINARY",
)
_NV_BIN = re.compile(r"\.(ptx|cubin|fatbin)\s*$")
_PTX_TEXT = re.compile(r"^\s*(//[^\n]*\n\s*)*\.version\s+\d+\.\d+\s*(\\n|\n)?\s*\.target\s+sm_")


@register
class ModuleBinaryFormat(Rule):
    """Loading PTX, cubin or fatbin modules, or JIT-linking PTX.

    ## What it finds
    `cuModuleLoad("*.ptx|*.cubin|*.fatbin")` (and `hipModuleLoad`), `cuModuleLoadDataEx` with
    JIT options, `cuLinkAddData`/`cuLinkAddFile` with `CU_JIT_INPUT_PTX`/`CUBIN`/`FATBINARY`,
    and string literals holding PTX (`.version N.N` followed by `.target sm_XX`).

    ## Why it breaks on AMD
    AMD GPUs load only AMDGPU code objects (`.hsaco`/`.co`, or hipRTC output); there is no PTX
    JIT, so a `.ptx`/`.cubin` file or an embedded PTX string fails to load at run time.
    `hipModuleLoadDataEx` does not implement the CUDA JIT options, and the hipRTC linker accepts
    only LLVM bitcode inputs, not PTX.

    ## Example
    ```cpp
    cuModuleLoad(&mod, "kernels.ptx");
    ```

    ## Use instead
    Build the kernels with `hipcc --genco --offload-arch=gfx942,...` into a `.co` file and load
    that, or compile the CUDA C++ source at run time with hipRTC.

    ## References
    - HIP driver API porting guide, hipModule API and Compilation Options
    - HIP kernel language reference, Kernel Compilation (`--genco`)
    - HIP RTC programming guide (linker inputs)
    """

    code = "PT802"
    name = "module-binary-format"
    severity = Severity.ERROR
    triggers = (
        b"ModuleLoad",
        b"JIT_INPUT",
        b"JitInput",
        b".version",
        b".ptx",
        b".cubin",
        b".fatbin",
    )

    def check(self, ctx):
        for cl in ctx.calls.named(_LOAD_FILE):
            name, ident, _call, args = cl.name, cl.callee, cl.node, cl.args
            if len(args) >= 2 and args[1].type == "string_literal":
                s = _string_content(ctx, args[1])
                m = _NV_BIN.search(s)
                if m:
                    yield self.finding(
                        ctx,
                        args[1],
                        f'`{name}` of the NVIDIA binary "{s}" '
                        f"cannot load on AMD: build a `.co` code object with "
                        f"`hipcc --genco --offload-arch=...` and load that",
                    )
        for cl in ctx.calls.named(_LOAD_EX):
            name, ident, _call, args = cl.name, cl.callee, cl.node, cl.args
            if len(args) >= 3 and ctx.text(args[2]).strip() not in ("0", "0u", "0U"):
                yield self.finding(
                    ctx,
                    ident,
                    f"`{name}` with JIT options: AMD has no PTX JIT "
                    f"and HIP does not implement these options; load a code "
                    f"object built for the target",
                    severity=Severity.WARNING,
                )
        for ident in ctx.identifiers(_JIT_INPUT, kinds=frozenset({"identifier"})):
            if ident.parent is not None and ident.parent.type == "enumerator":
                continue
            yield self.finding(
                ctx,
                ident,
                f"`{ctx.text(ident)}`: AMD has no PTX/cubin JIT "
                f"linking (the hipRTC linker takes LLVM bitcode): link bitcode "
                f"from hipRTC (`-fgpu-rdc`) or prebuilt code objects instead",
            )
        for lit in ctx.nodes("string_literal", "raw_string_literal", "concatenated_string"):
            if lit.parent is not None and lit.parent.type == "concatenated_string":
                continue
            text = ctx.text(lit)
            if ".version" not in text or ".target" not in text:
                continue
            s = "".join(
                ctx.text(c)
                for c in P.captures("[(string_content) (raw_string_content)] @s", lit).get("s", [])
            )
            if _PTX_TEXT.search(s):
                yield self.finding(
                    ctx,
                    lit,
                    "embedded PTX cannot run on AMD GPUs: embed the "
                    "CUDA C++ source and compile it with hipRTC, or ship a code "
                    "object",
                )


_SYMBOL_ARG = {
    "cudaMemcpyToSymbol": 0,
    "cudaMemcpyToSymbolAsync": 0,
    "cudaMemcpyFromSymbol": 1,
    "cudaMemcpyFromSymbolAsync": 1,
    "cudaGetSymbolAddress": 1,
    "cudaGetSymbolSize": 1,
    "hipMemcpyToSymbol": 0,
    "hipMemcpyToSymbolAsync": 0,
    "hipMemcpyFromSymbol": 1,
    "hipMemcpyFromSymbolAsync": 1,
    "hipGetSymbolAddress": 1,
    "hipGetSymbolSize": 1,
}


@register
class MemcpySymbolByName(Rule):
    """Device symbol named by a string (`cudaMemcpyToSymbol("name", ...)`).

    ## What it finds
    Calls of `cudaMemcpyToSymbol`, `cudaMemcpyFromSymbol` (and `Async`), `cudaGetSymbolAddress`
    and `cudaGetSymbolSize` (and the `hip*` names), whose symbol argument is a string literal,
    also when wrapped in `HIP_SYMBOL(...)`.

    ## Why it breaks on AMD
    Symbols by name were removed in CUDA 5.0 and HIP never had them: HIP's template overload
    takes the address of the string literal itself, which is not a registered device variable,
    and the call fails at run time with `hipErrorInvalidSymbol`. (Bare symbols are fine: ROCm
    7.2 defines `HIP_SYMBOL(X)` as `X` and has the same `const T&` overloads as CUDA; porter
    wraps them anyway for older HIP versions.)

    ## Example
    ```cpp
    cudaMemcpyToSymbol("d_coeffs", h_coeffs, sizeof(h_coeffs));
    ```

    ## Use instead
    Pass the variable itself: `hipMemcpyToSymbol(HIP_SYMBOL(d_coeffs), h_coeffs, ...)`.

    ## References
    - HIP porting guide, memcpyToSymbol
    - ROCm 7.2 `hip/hip_runtime_api.h` (`const T& symbol` overloads) and
      `hip/amd_detail/amd_hip_runtime.h` (`HIP_SYMBOL`)
    - HIPIFY `hipify-perl` `transformHostFunctions`
    """

    code = "PT803"
    name = "memcpy-symbol-by-name"
    severity = Severity.ERROR
    triggers = (b"Symbol",)

    def check(self, ctx):
        for cl in ctx.calls.named(tuple(_SYMBOL_ARG)):
            name, _ident, _call, args = cl.name, cl.callee, cl.node, cl.args
            i = _SYMBOL_ARG[name]
            if len(args) <= i:
                continue
            a = args[i]
            if a.type == "call_expression" and ctx.text(a).startswith("HIP_SYMBOL"):
                inner = a.child_by_field_name("arguments")
                a = inner.named_children[0] if inner is not None and inner.named_children else a
            if a.type in ("string_literal", "concatenated_string"):
                yield self.finding(
                    ctx,
                    a,
                    f"`{name}` with the symbol name {ctx.text(a)} as a "
                    f"string: HIP (like CUDA since 5.0) needs the variable itself; "
                    f"pass the `__device__`/`__constant__` variable",
                )


_FUNC_ARG = {
    "cudaFuncSetAttribute": 0,
    "cudaFuncGetAttributes": 1,
    "cudaLaunchKernel": 0,
    "cudaFuncSetCacheConfig": 0,
    "cudaFuncSetSharedMemConfig": 0,
    "hipFuncSetAttribute": 0,
    "hipFuncGetAttributes": 1,
    "hipLaunchKernel": 0,
    "hipFuncSetCacheConfig": 0,
    "hipFuncSetSharedMemConfig": 0,
}


def _declared_functions(ctx) -> set[str]:
    names = set()
    for fd in ctx.nodes("function_declarator"):
        d = fd.child_by_field_name("declarator")
        if d is None:
            continue
        if d.type == "qualified_identifier":
            n = d.child_by_field_name("name")
            d = n if n is not None else d
        if d.type in ("identifier", "field_identifier"):
            names.add(ctx.text(d))
    return names


@register
class FuncPtrCasts(Rule):
    """Kernel passed to `hipFuncSetAttribute` & co. without a cast to `const void*`.

    ## What it finds
    Calls of `cudaFuncSetAttribute(kernel, ...)`, `cudaFuncGetAttributes(&attr, kernel)`,
    `cudaLaunchKernel(kernel, ...)`, `cudaFuncSetCacheConfig(kernel, ...)`,
    `cudaFuncSetSharedMemConfig(kernel, ...)` (and the `hip*` names) whose kernel argument is a
    function of this file (`kernel`, `&kernel`, `kernel<T, 128>`) rather than a `const void*`.

    ## Why it breaks on AMD
    CUDA declares template overloads taking `T*` for these functions; ROCm 7.2 declares them
    only with a `const void*` parameter, and C++ does not convert a function pointer to
    `const void*` implicitly, so the call does not compile. HIPIFY inserts the cast (since ROCm
    6.2); porter's rename does not.

    ## Example
    ```cpp
    cudaFuncSetAttribute(gemm_kernel<128>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    ```

    ## Use instead
    `hipFuncSetAttribute(reinterpret_cast<const void*>(gemm_kernel<128>), ...)` (the safe fix:
    exactly the conversion CUDA's template overload performs).

    ## Fix safety
    Safe. The fix wraps the kernel argument in `reinterpret_cast<const void*>(...)`, the same
    conversion CUDA's template overloads perform, so HIP's function receives the pointer CUDA's
    did. Offered when the argument names a function of this file, a variable or function pointer
    holding a kernel, or a kernel declared elsewhere; arguments already declared `void*` are not
    reported.

    ## References
    - HIPIFY `CHANGELOG.md` 6.2.0 and `hipify-perl` `transformHostFunctions`
    - ROCm 7.2 `hip/hip_runtime_api.h` (`hipFuncSetAttribute(const void* func, ...)`)
    """

    code = "PT804"
    name = "func-ptr-casts"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = (
        b"FuncSetAttribute",
        b"FuncGetAttributes",
        b"LaunchKernel",
        b"FuncSetCacheConfig",
        b"FuncSetSharedMemConfig",
    )

    def check(self, ctx):
        found = ctx.calls.named(tuple(_FUNC_ARG))
        if not found:
            return
        funcs = _declared_functions(ctx)
        for cl in found:
            name, _ident, _call, args = cl.name, cl.callee, cl.node, cl.args
            i = _FUNC_ARG[name]
            if len(args) <= i or ctx.vendor.at(cl.node).not_for_amd:
                continue  # no kernel argument, or the project's CUDA build (left as written)
            a = args[i]
            target = a
            if a.type == "pointer_expression" and ctx.text(a).startswith("&"):
                target = a.child_by_field_name("argument")
            if target is None:
                continue
            if target.type == "template_function":
                n = target.child_by_field_name("name")
            elif target.type == "qualified_identifier":
                n = target.child_by_field_name("name")
                if n is not None and n.type == "template_function":
                    n = n.child_by_field_name("name")
            else:
                n = target
            if n is None or n.type != "identifier":
                continue
            if ctx.text(n) not in funcs and not _kernel_like(ctx, n):
                continue
            fx = self.make_fix(
                [
                    Edit(a.start_byte, a.start_byte, b"reinterpret_cast<const void*>("),
                    Edit(a.end_byte, a.end_byte, b")"),
                ],
                Applicability.SAFE,
                "cast the kernel to `const void*`",
            )
            yield self.finding(
                ctx,
                a,
                f"`{name}` takes `const void*` in HIP (no template "
                f"overload): pass `reinterpret_cast<const void*>({ctx.text(a)})`",
                fix=fx,
            )


def _kernel_like(ctx, ident) -> bool:
    """A name that is not a function defined here but still holds a kernel: a variable (`auto k =
    kernel<T>;`, a function pointer) or a kernel declared in another file. Object pointers
    declared `void*` need no cast and are left alone; a cast to `const void*` is valid for every
    other case, so the fix stays safe."""
    name = ctx.text(ident)
    if name in ("nullptr", "NULL", "0"):
        return False
    for node in ctx.identifiers([name]):
        if not is_declaration_name(node):
            continue
        decl = node.parent
        function_pointer = False
        while decl is not None and decl.type not in (
            "declaration",
            "parameter_declaration",
            "field_declaration",
            "function_definition",
        ):
            function_pointer = function_pointer or decl.type == "function_declarator"
            decl = decl.parent
        if function_pointer:
            return True
        if decl is None:
            continue
        if decl.type == "function_definition":
            return True
        t = decl.child_by_field_name("type")
        text = ctx.text(decl)
        if t is not None and ctx.text(t).strip() in ("void", "const void") and "*" in text:
            return False  # already a void pointer
        return True
    return True  # declared elsewhere: a kernel from another translation unit


@register
class ConstantInTemplate(Rule):
    """`__constant__` variable declared inside a template.

    ## What it finds
    `__constant__` variables that are variable templates (`template <class T> __constant__ T
    c[16];`) or static members of class templates.

    ## Why it breaks on AMD
    The HIP kernel-language reference states that `__constant__` variables in templates "can
    lead to undefined behavior" (HIP issue #3201): each instantiation needs its own device
    symbol, and host-side `hipMemcpyToSymbol` may not reach the one the kernel reads.

    ## Example
    ```cpp
    template <typename T> struct Filter { static __constant__ T taps[32]; };
    ```

    ## Use instead
    Declare the `__constant__` arrays at namespace scope (one per type needed), or pass the
    data as a kernel argument (up to 4 KiB) or through a global-memory pointer.

    ## References
    - HIP kernel language reference, `__constant__`
    - HIP issue #3201
    """

    code = "PT805"
    name = "constant-in-template"
    severity = Severity.WARNING
    triggers = (b"__constant__",)

    def check(self, ctx):
        if b"template" not in ctx.data:
            return
        for q in ctx.nodes("type_qualifier", "storage_class_specifier"):
            if ctx.text(q) != "__constant__":
                continue
            decl = q.parent
            for a in ancestors(q):
                if a.type in ("function_definition", "compound_statement"):
                    break
                if a.type == "template_declaration":
                    names = [
                        ctx.text(n)
                        for n in P.captures("[(identifier) (field_identifier)] @n", decl).get(
                            "n", []
                        )[:1]
                    ]
                    what = f"`{names[0]}`" if names else "this variable"
                    yield self.finding(
                        ctx,
                        decl,
                        f"`__constant__` {what} is declared inside a "
                        f"template, which HIP documents as undefined behaviour: "
                        f"move it to namespace scope",
                    )
                    break


@register
class PerThreadDefaultStream(Rule):
    """`CUDA_API_PER_THREAD_DEFAULT_STREAM` defined in source.

    ## What it finds
    `#define CUDA_API_PER_THREAD_DEFAULT_STREAM` (the in-source way to get nvcc's
    `--default-stream per-thread`).

    ## Why it breaks on AMD
    HIP ignores the CUDA macro: the default (null) stream stays the legacy one, which
    synchronises with every other blocking stream, so work that overlapped on NVIDIA is
    serialised (and code relying on per-thread ordering changes behaviour). HIP's equivalents
    are the `HIP_API_PER_THREAD_DEFAULT_STREAM` macro (defined before including HIP headers) or
    `-fgpu-default-stream=per-thread` for every translation unit.

    ## Example
    ```cpp
    #define CUDA_API_PER_THREAD_DEFAULT_STREAM
    #include <cuda_runtime.h>
    ```

    ## Use instead
    `#define HIP_API_PER_THREAD_DEFAULT_STREAM` (the safe fix renames the macro), or the
    compiler flag `-fgpu-default-stream=per-thread`; explicit `hipStreamPerThread` handles work
    without either.

    ## Fix safety
    Safe. The fix renames the defined macro to `HIP_API_PER_THREAD_DEFAULT_STREAM`, which asks
    HIP for the per-thread default stream as the CUDA macro asked nvcc, so the port keeps the
    stream semantics the original chose. The definition stays where it was; like the CUDA macro,
    it takes effect only before the first HIP header is included.

    ## References
    - HIP FAQ and programming manual (per-thread default stream)
    - ROCm 7.2 `hip/amd_detail/amd_hip_runtime_pt_api.h` (`HIP_API_PER_THREAD_DEFAULT_STREAM`)
    """

    code = "PT806"
    name = "per-thread-default-stream"
    severity = Severity.WARNING
    fix = Applicability.SAFE
    triggers = (b"CUDA_API_PER_THREAD_DEFAULT_STREAM",)

    def check(self, ctx):
        for d in ctx.nodes("preproc_def"):
            n = d.child_by_field_name("name")
            if n is None or ctx.text(n) != "CUDA_API_PER_THREAD_DEFAULT_STREAM":
                continue
            fx = self.make_fix(
                [Edit(n.start_byte, n.end_byte, b"HIP_API_PER_THREAD_DEFAULT_STREAM")],
                Applicability.SAFE,
                "use HIP's per-thread default stream macro",
            )
            yield self.finding(
                ctx,
                n,
                "HIP ignores `CUDA_API_PER_THREAD_DEFAULT_STREAM`: define "
                "`HIP_API_PER_THREAD_DEFAULT_STREAM` (or compile with "
                "`-fgpu-default-stream=per-thread`)",
                fix=fx,
            )


_CTX = (
    "cuCtxCreate",
    "cuCtxCreate_v2",
    "cuCtxPushCurrent",
    "cuCtxPopCurrent",
    "cuCtxSetCurrent",
    "cuCtxDestroy",
    "cuDevicePrimaryCtxRetain",
    "hipCtxCreate",
    "hipCtxPushCurrent",
    "hipCtxPopCurrent",
    "hipCtxSetCurrent",
    "hipCtxDestroy",
    "hipDevicePrimaryCtxRetain",
)
_RUNTIME = (
    "cudaMalloc",
    "cudaMemcpy",
    "cudaMemcpyAsync",
    "cudaFree",
    "cudaStreamCreate",
    "cudaDeviceSynchronize",
    "cudaSetDevice",
    "cudaLaunchKernel",
    "cudaMallocManaged",
    "hipMalloc",
    "hipMemcpy",
    "hipMemcpyAsync",
    "hipFree",
    "hipStreamCreate",
    "hipDeviceSynchronize",
    "hipSetDevice",
    "hipLaunchKernel",
    "hipMallocManaged",
)


@register
class DriverContextMixing(Rule):
    """Driver context API mixed with the runtime API.

    ## What it finds
    Files that call the driver context API (`cuCtxCreate`, `cuCtxPushCurrent`,
    `cuCtxPopCurrent`, `cuCtxSetCurrent`, `cuDevicePrimaryCtxRetain`, or the `hipCtx*` names)
    and also runtime API calls (`cudaMalloc`, `cudaMemcpy`, `cudaSetDevice`, kernel launches).
    Reported once per file, at the first context call.

    ## Why it breaks on AMD
    HIP-Clang pushes the device's primary context whenever the context stack is empty, and the
    `hipCtx*` API is deprecated. Code that creates its own contexts and then uses runtime calls
    can end up operating on a different context than on NVIDIA (allocations and modules not
    visible where expected).

    ## Example
    ```cpp
    cuCtxCreate(&ctx, 0, dev);
    cudaMalloc(&p, bytes);
    ```

    ## Use instead
    Use the runtime API (`hipSetDevice`) for device selection and drop explicit contexts.

    ## References
    - HIP driver API porting guide, Additional Information (context stack behaviour)
    """

    code = "PT807"
    name = "driver-context-mixing"
    severity = Severity.INFO
    triggers = (
        b"CtxCreate",
        b"CtxPushCurrent",
        b"CtxPopCurrent",
        b"CtxSetCurrent",
        b"PrimaryCtxRetain",
    )

    def check(self, ctx):
        ctxs = ctx.calls.named(_CTX)
        if not ctxs:
            return
        if not ctx.calls.named(_RUNTIME) and not ctx.nodes("kernel_call_syntax"):
            return
        name, ident = ctxs[0].name, ctxs[0].callee
        yield self.finding(
            ctx,
            ident,
            f"`{name}` mixes explicit driver contexts with runtime "
            f"API calls in this file; HIP pushes the primary context on an empty "
            f"stack, so prefer the runtime API (hipSetDevice) throughout",
        )


_CSTRING_FUNCS = (
    "memset",
    "memcpy",
    "memmove",
    "memcmp",
    "memchr",
    "strlen",
    "strcpy",
    "strncpy",
    "strcmp",
    "strncmp",
    "strcat",
    "strchr",
    "strstr",
)
_CSTRING_FUNC_BYTES = frozenset(f.encode() for f in _CSTRING_FUNCS)
_CSTRING_HEADERS = ("cstring", "string.h")


@register
class HostStringFunctions(Rule):
    """Host `memset`/`memcpy`/`strlen` without `<cstring>`.

    ## What it finds
    Calls of the C string functions (`memset`, `memcpy`, `memmove`, `memcmp`, `strlen`,
    `strcpy`, ...) in host code of a file that includes neither `<cstring>` nor `<string.h>`.
    Device functions (`__global__`/`__device__` only) are not reported: HIP declares device
    versions of `memset` and `memcpy`.

    ## Why it breaks on AMD
    nvcc's `cuda_runtime.h` pulls in `<string.h>`, so CUDA code often calls `memset` without
    including it. ROCm 7.2's `hip/hip_runtime.h` does not; the only `memset` in scope is HIP's
    `__device__` overload, and the host call fails to compile with "no matching function for
    call to 'memset'" (checked with clang-22 against ROCm 7.2; ROCm 6.4's headers still include
    it).

    ## Example
    ```cpp
    #include <cuda_runtime.h>
    cudaResourceDesc res;
    memset(&res, 0, sizeof(res));
    ```

    ## Use instead
    Include `<cstring>` (the safe fix adds it before the file's first `#include`).

    ## Fix safety
    Safe. The fix adds `#include <cstring>` before the file's first `#include` (at the top of a
    file without one). It declares the functions the file already calls, which NVIDIA's
    `cuda_runtime.h` brought in through `<string.h>`, and changes no other meaning. One include
    per file; files that include `<cstring>` or `<string.h>` are not reported.

    ## References
    - ROCm 7.2 `hip/hip_runtime.h` and `hip/amd_detail/amd_device_functions.h` (device-only
      `memset`/`memcpy`)
    - CUDA 13 `cuda_runtime.h` (includes `<string.h>` through `crt/host_config.h` /
      `crt/common_functions.h`)
    """

    code = "PT808"
    name = "host-string-functions-need-cstring"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = tuple(f.encode() for f in _CSTRING_FUNCS)

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on a call of one of the functions, whose name is then a whole
        identifier (the triggers also fire inside `__builtin_memcpy` or `cudaMemset`)."""
        return not _CSTRING_FUNC_BYTES.isdisjoint(idents)

    def check(self, ctx):
        includes = [(i.start, i.end, i.path) for i in ctx.includes]
        if any(p in _CSTRING_HEADERS for _, _, p in includes):
            return
        # a .cu/.cuh file has cuda_runtime.h without including it (nvcc) and gets hip_runtime.h
        # from porter when it uses the runtime: the decision must not wait for porter's include
        if (
            not any(p.startswith(("cuda", "hip/")) or p == "cuda.h" for _, _, p in includes)
            and not ctx.src.path.lower().endswith((".cu", ".cuh"))
            and b"__global__" not in ctx.data
            and b"__device__" not in ctx.data
        ):
            return  # plain C++ host code: its own includes are its business
        for cl in ctx.calls.named(_CSTRING_FUNCS):
            name, ident, call, _args = cl.name, cl.callee, cl.node, cl.args
            fn = enclosing_function(call, lambdas=True)
            if fn is not None:
                head = function_head(ctx, fn)
                if ("__global__" in head or "__device__" in head) and "__host__" not in head:
                    continue
            pos = includes[0][0] if includes else 0
            fx = self.make_fix(
                [Edit(pos, pos, b"#include <cstring>\n")], Applicability.SAFE, "include <cstring>"
            )
            # a project header may bring <cstring> in: then this is only a precaution
            local = any(ctx.data[s:e].rstrip().endswith(b'"') for s, e, _ in includes)
            yield self.finding(
                ctx,
                ident,
                f"host `{name}` with no `<cstring>`: ROCm 7.2's "
                f"hip/hip_runtime.h does not provide it (cuda_runtime.h did), so "
                f"only HIP's device overload is visible; include <cstring>"
                + (" (unless one of the project's headers already does)" if local else ""),
                fix=fx,
                severity=Severity.WARNING if local else None,
            )
            return  # one finding (and one include) per file


@register
class CallbackCallingConvention(Rule):
    """`CUDART_CB` / `CUDA_CB` calling-convention macro on a host callback.

    ## What it finds
    The `CUDART_CB` (runtime) and `CUDA_CB` (driver) macros that CUDA code puts between the
    return type and the name of stream and host-function callbacks.

    ## Why it breaks on AMD
    HIP defines no such macro, so the ported declaration does not parse ("variable has
    incomplete type 'void'"). The macro only carries a calling convention: it is empty on Linux
    and `__stdcall` on Windows, where HIP's callback types have no calling convention either.

    ## Example
    ```cpp
    void CUDART_CB on_done(cudaStream_t s, cudaError_t e, void* user);
    ```

    ## Use instead
    Drop the macro (the safe fix does): `void on_done(hipStream_t s, hipError_t e, void* user);`

    ## Fix safety
    Safe. The fix deletes `CUDART_CB`/`CUDA_CB` (and the blanks after it) from the declaration.
    The macro carries only a calling convention, empty on Linux, and HIP's callback types
    (`hipStreamCallback_t`, `hipHostFn_t`) declare none, so the function then matches the type
    it is passed as. Not offered on preprocessor lines (`#define CUDART_CB`,
    `#ifndef CUDART_CB`), in comments or in strings.

    ## References
    - CUDA 13 `cuda_runtime_api.h` / `cuda.h` (`#define CUDART_CB` / `CUDA_CB`)
    - ROCm 7.2 `hip_runtime_api.h`: `hipStreamCallback_t`, `hipHostFn_t` (no calling convention)
    """

    code = "PT809"
    name = "callback-calling-convention"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = (b"CUDART_CB", b"CUDA_CB")

    def check(self, ctx):
        data = ctx.data
        for word in (b"CUDART_CB", b"CUDA_CB"):
            for pos in find_word(data, word):
                if ctx.in_comment_or_string(pos, pos + len(word)):
                    continue
                line_start = data.rfind(b"\n", 0, pos) + 1
                if data[line_start:pos].lstrip().startswith(b"#"):
                    continue  # #define CUDART_CB / #ifndef CUDART_CB
                end = pos + len(word)
                while end < len(data) and data[end : end + 1] in (b" ", b"\t"):
                    end += 1
                fx = self.make_fix(
                    [Edit(pos, end, b"")], Applicability.SAFE, f"drop {word.decode()}"
                )
                yield self.finding(
                    ctx,
                    (pos, pos + len(word)),
                    f"`{word.decode()}` does not exist in HIP and is only a calling "
                    f"convention (empty on Linux): drop it",
                    fix=fx,
                )


@register
class GridConstant(Rule):
    """`__grid_constant__` kernel parameter qualifier.

    ## What it finds
    `__grid_constant__` on `const` kernel parameters (CUDA 11.7+).

    ## Why it breaks on AMD
    HIP does not define the qualifier: the kernel signature does not parse ("unknown type name
    '__grid_constant__'"). It only lets CUDA skip copying a large `const` parameter when its
    address is taken; AMD kernel arguments already live in the read-only kernarg segment, and a
    `const` parameter stays read-only without it.

    ## Example
    ```cpp
    __global__ void k(const __grid_constant__ CUtensorMap map) { ... }
    ```

    ## Use instead
    Drop the qualifier (the safe fix does): `__global__ void k(const Params p)`.

    ## Fix safety
    Safe. The fix deletes `__grid_constant__` (and the blanks after it) from the parameter. The
    qualifier only lets CUDA skip a copy of a `const` parameter whose address is taken; the
    parameter stays `const`, and AMD kernel arguments already live in the read-only kernarg
    segment, so the kernel reads the same values. Not offered on preprocessor lines, in comments
    or in strings.

    ## References
    - CUDA C++ Programming Guide, `__grid_constant__`
    - ROCm 7.2 `hip/amd_detail/host_defines.h` (no such attribute)
    """

    code = "PT810"
    name = "grid-constant-parameter"
    severity = Severity.ERROR
    fix = Applicability.SAFE
    triggers = (b"__grid_constant__",)

    def check(self, ctx):
        data = ctx.data
        word = b"__grid_constant__"
        for pos in find_word(data, word):
            if ctx.in_comment_or_string(pos, pos + len(word)):
                continue
            line_start = data.rfind(b"\n", 0, pos) + 1
            if data[line_start:pos].lstrip().startswith(b"#"):
                continue
            end = pos + len(word)
            while end < len(data) and data[end : end + 1] in (b" ", b"\t"):
                end += 1
            fx = self.make_fix([Edit(pos, end, b"")], Applicability.SAFE, "drop __grid_constant__")
            yield self.finding(
                ctx,
                (pos, pos + len(word)),
                "`__grid_constant__` does not exist in HIP; AMD kernel arguments "
                "are "
                "already read-only kernarg memory: drop it",
                fix=fx,
            )


_DEVPTR_TYPES = ("CUdeviceptr", "CUdeviceptr_v2", "hipDeviceptr_t")


@register
class DevicePointerArithmetic(Rule):
    """Integer arithmetic on a `CUdeviceptr`.

    ## What it finds
    `+`, `-`, `+=`, `-=`, `%`, `&`, `|` and `/` applied to variables declared `CUdeviceptr`
    (or already `hipDeviceptr_t`), and casts of them to integer types.

    ## Why it breaks on AMD
    In the CUDA driver API `CUdeviceptr` is an unsigned integer (`unsigned long long`), so
    `base + offset` is integer arithmetic. HIP's `hipDeviceptr_t` is `void*`: the ported
    `base + offset` does not compile ("arithmetic on a pointer to void"), and `(size_t)ptr`
    style masks and alignment tests need pointer casts.

    ## Example
    ```cpp
    CUdeviceptr base;
    cuMemAddressReserve(&base, size, 0, 0, 0);
    cuMemMap(base + mapped, chunk, 0, handle, 0);
    ```

    ## Use instead
    Do the arithmetic on a byte pointer: `(hipDeviceptr_t)((char*)base + mapped)`, or keep an
    integer copy (`uintptr_t b = (uintptr_t)base;`) for masks and alignment.

    ## References
    - CUDA 13 `cuda.h` (`typedef unsigned long long CUdeviceptr_v2`)
    - ROCm 7.2 `hip/hip_runtime_api.h` (`typedef void* hipDeviceptr_t`)
    """

    code = "PT811"
    name = "device-pointer-arithmetic"
    severity = Severity.ERROR
    fix = Applicability.NONE
    triggers = (b"CUdeviceptr", b"hipDeviceptr_t")

    _ARITH = frozenset(
        {"+", "-", "%", "&", "|", "/", "*", "+=", "-=", "%=", "&=", "|=", ">>", "<<"}
    )

    def check(self, ctx):
        names = set()
        for d in ctx.nodes("declaration", "parameter_declaration", "field_declaration"):
            t = d.child_by_field_name("type")
            if t is None or ctx.text(t).strip() not in _DEVPTR_TYPES:
                continue
            for dd in d.children_by_field_name("declarator"):
                x = dd
                while x is not None and x.type in ("init_declarator", "array_declarator"):
                    x = x.child_by_field_name("declarator")
                if x is not None and x.type in ("identifier", "field_identifier"):
                    names.add(ctx.text(x))
        if not names:
            return
        for b in ctx.nodes("binary_expression", "assignment_expression"):
            op = b.child_by_field_name("operator")
            if op is None or op.type not in self._ARITH:
                continue
            for side in ("left", "right"):
                n = b.child_by_field_name(side)
                while (
                    n is not None and n.type == "parenthesized_expression" and n.named_child_count
                ):
                    n = n.named_children[0]
                if n is None:
                    continue
                name = ctx.text(n) if n.type in ("identifier", "field_expression") else None
                if name is None:
                    continue
                if n.type == "field_expression":
                    f = n.child_by_field_name("field")
                    name = ctx.text(f) if f is not None else None
                if name in names:
                    yield self.finding(
                        ctx,
                        b,
                        f"`{ctx.text(b)}` does integer arithmetic on the device pointer "
                        f"`{name}`: `CUdeviceptr` is an integer, HIP's `hipDeviceptr_t` is "
                        "`void*`; "
                        f"compute on `(char*){name}` (or a `uintptr_t` copy) instead",
                    )
                    break
