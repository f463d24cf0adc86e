"""PT5xx: memory model, coherence, atomics, unified memory."""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.calls import call_name
from ..analysis.functions import enclosing_function, function_qualifiers
from ..analysis.lazyre import re
from ..analysis.tree import walk
from ..findings import Applicability, Edit, Severity
from .base import Rule, RuleContext
from .registry import register


def _ancestors_to(node, stop):
    node = node.parent
    while node is not None and node != stop:
        yield node
        node = node.parent


def _guarded_by_name(ctx: RuleContext, names) -> bool:
    return bool(ctx.identifiers(names))


def _device_fn(ctx: RuleContext, node) -> bool:
    fn = enclosing_function(node, lambdas=False)
    return fn is not None and bool({"__global__", "__device__"} & function_qualifiers(ctx, fn))


# -- PT501 ------------------------------------------------------------------------------------
_MANAGED_ALLOC = ("cudaMallocManaged", "hipMallocManaged", "cuMemAllocManaged")
_MANAGED_HINTS = (
    "cudaMemAdvise",
    "hipMemAdvise",
    "cudaMemAdvise_v2",
    "hipMemAdvise_v2",
    "cudaMemPrefetchAsync",
    "hipMemPrefetchAsync",
    "cudaMemPrefetchAsync_v2",
    "hipMemPrefetchAsync_v2",
    "cuMemAdvise",
    "cuMemPrefetchAsync",
)
_XNACK_CHECKS = (
    "cudaDevAttrConcurrentManagedAccess",
    "hipDeviceAttributeConcurrentManagedAccess",
    "cudaDevAttrPageableMemoryAccess",
    "hipDeviceAttributePageableMemoryAccess",
    "cudaDevAttrManagedMemory",
    "hipDeviceAttributeManagedMemory",
    "CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS",
    "CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY",
    "CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS",
    "concurrentManagedAccess",
    "managedMemory",
    "pageableMemoryAccess",
)


@register
class ManagedMemoryXnack(Rule):
    """Managed (unified) memory, which migrates pages on AMD only with XNACK.

    ## What it finds
    `cudaMallocManaged` / `hipMallocManaged` / `cuMemAllocManaged` calls and `__managed__`
    variables, and (once per file, when no allocation is seen) `cudaMemAdvise` /
    `cudaMemPrefetchAsync`, in files that never check the device's managed-memory capability
    (`hipDeviceAttributeManagedMemory`, `...ConcurrentManagedAccess`,
    `...PageableMemoryAccess` or the `hipDeviceProp_t` fields of those names).

    ## Why it breaks on AMD
    Page migration needs XNACK: `HSA_XNACK=1` at run time and an xnack-capable build
    (`--offload-arch=gfx90a:xnack+`). Without it managed memory degrades to host-resident
    memory that kernels read over the interconnect: one measurement on MI100 gave 31.5 GB/s
    instead of 1228.8 GB/s from HBM. Managed memory is Linux-only. MI300A (an APU sharing HBM)
    changes the trade-offs.

    ## Example
    ```cpp
    float* x;
    cudaMallocManaged(&x, n * sizeof(float));
    saxpy<<<blocks, 256>>>(x, n);
    ```

    ## Use instead
    Explicit `hipMalloc` plus copies; or keep managed memory, check
    `hipDeviceAttributeManagedMemory` / `hipDeviceAttributeConcurrentManagedAccess` at start-up
    and document `HSA_XNACK=1` and the `xnack+` build.

    ## References
    - HIP programming manual, managed memory allocation
    - HIP unified memory documentation (XNACK, `HSA_XNACK=1`)
    - UoB-HPC utpx README (MI100 bandwidth figures)
    """

    code = "PT501"
    name = "managed-memory-xnack"
    severity = Severity.WARNING
    triggers = (
        b"MallocManaged",
        b"__managed__",
        b"MemAllocManaged",
        b"MemAdvise",
        b"MemPrefetchAsync",
    )

    def check(self, ctx: RuleContext) -> Iterator:
        if _guarded_by_name(ctx, _XNACK_CHECKS) or b'"HSA_XNACK"' in ctx.data:
            return
        targets = tuple(t.arch for t in ctx.options.targets)
        tail = (
            "on AMD, managed memory migrates to the GPU only with XNACK (HSA_XNACK=1 and an "
            "xnack+ build), otherwise kernels access it in host memory over the interconnect; "
            "use hipMalloc and copies, or check hipDeviceAttributeManagedMemory / "
            "ConcurrentManagedAccess and document HSA_XNACK=1"
        )
        seen = False
        for cl in ctx.calls.named(_MANAGED_ALLOC, forwarding=False):
            name, call, _args = cl.name, cl.node, cl.args
            if ctx.vendor.at(call).not_for_amd:
                continue
            seen = True
            yield self.finding(
                ctx,
                call.child_by_field_name("function"),
                f"`{name}` allocates managed memory: {tail}",
                targets=targets,
            )
        for q in ctx.nodes("type_qualifier"):
            if ctx.text(q) != "__managed__" or ctx.vendor.at(q).not_for_amd:
                continue
            decl = q.parent
            names = [
                ctx.text(n)
                for d in (decl.children_by_field_name("declarator") if decl else [])
                for n in walk(d)
                if n.type == "identifier"
            ][:1]
            seen = True
            yield self.finding(
                ctx,
                q,
                f"`__managed__` variable `{names[0] if names else '?'}`: {tail}",
                targets=targets,
            )
        if seen:
            return
        hints = [
            (cl.name, cl.node)
            for cl in ctx.calls.named(_MANAGED_HINTS, forwarding=False)
            if not ctx.vendor.at(cl.node).not_for_amd
        ]
        if hints:
            name, call = hints[0]
            more = f" (and {len(hints) - 1} more hint calls)" if len(hints) > 1 else ""
            yield self.finding(
                ctx,
                call.child_by_field_name("function"),
                f"`{name}` tunes managed memory{more}: {tail}",
                targets=targets,
            )


# -- PT502 ------------------------------------------------------------------------------------
_SYSTEM_ATOMIC = re.compile(r"atomic(?:Add|Sub|Exch|Min|Max|Inc|Dec|CAS|And|Or|Xor)_system")
_PINNED = (
    "cudaMallocHost",
    "hipMallocHost",
    "hipHostMalloc",
    "cudaHostAlloc",
    "hipHostAlloc",
    "cudaHostRegister",
    "hipHostRegister",
    "cuMemHostAlloc",
    "cuMemAllocHost",
    "cuMemHostRegister",
)
_PINNED_BYTES = frozenset(n.encode() for n in _PINNED)
_SYSTEM_ATOMIC_BYTES = re.compile(_SYSTEM_ATOMIC.pattern.encode())


@register
class HostCoherence(Rule):
    """Device code that synchronises with the host through host memory.

    ## What it finds
    System-scope atomics (`atomicAdd_system`, `atomicCAS_system`, ...,
    `cuda::thread_scope_system`), and pinned host allocations made without a mapped or coherent
    flag (`cudaMallocHost(&p, n)`, `cudaHostAlloc(&p, n, cudaHostAllocDefault)`,
    `hipHostMallocNonCoherent`, `cudaHostRegister(..., cudaHostRegisterDefault)`) in a file
    whose device code uses `volatile` memory or system-scope atomics (the polling idiom).

    ## Why it breaks on AMD
    Only coherent (fine-grained) host memory supports synchronisation while a kernel runs.
    Non-coherent allocations (`hipHostMallocNonCoherent`, or default flags with
    `HIP_HOST_COHERENT=0`) become visible only at kernel or copy boundaries, so a flag polled
    by the device or the host never changes and the program hangs. `hipEventSynchronize` uses a
    device-scope release by default.

    ## Example
    ```cpp
    cudaMallocHost(&flag, sizeof(int));          // polled by the kernel below
    __global__ void wait(volatile int* flag) { while (*flag == 0) {} }
    ```

    ## Use instead
    Allocate with `hipHostMallocCoherent` or `hipHostMallocMapped` (`cudaHostAllocMapped`), and
    use `hipEventReleaseToSystem` where the host waits on an event for device writes.

    ## References
    - HIP programming manual, coherency controls and visibility of zero-copy host memory
    """

    code = "PT502"
    name = "host-coherence"
    severity = Severity.WARNING
    triggers = (
        b"_system",
        b"MallocHost",
        b"HostMalloc",
        b"HostAlloc",
        b"HostRegister",
        b"MemAllocHost",
    )

    def wanted(self, idents: set[bytes], index, data: bytes) -> bool:
        """Every finding is on a system-scope atomic, on `thread_scope_system` or on a pinned
        allocation call: without one of those identifiers (the trigger `_system` also fires on
        `__thread_scope_system_tag` or `thrust_system`) the file needs no parse for this rule."""
        return (
            b"thread_scope_system" in idents
            or not _PINNED_BYTES.isdisjoint(idents)
            or any(n.endswith(b"_system") and _SYSTEM_ATOMIC_BYTES.fullmatch(n) for n in idents)
        )

    def check(self, ctx: RuleContext) -> Iterator:
        sys_uses = []
        for ident in ctx.identifiers(_SYSTEM_ATOMIC):
            call = ident.parent
            if (
                call is not None
                and call.type == "call_expression"
                and call_name(ctx, call) == ctx.text(ident)
            ):
                sys_uses.append((ident, f"`{ctx.text(ident)}` is a system-scope atomic"))
        for ident in ctx.identifiers(("thread_scope_system",)):
            # uses in function bodies only: library definitions (enumerators, default template
            # arguments, using-declarations) are not hazards
            fn = enclosing_function(ident, lambdas=False)
            body = fn.child_by_field_name("body") if fn is not None else None
            if body is None or not (body.start_byte <= ident.start_byte < body.end_byte):
                continue
            if any(
                a.type
                in ("using_declaration", "enumerator", "case_statement", "template_declaration")
                for a in _ancestors_to(ident, body)
            ):
                continue
            sys_uses.append((ident, "`thread_scope_system` makes a system-scope atomic"))
        for ident, what in sys_uses:
            if ctx.vendor.at(ident).not_for_amd:
                continue
            yield self.finding(
                ctx,
                ident,
                f"{what}: on AMD it synchronises with the host only on coherent (fine-grained) "
                f"memory; allocate the buffer with hipHostMallocCoherent or hipHostMallocMapped, "
                f"or hipMalloc for device-only use",
            )
        pinned = ctx.calls.named(_PINNED, forwarding=False)
        if not pinned:
            return  # nothing to report below (and no walk for `volatile`)
        polls = bool(sys_uses) or any(
            ctx.text(q) == "volatile" and _device_fn(ctx, q) for q in ctx.nodes("type_qualifier")
        )
        if not polls:
            return
        for cl in pinned:
            name, call, args = cl.name, cl.node, cl.args
            if ctx.vendor.at(call).not_for_amd:
                continue
            flags = " ".join(ctx.text(a) for a in args[2:])
            if "NonCoherent" not in flags and re.search(r"Mapped|Coherent|DEVICEMAP", flags):
                continue
            how = (
                "with a non-coherent flag"
                if "NonCoherent" in flags
                else "without a mapped or coherent flag"
            )
            yield self.finding(
                ctx,
                call.child_by_field_name("function"),
                f"`{name}` allocates pinned host memory {how} while device code in this file "
                f"polls volatile memory or uses system-scope atomics; on AMD such memory may be "
                f"non-coherent and visible only at kernel or copy boundaries; pass "
                f"hipHostMallocCoherent or hipHostMallocMapped (cudaHostAllocMapped)",
            )


# -- PT503 ------------------------------------------------------------------------------------
@register
class ThreadfenceSystem(Rule):
    """`__threadfence_system()`, whose effect on AMD depends on the memory type.

    ## What it finds
    Calls of `__threadfence_system()`.

    ## Why it breaks on AMD
    The HIP porting guide says HIP-Clang "does not provide this functionality" and suggests
    `HSA_DISABLE_CACHE=1` as a workaround; the kernel-language reference requires fine-grained
    `hipHostMalloc` memory for it. Current clr defines it as a system-scope fence, which orders
    accesses to other agents only for coherent (fine-grained) memory.

    ## Example
    ```cpp
    result[blockIdx.x] = partial;
    __threadfence_system();
    atomicAdd_system(done, 1);
    ```

    ## Use instead
    Make the buffers the host (or a peer GPU) reads coherent (`hipHostMallocCoherent`,
    `hipExtMallocWithFlags(..., hipDeviceMallocFinegrained)`), and validate with a test on the
    target.

    ## References
    - HIP porting guide, `__threadfence_system` section
    - HIP kernel language reference, memory fence functions
    - ROCm 7.2 `hip/amd_detail/amd_device_functions.h` (`__threadfence_system`)
    """

    code = "PT503"
    name = "threadfence-system"
    severity = Severity.WARNING
    triggers = (b"__threadfence_system",)

    def check(self, ctx: RuleContext) -> Iterator:
        for cl in ctx.calls.named(("__threadfence_system",), forwarding=False):
            _name, call, _args = cl.name, cl.node, cl.args
            if ctx.vendor.at(call).not_for_amd:
                continue
            yield self.finding(
                ctx,
                call,
                "`__threadfence_system()` orders memory for the host and other GPUs on AMD only "
                "when the data lives in coherent (fine-grained) memory; allocate those buffers "
                "with hipHostMallocCoherent or hipDeviceMallocFinegrained and test on the target",
            )


# -- PT504 ------------------------------------------------------------------------------------
def _pointee_decl(ctx: RuleContext, expr, fn):
    """The declaration node of the variable an atomic's address argument points into."""
    n = expr
    while n is not None:
        if n.type == "parenthesized_expression" and n.named_child_count == 1:
            n = n.named_children[0]
        elif (
            n.type == "pointer_expression"
            and n.child_by_field_name("operator") is not None
            and ctx.text(n.child_by_field_name("operator")) == "&"
        ):
            n = n.child_by_field_name("argument")
            if n is not None and n.type == "identifier":
                break  # &scalar
        elif n.type == "subscript_expression":
            n = n.child_by_field_name("argument")
        elif n.type == "binary_expression" and ctx.text(n.child_by_field_name("operator")) == "+":
            n = n.child_by_field_name("left")
        else:
            break
    if n is None or n.type != "identifier":
        return None
    name = ctx.text(n)
    scopes = [fn] if fn is not None else []
    scopes.append(ctx.root)
    for scope in scopes:
        for d in walk(scope):
            if d.type not in ("declaration", "parameter_declaration"):
                continue
            if scope is ctx.root and enclosing_function(d, lambdas=False) is not None:
                continue
            for dd in d.children_by_field_name("declarator"):
                x = dd
                while x is not None and x.type in (
                    "init_declarator",
                    "pointer_declarator",
                    "array_declarator",
                    "reference_declarator",
                    "parenthesized_declarator",
                ):
                    nxt = x.child_by_field_name("declarator")
                    if nxt is None:
                        nxt = next(
                            (
                                c
                                for c in x.named_children
                                if c.type.endswith("declarator") or c.type == "identifier"
                            ),
                            None,
                        )
                    x = nxt
                if x is not None and x.type == "identifier" and ctx.text(x) == name:
                    return d
    return None


@register
class FpAtomicUnsafe(Rule):
    """Floating-point atomics whose AMD hardware path needs coarse-grained memory.

    ## What it finds
    `atomicAdd` on `float*` / `double*` global memory (the variable's declaration is found in
    the same function or file; shared-memory arrays are skipped) when gfx90a is a target, and
    explicit `unsafeAtomicAdd` / `unsafeAtomicMax` / `unsafeAtomicMin` calls.

    ## Why it breaks on AMD
    On gfx90a (MI200) hardware floating-point atomics are used only on the "unsafe" path
    (`-munsafe-fp-atomics` or `unsafeAtomicAdd`), which is undefined on fine-grained
    allocations (host-coherent or peer memory) and may round or flush subnormals differently;
    without it `atomicAdd(float*)` is a compare-and-swap loop, much slower under contention.

    ## Example
    ```cpp
    __global__ void hist(const int* bin, const float* w, float* out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) atomicAdd(&out[bin[i]], w[i]);
    }
    ```

    ## Use instead
    Keep such buffers coarse-grained (`hipMalloc`) and build with `-munsafe-fp-atomics`, or
    reduce per block in LDS and issue one atomic per block. Never use the unsafe path on
    `hipHostMalloc`/`hipMallocManaged`/fine-grained memory.

    ## References
    - ROCm clr `hip/amd_detail/amd_hip_unsafe_atomics.h` (gfx90a hardware path, coarse-grained
      requirement)
    - ginkgo `cmake/hip.cmake` (`-munsafe-fp-atomics`)
    """

    code = "PT504"
    name = "fp-atomic-unsafe"
    severity = Severity.WARNING
    triggers = (b"atomicAdd", b"unsafeAtomic")

    def check(self, ctx: RuleContext) -> Iterator:
        for cl in ctx.calls.named(
            ("unsafeAtomicAdd", "unsafeAtomicMax", "unsafeAtomicMin"), forwarding=False
        ):
            name, call, args = cl.name, cl.node, cl.args
            yield self.finding(
                ctx,
                call.child_by_field_name("function"),
                f"`{name}` uses the hardware floating-point atomic, undefined on fine-grained "
                f"memory (hipHostMalloc, managed or peer memory); make sure the address is in a "
                f"coarse-grained hipMalloc buffer",
                severity=Severity.INFO,
            )
        if not any(t.arch == "gfx90a" for t in ctx.options.targets):
            return
        for cl in ctx.calls.named(("atomicAdd",), forwarding=False):
            name, call, args = cl.name, cl.node, cl.args
            if not args or ctx.vendor.at(call).not_for_amd:
                continue
            fn = enclosing_function(call, lambdas=False)
            decl = _pointee_decl(ctx, args[0], fn)
            if decl is None:
                continue
            if any(
                ctx.text(c) in ("__shared__", "__constant__")
                for c in decl.children
                if c.type == "type_qualifier"
            ):
                continue
            ty = decl.child_by_field_name("type")
            if ty is None or ctx.text(ty) not in ("float", "double"):
                continue
            yield self.finding(
                ctx,
                call.child_by_field_name("function"),
                f"`atomicAdd` on `{ctx.text(ty)}` memory: on gfx90a the hardware atomic is used "
                f"only with -munsafe-fp-atomics (undefined on fine-grained memory), otherwise it "
                f"is a compare-and-swap loop; keep the buffer coarse-grained and build with "
                f"-munsafe-fp-atomics, or reduce per block first",
                targets=("gfx90a",),
            )


# -- PT505 ------------------------------------------------------------------------------------
_STREAM_ATTR = (
    "cudaStreamSetAttribute",
    "hipStreamSetAttribute",
    "cudaStreamGetAttribute",
    "hipStreamGetAttribute",
    "cuStreamSetAttribute",
    "cuStreamGetAttribute",
)
_APW = re.compile(
    r"(?:cuda|hip)(?:Stream|Launch)AttributeAccessPolicyWindow|"
    r"CU_(?:STREAM|LAUNCH)_ATTRIBUTE_ACCESS_POLICY_WINDOW"
)
_PERSIST_LIMIT = (
    "cudaLimitPersistingL2CacheSize",
    "CU_LIMIT_PERSISTING_L2_CACHE_SIZE",
    "hipLimitPersistingL2CacheSize",
)
_PERSIST_RESET = (
    "cudaCtxResetPersistingL2Cache",
    "cuCtxResetPersistingL2Cache",
    "hipCtxResetPersistingL2Cache",
)
STREAM_ATTR_SINCE = (7, 2)  # mappings/runtime.csv: cudaStreamSetAttribute hip_since 7.2


@register
class L2AccessPolicy(Rule):
    """L2 persistence (access policy window) configuration.

    ## What it finds
    `cudaStreamSetAttribute` / `cudaStreamGetAttribute` with
    `cudaStreamAttributeAccessPolicyWindow`, `cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize,
    ...)` and `cudaCtxResetPersistingL2Cache()` (and their HIP and driver spellings) outside
    `#ifndef __HIP_PLATFORM_AMD__` branches.

    ## Why it breaks on AMD
    `hipAccessPolicyWindow` and `hipAccessPropertyPersisting` exist, but the stream-attribute
    API is missing before ROCm 7.2 (HIPIFY 6.3 lists it unsupported; ROCm 6.4 headers lack
    `hipStreamSetAttribute`), and the persisting-L2 limit and reset have no HIP equivalent in
    ROCm 7.2: the file does not compile. Where the calls exist they are performance hints only.

    ## Example
    ```cpp
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = table;
    attr.accessPolicyWindow.hitRatio = 0.6f;
    cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);
    ```

    ## Use instead
    Guard the whole block with `#ifndef __HIP_PLATFORM_AMD__`.

    ## References
    - HIPIFY runtime API support table (stream attributes, persisting L2)
    - ROCm 7.2 `hip/hip_runtime_api.h` (`hipStreamSetAttribute`, `hipLimit_t`)
    """

    code = "PT505"
    name = "l2-access-policy"
    severity = Severity.ERROR
    triggers = (b"AccessPolicyWindow", b"ACCESS_POLICY_WINDOW", b"PersistingL2", b"PERSISTING_L2")

    def check(self, ctx: RuleContext) -> Iterator:
        old = tuple(ctx.options.rocm_version) < STREAM_ATTR_SINCE
        for cl in ctx.calls.named(_STREAM_ATTR, forwarding=False):
            name, call, args = cl.name, cl.node, cl.args
            if (
                len(args) < 2
                or not _APW.fullmatch(ctx.text(args[1]).split("::")[-1])
                or ctx.vendor.at(call).not_for_amd
            ):
                continue
            if old:
                yield self.finding(
                    ctx,
                    call.child_by_field_name("function"),
                    f"`{name}` with an access policy window does not exist before ROCm 7.2 "
                    f"(targeting {'.'.join(map(str, ctx.options.rocm_version))}); it is an L2 "
                    f"persistence hint only: guard the block with #ifndef __HIP_PLATFORM_AMD__",
                )
            else:
                yield self.finding(
                    ctx,
                    call.child_by_field_name("function"),
                    f"`{name}` sets an L2 access policy window, a performance hint only on AMD "
                    f"(available from ROCm 7.2); consider guarding it with "
                    f"#ifndef __HIP_PLATFORM_AMD__",
                    severity=Severity.INFO,
                )
        for cl in ctx.calls.named(
            ("cudaDeviceSetLimit", "hipDeviceSetLimit", "cuCtxSetLimit"), forwarding=False
        ):
            name, call, args = cl.name, cl.node, cl.args
            if (
                args
                and ctx.text(args[0]).split("::")[-1] in _PERSIST_LIMIT
                and not ctx.vendor.at(call).not_for_amd
            ):
                yield self.finding(
                    ctx,
                    args[0],
                    f"`{ctx.text(args[0])}` (persisting L2 cache size) has no HIP equivalent and "
                    f"does not compile; guard it with #ifndef __HIP_PLATFORM_AMD__",
                )
        for cl in ctx.calls.named(_PERSIST_RESET, forwarding=False):
            name, call, args = cl.name, cl.node, cl.args
            if not ctx.vendor.at(call).not_for_amd:
                yield self.finding(
                    ctx,
                    call.child_by_field_name("function"),
                    f"`{name}` has no HIP equivalent and does not compile; guard it with "
                    f"#ifndef __HIP_PLATFORM_AMD__",
                )


# -- PT506 ------------------------------------------------------------------------------------
_ATTR_TYPES = ("cudaPointerAttributes", "hipPointerAttribute_t", "cudaPointerAttributes_st")
_PTR_GET = (
    "cuPointerGetAttribute",
    "hipPointerGetAttribute",
    "cuPointerGetAttributes",
    "hipDrvPointerGetAttributes",
)
_MEMTYPE_ATTR = ("CU_POINTER_ATTRIBUTE_MEMORY_TYPE", "HIP_POINTER_ATTRIBUTE_MEMORY_TYPE")
_MEMTYPE_ENUM = re.compile(r"(?:cuda|hip)MemoryType\w+")


@register
class PointerAttrMemtype(Rule):
    """Pointer-attribute memory type compared numerically or read from the old field.

    ## What it finds
    Comparisons (`==`, `!=`, `case`) of the value returned for
    `CU_POINTER_ATTRIBUTE_MEMORY_TYPE` with the numbers 3 or 4; reads of the `memoryType` field
    of `cudaPointerAttributes`; and, with `--rocm-version` below 6.0, any comparison of
    `cudaPointerAttributes::type` with a number or a `cudaMemoryType*` enumerator. Numeric
    comparisons of `attr.type` are not reported for ROCm 6.0 and later, whose `hipMemoryType`
    numbers Unregistered..Managed as CUDA does (0..3).

    ## Why it breaks on AMD
    The driver API's `CUmemorytype` has ARRAY=3 and UNIFIED=4, while HIP returns `hipMemoryType`
    where 3 is Managed, Array is 10 and Unified is 11, so numeric comparisons test the wrong
    thing. Before ROCm 6.0 `hipMemoryType` itself was numbered differently (Host=0, Device=1,
    Array=2, Unified=3, Managed=4 against CUDA's Unregistered=0, Host=1, Device=2, Managed=3),
    had no Unregistered value, and the field was `memoryType`; `hipPointerAttribute_t` has only
    `type` in ROCm 6.4 and 7.2 (CUDA removed `memoryType` in 11.0).

    ## Example
    ```cpp
    cudaPointerAttributes attr;
    cudaPointerGetAttributes(&attr, ptr);
    if (attr.type == 2) { /* device pointer */ }
    ```

    ## Use instead
    Compare symbolically (`attr.type == cudaMemoryTypeDevice`), never numerically, and handle
    unregistered host pointers separately.

    ## References
    - HIP porting guide, `CU_POINTER_ATTRIBUTE_MEMORY_TYPE` section
    - ROCm 6.4 and 7.2 `hip/hip_runtime_api.h` (`hipMemoryType`, `hipPointerAttribute_t`)
    """

    code = "PT506"
    name = "pointer-attr-memtype"
    severity = Severity.WARNING
    triggers = (b"PointerAttribute", b"POINTER_ATTRIBUTE_MEMORY_TYPE", b"PointerGetAttribute")

    def check(self, ctx: RuleContext) -> Iterator:
        attr_vars: set[str] = set()
        for t in ctx.identifiers(_ATTR_TYPES, kinds={"type_identifier"}):
            d = t.parent
            while d is not None and d.type not in (
                "declaration",
                "parameter_declaration",
                "field_declaration",
            ):
                d = d.parent if d.type in ("qualified_identifier", "struct_specifier") else None
            if d is None:
                continue
            for dd in d.children_by_field_name("declarator"):
                for n in walk(dd):
                    if n.type in ("identifier", "field_identifier"):
                        attr_vars.add(ctx.text(n))
                        break
        value_vars: set[str] = set()
        for cl in ctx.calls.named(_PTR_GET, forwarding=False):
            _name, _call, args = cl.name, cl.node, cl.args
            if len(args) >= 2 and ctx.text(args[1]).split("::")[-1] in _MEMTYPE_ATTR:
                v = (
                    args[0].child_by_field_name("argument")
                    if args[0].type == "pointer_expression"
                    else args[0]
                )
                if v is not None and v.type == "identifier":
                    value_vars.add(ctx.text(v))
        if not attr_vars and not value_vars:
            return
        old = tuple(ctx.options.rocm_version) < (6, 0)

        def subject(n):
            if n is None:
                return None
            while n.type == "parenthesized_expression" and n.named_child_count == 1:
                n = n.named_children[0]
            if n.type == "field_expression":
                fld = n.child_by_field_name("field")
                obj = n.child_by_field_name("argument")
                if (
                    fld is not None
                    and ctx.text(fld) in ("type", "memoryType")
                    and obj is not None
                    and obj.type in ("identifier", "field_expression")
                    and ctx.text(obj).split(".")[-1].split("->")[-1] in attr_vars
                ):
                    return ctx.text(n)
            if n.type == "identifier" and ctx.text(n) in value_vars:
                return ctx.text(n)
            return None

        def report_value(node, subj, other_text):
            if other_text is None:
                return None
            driver = subj in value_vars
            num = re.fullmatch(r"(\d+)[uUlL]*", other_text)
            if num and (old or (driver and int(num.group(1)) in (3, 4))):
                meaning = (
                    (
                        f"CUDA's CUmemorytype {num.group(1)} is "
                        f"{'ARRAY' if num.group(1) == '3' else 'UNIFIED'} but HIP reports "
                        "Array as 10, Unified as 11 (3 is Managed)"
                    )
                    if driver and not old
                    else (
                        "hipMemoryType before ROCm 6.0 is numbered Host=0, Device=1, Array=2, "
                        "Unified=3, Managed=4"
                    )
                )
                return self.finding(
                    ctx,
                    node,
                    f"`{subj}` compared with the number {other_text}: {meaning}; compare with the "
                    f"named cudaMemoryType/CU_MEMORYTYPE constant instead",
                )
            if old and not num and _MEMTYPE_ENUM.fullmatch(other_text.split("::")[-1]):
                return self.finding(
                    ctx,
                    node,
                    f"`{subj}` compared with `{other_text}`: before ROCm 6.0 hipMemoryType is "
                    f"numbered differently and has no Unregistered value; re-check this logic "
                    f"for ROCm {'.'.join(map(str, ctx.options.rocm_version))}",
                )
            return None

        for b in ctx.nodes("binary_expression"):
            op = b.child_by_field_name("operator")
            if op is None or ctx.text(op) not in ("==", "!="):
                continue
            left, right = b.child_by_field_name("left"), b.child_by_field_name("right")
            for a, o in ((left, right), (right, left)):
                subj = subject(a)
                if subj is not None and o is not None:
                    f = report_value(b, subj, ctx.text(o).strip())
                    if f:
                        yield f
                    break
        for sw in ctx.nodes("switch_statement"):
            cond = sw.child_by_field_name("condition")
            inner = (
                cond.named_children[0] if cond is not None and cond.named_child_count == 1 else None
            )
            subj = subject(inner)
            if subj is None:
                continue
            body = sw.child_by_field_name("body")
            for case in body.named_children if body is not None else []:
                if case.type == "case_statement":
                    val = case.child_by_field_name("value")
                    if val is not None:
                        f = report_value(val, subj, ctx.text(val).strip())
                        if f:
                            yield f
        for fld in ctx.identifiers(("memoryType",), kinds={"field_identifier"}):
            fe = fld.parent
            obj = fe.child_by_field_name("argument") if fe is not None else None
            if fe is None or fe.type != "field_expression" or obj is None:
                continue
            if ctx.text(obj).split(".")[-1].split("->")[-1] not in attr_vars:
                continue
            yield self.finding(
                ctx,
                fld,
                f"`{ctx.text(fe)}`: the pointer-attribute field is `type` in CUDA 11+ and in "
                f"ROCm 6.0+ (`hipPointerAttribute_t::type`); use `.type`",
                severity=Severity.ERROR if not old else Severity.WARNING,
            )


# -- PT507 ------------------------------------------------------------------------------------
_HEAP_LIMIT = ("cudaLimitMallocHeapSize", "hipLimitMallocHeapSize", "CU_LIMIT_MALLOC_HEAP_SIZE")


@register
class DeviceMallocHeap(Rule):
    """Device-heap size limit for `malloc`/`new` in kernels.

    ## What it finds
    `cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes)` (and the HIP and driver spellings).

    ## Why it breaks on AMD
    It does not fail, but the size may not mean the same: the HIP programming manual (ROCm 6.3
    era) describes the device heap as dynamic, ignoring this limit, and device-side `malloc` as
    long "under development"; ROCm 7.2's header documents `hipLimitMallocHeapSize` as setting
    the heap limit. Memory use of kernels that allocate can grow differently.

    ## Example
    ```cpp
    cudaDeviceSetLimit(cudaLimitMallocHeapSize, 512u << 20);
    build_lists<<<grid, block>>>(nodes);   // calls malloc() per thread
    ```

    ## Use instead
    Nothing is required; prefer preallocated buffers over device `malloc`, and watch memory
    growth on the target ROCm version.

    ## References
    - HIP programming manual, device-side malloc
    - HIP kernel language reference, memory allocation
    - ROCm 7.2 `hip/hip_runtime_api.h` (`hipDeviceSetLimit`)
    """

    code = "PT507"
    name = "device-malloc-heap"
    severity = Severity.INFO
    triggers = (b"MallocHeapSize", b"MALLOC_HEAP_SIZE")

    def check(self, ctx: RuleContext) -> Iterator:
        for cl in ctx.calls.named(
            ("cudaDeviceSetLimit", "hipDeviceSetLimit", "cuCtxSetLimit"), forwarding=False
        ):
            _name, call, args = cl.name, cl.node, cl.args
            if (
                args
                and ctx.text(args[0]).split("::")[-1] in _HEAP_LIMIT
                and not ctx.vendor.at(call).not_for_amd
            ):
                yield self.finding(
                    ctx,
                    args[0],
                    f"`{ctx.text(args[0])}` sizes the device malloc heap; HIP documents its device "
                    f"heap as dynamic (older docs: the limit is ignored), so memory use of kernels "
                    f"calling malloc/new may differ; prefer preallocated buffers",
                )


# -- PT508 ------------------------------------------------------------------------------------
_LOWP_TYPES = re.compile(r"\b(?:__half2?|half2?|__nv_bfloat162?|nv_bfloat162?|__hip_bfloat162?)\b")
_LOWP_VALUE_FNS = (
    "__float2half",
    "__float2half_rn",
    "__floats2half2_rn",
    "__half2half2",
    "__float2bfloat16",
    "__float2bfloat16_rn",
    "__floats2bfloat162_rn",
    "__float22bfloat162_rn",
    "__float2half2_rn",
)


@register
class LowPrecisionAtomicAdd(Rule):
    """`atomicAdd` on `__half`, `__half2`, `__nv_bfloat16` or `__nv_bfloat162` memory.

    ## What it finds
    `atomicAdd` calls whose address points into a variable declared with a 16-bit float type
    (the declaration is found in the same function or file), or whose value is built by a
    half/bfloat16 conversion intrinsic.

    ## Why it breaks on AMD
    CUDA (sm_60+/sm_80+) overloads `atomicAdd` for `__half`, `__half2`, `__nv_bfloat16` and
    `__nv_bfloat162`. ROCm 7.2 has no such overloads: the call does not compile ("no matching
    function for call to 'atomicAdd'"). HIP offers only `unsafeAtomicAdd` for these types,
    which uses the hardware atomic and is undefined on fine-grained memory (host-coherent,
    managed or peer allocations).

    ## Example
    ```cpp
    __global__ void accumulate(__nv_bfloat16* grad, const float* g, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) atomicAdd(&grad[i % 64], __float2bfloat16(g[i]));
    }
    ```

    ## Use instead
    `unsafeAtomicAdd(&grad[...], v)` on a coarse-grained `hipMalloc` buffer (the unsafe fix
    renames the call), or accumulate in `float` and convert once at the end, or a
    compare-and-swap loop on the containing 32-bit word.

    ## Fix safety
    Unsafe (applied only with `--unsafe-fixes`). The fix renames `atomicAdd` to
    `unsafeAtomicAdd`, which exists for `__half`, `__half2`, `__hip_bfloat16` and
    `__hip_bfloat162` and uses the hardware atomic: its result is undefined on fine-grained
    memory (host-coherent, managed or peer allocations), which porter cannot tell from the call.
    Apply it only where the buffer comes from `hipMalloc` (coarse-grained).

    ## References
    - ROCm 7.2 `hip/amd_detail/amd_hip_fp16.h` (`unsafeAtomicAdd(__half*)`, `(__half2*)`) and
      `amd_hip_bf16.h` (`unsafeAtomicAdd(__hip_bfloat16*)`, `(__hip_bfloat162*)`); no `atomicAdd`
    - CUDA 13 `cuda_fp16.hpp` / `cuda_bf16.hpp` (`atomicAdd` overloads)
    """

    code = "PT508"
    name = "low-precision-atomic-add"
    severity = Severity.ERROR
    fix = Applicability.UNSAFE
    triggers = (b"atomicAdd",)

    def check(self, ctx: RuleContext) -> Iterator:
        if not _LOWP_TYPES.search(ctx.data.decode("utf-8", "replace")):
            return
        for cl in ctx.calls.named(("atomicAdd",), forwarding=False):
            _name, call, args = cl.name, cl.node, cl.args
            if len(args) != 2 or ctx.vendor.at(call).not_for_amd:
                continue
            ty = None
            decl = _pointee_decl(ctx, args[0], enclosing_function(call, lambdas=False))
            if decl is not None and decl.child_by_field_name("type") is not None:
                t = ctx.text(decl.child_by_field_name("type"))
                if _LOWP_TYPES.search(t):
                    ty = t
            if (
                ty is None
                and args[1].type == "call_expression"
                and call_name(ctx, args[1]) in _LOWP_VALUE_FNS
            ):
                ty = f"the result of {call_name(ctx, args[1])}"
            if ty is None:
                continue
            fn = call.child_by_field_name("function")
            assert fn is not None  # a call_expression always has a function
            fx = self.make_fix(
                [Edit(fn.start_byte, fn.end_byte, b"unsafeAtomicAdd")],
                Applicability.UNSAFE,
                "use unsafeAtomicAdd (coarse-grained memory only)",
            )
            yield self.finding(
                ctx,
                fn,
                f"`atomicAdd` on `{ty}`: HIP has no 16-bit float "
                "atomicAdd overloads, so this does not compile; use "
                "unsafeAtomicAdd "
                f"on a coarse-grained buffer, or accumulate in float",
                fix=fx,
            )
