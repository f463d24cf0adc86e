#!/usr/bin/env python3
"""Propose the core CUDA -> HIP mapping rows from the authoritative headers.

Reads the CUDA toolkit headers (runtime, driver, device functions, fp16/bf16/fp8) and the HIP
headers of ROCm 7.2 and 6.4 (plus clang's HIP wrapper headers, which declare the device math
functions), proposes a HIP name for each CUDA name by the HIP naming conventions, and keeps a
proposal only when the HIP header declares that name with the same kind (and, for functions,
the same number of parameters). Names without a verified equivalent become `unsupported`.

    python3 scripts/gen_core_mappings.py --out /tmp/proposed      # write proposals
    python3 scripts/gen_core_mappings.py --out mappings           # after review

The rows are proposals: review the diff before committing (see mappings/README.md).
Environment: CUDA_INCLUDE, PORTER_ROCM_PREFIX, PORTER_ROCM64_PREFIX, CLANG_HIP_INCLUDE.
"""
from __future__ import annotations

import argparse
import csv
import glob
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_names import (KEYWORDS, Declarations, Values, header_files, header_identifiers,  # noqa: E402
                        scan_headers, scan_values)

CUDA_VER = "CUDA 13"
COLUMNS = ("cuda", "hip", "roc", "kind", "status", "hip_since", "transform", "notes", "source")

CUDA = Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))
R72 = Path(os.environ.get("PORTER_ROCM_PREFIX", "/opt/porter-rocm/7.2")) / "usr" / "include"
R64 = Path(os.environ.get("PORTER_ROCM64_PREFIX", "/opt/porter-rocm/6.4")) / "usr" / "include"


def clang_hip_headers() -> list[Path]:
    """clang's HIP wrapper headers (device math functions live there, not in ROCm's include/)."""
    env = os.environ.get("CLANG_HIP_INCLUDE")
    dirs = [Path(env)] if env else sorted(
        (Path(p) for p in glob.glob("/usr/lib/llvm-*/lib/clang/*/include")),
        key=lambda p: [int(x) for x in re.findall(r"\d+", str(p))])[-1:]
    out: list[Path] = []
    for d in dirs:
        out += sorted(d.glob("__clang_hip_*.h"))
    return out


# -- the HIP side -------------------------------------------------------------------------------

@dataclass
class Hip:
    version: str
    decl: Declarations
    tokens: set[str]

    tags: dict | None = None   # struct/union/enum tag -> "struct" | "enum"

    def kind(self, name: str) -> str | None:
        return self.decl.kind_of(name)


_TAG = re.compile(r"\b(struct|union|enum)\s+(?:class\s+)?([A-Za-z_]\w*)")


def load_hip(root: Path, version: str) -> Hip:
    files = header_files(root / "hip") + clang_hip_headers()
    decl = scan_headers(files)
    h = Hip(version, decl, header_identifiers(files))
    h.tags = {}
    for f in files:
        for m in _TAG.finditer(f.read_text(encoding="utf-8", errors="replace")):
            h.tags.setdefault(m.group(2), "enum" if m.group(1) == "enum" else "struct")
    return h


# struct/enum tags (CUstream_st, CUaddress_mode_enum): user code writes them after `struct`/`enum`
# (`struct CUstream_st *s`), so the HIP name must be a tag of the same sort too (ihipStream_t),
# never a typedef (hipStream_t), or `struct hipStream_t` fails to compile
TAG_NAME = re.compile(r"^(CU|cuda)(\w+?)_(st|enum)$")


def tag_target(h: Hip, name: str, proposed: str = "") -> str:
    m = TAG_NAME.match(name)
    core, suffix = m.group(2), m.group(3)
    core = re.sub(r"_v\d+$", "", core)
    want = "enum" if suffix == "enum" else "struct"
    if proposed and h.tags.get(proposed) == want:
        return proposed   # the HIP typedef shares its tag's name (typedef enum hipX {...} hipX)
    cands = ["hip" + core + "_" + suffix, "HIP" + core + "_" + suffix, "HIP_" + core + "_" + suffix,
             "ihip" + core + "_t", "ihip" + core, "hip" + core + "_t", "hip" + core, "hip" + core + "_e"]
    fold = lambda x: x.replace("_", "").lower()  # noqa: E731
    folded = {}
    for t, k in h.tags.items():
        if k == want:
            folded.setdefault(fold(t), t)
    for c in cands:
        if fold(c) in folded:
            return folded[fold(c)]
    return ""


def hip_source(h: Hip, name: str) -> str:
    f = h.decl.origin.get(name, "")
    if f.startswith("__clang_hip"):
        return f"{f} clang (HIP device library wrapper)"
    return f"{f} ROCm {h.version}"


# -- proposing ----------------------------------------------------------------------------------

COMPATIBLE = {
    "function": {"function", "macro"},
    "type": {"type", "macro"},
    "enum": {"enum", "macro"},
    "macro": {"macro", "enum"},
}


def norm_params(params: list[str]) -> str:
    return " ".join(params)


@dataclass
class Proposal:
    cuda: str
    kind: str              # function / type / enum / macro / device_function
    cuda_file: str
    hip: str = ""
    status: str = "unsupported"
    hip_since: str = ""
    transform: str = ""
    notes: str = ""
    hip_file: str = ""


class Matcher:
    def __init__(self, h72: Hip, h64: Hip, cuda: Declarations):
        self.h72, self.h64, self.cuda = h72, h64, cuda
        self.fold: dict[str, list[str]] = {}
        for n in h72.decl.names():
            self.fold.setdefault(n.replace("_", "").lower(), []).append(n)

    def accept(self, cuda_name: str, ckind: str, cand: str, why: list[str]) -> bool:
        hk = self.h72.kind(cand)
        if hk is None:
            return False
        base = "function" if ckind == "device_function" else ckind
        if hk not in COMPATIBLE[base]:
            why.append(f"{cand} is a {hk}")
            return False
        if base == "function" and hk == "function" and cuda_name in self.cuda.functions:
            cn = self.cuda.functions[cuda_name]
            hn = self.h72.decl.functions[cand]
            if ckind == "function" and hn and not (cn & hn):
                why.append(f"{cand} takes {sorted(hn)} parameters, {cuda_name} {sorted(cn)}")
                return False
        return True

    def find(self, cuda_name: str, ckind: str, cands: list[str], fold: bool = True) -> tuple[str, list[str]]:
        why: list[str] = []
        seen = set()
        for c in cands:
            if c in seen:
                continue
            seen.add(c)
            if self.accept(cuda_name, ckind, c, why):
                return c, why
        if ckind == "type":
            for c in cands:
                if c + "_t" not in seen and self.accept(cuda_name, ckind, c + "_t", why):
                    return c + "_t", why
        if fold:
            for c in cands:
                for alt in self.fold.get(c.replace("_", "").lower(), []):
                    if alt not in seen and self.accept(cuda_name, ckind, alt, why):
                        return alt, why
        return "", why

    def since(self, hip: str) -> str:
        if hip in self.h64.decl.names() or hip in self.h64.tokens:
            return ""
        return "7.2"


def camel(words: str) -> str:
    return "".join(w[:1].upper() + w[1:].lower() for w in words.split("_") if w)


# -- CUDA runtime ------------------------------------------------------------------------------

RUNTIME_HEADERS = ["cuda_runtime_api.h", "driver_types.h", "vector_types.h", "vector_functions.h",
                   "library_types.h", "surface_types.h", "texture_types.h", "channel_descriptor.h",
                   "cuComplex.h", "cuda_profiler_api.h", "device_types.h", "cuda_runtime.h",
                   "math_constants.h", "cuda_gl_interop.h", "driver_functions.h"]
SYMBOL_APIS = {"cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaMemcpyToSymbolAsync",
               "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress", "cudaGetSymbolSize"}

# irregular spellings; every target is still checked against the HIP headers
# block-scoped atomics: HIP has only device scope (and _system), which is stronger, so the plain
# atomic is a correct replacement
DEVICE_OVERRIDES = {f"atomic{op}_block": [f"atomic{op}"]
                    for op in ("Add", "Sub", "Exch", "Min", "Max", "Inc", "Dec", "CAS", "And", "Or",
                               "Xor")}

# CUDA default arguments the HIP function lacks (a call with N arguments gets `, TEXT`)
DEFAULT_ARGS = {
    "cudaGraphInstantiate": "default_arg:2:0", "cudaGraphInstantiateWithFlags": "default_arg:2:0",
    "cudaGetDriverEntryPoint": "default_arg:3:nullptr", "cudaMalloc3DArray": "default_arg:3:0",
    "cudaMemcpy2DArrayToArray": "default_arg:8:hipMemcpyDeviceToDevice",
    "cudaSignalExternalSemaphoresAsync": "default_arg:3:0",
    "cudaWaitExternalSemaphoresAsync": "default_arg:3:0",
}

RUNTIME_OVERRIDES = {
    # hipMallocHost is deprecated; hipHostMalloc's C++ template overload defaults the flags
    "cudaMallocHost": ["hipHostMalloc"],
    "cudaFreeHost": ["hipHostFree"],
    # CUDA 12+ (exec, graph, flags = 0): HIP's hipGraphInstantiate has the CUDA 11 5-argument form
    "cudaGraphInstantiate": ["hipGraphInstantiateWithFlags"],
    # HIP words these device attributes differently
    "cudaDevAttrMaxPersistingL2CacheSize": ["hipDeviceAttributePersistingL2CacheMaxSize"],
    "cudaDevAttrReservedSharedMemoryPerBlock": ["hipDeviceAttributeReservedSharedMemPerBlock"],
    "cudaDevAttrMaxAccessPolicyWindowSize": ["hipDeviceAttributeAccessPolicyMaxWindowSize"],
    "cudaDataType_t": ["hipDataType"],
    "cudaDataType": ["hipDataType"],
    "libraryPropertyType": ["hipLibraryPropertyType"],
    "libraryPropertyType_t": ["hipLibraryPropertyType_t", "hipLibraryPropertyType"],
    "MAJOR_VERSION": ["HIP_LIBRARY_MAJOR_VERSION"],
    "MINOR_VERSION": ["HIP_LIBRARY_MINOR_VERSION"],
    "PATCH_LEVEL": ["HIP_LIBRARY_PATCH_LEVEL"],
    "cudaDeviceProp": ["hipDeviceProp_t"],
    "cudaStreamCallback_t": ["hipStreamCallback_t"],
    "cudaError": ["hipError_t"],
    "cudaStream_t": ["hipStream_t"],
    "cudaIpcMemHandle_st": ["hipIpcMemHandle_st"],
    "cudaDeviceAttr": ["hipDeviceAttribute_t"],
    "cudaTextureObject_t": ["hipTextureObject_t"],
    "cudaSurfaceObject_t": ["hipSurfaceObject_t"],
    "cudaPointerAttributes": ["hipPointerAttribute_t"],
    "cudaMemAdvise": ["hipMemAdvise_v2"],
    # HIP spells these device attributes differently; each is one int in hipDeviceProp_t like CUDA's
    # deprecated CUDA 4.0 spelling of cudaDeviceScheduleBlockingSync (same value, driver_types.h)
    "cudaDeviceBlockingSync": ["hipDeviceScheduleBlockingSync"],
    "cudaDevAttrGlobalMemoryBusWidth": ["hipDeviceAttributeMemoryBusWidth"],
    "cudaDevAttrMaxSharedMemoryPerBlockOptin": ["hipDeviceAttributeSharedMemPerBlockOptin"],
    "cudaDevAttrMaxSurface1DWidth": ["hipDeviceAttributeMaxSurface1D"],
    "cudaDevAttrMaxSurfaceCubemapWidth": ["hipDeviceAttributeMaxSurfaceCubemap"],
    "cudaDevAttrMaxTexture1DLinearWidth": ["hipDeviceAttributeMaxTexture1DLinear"],
    "cudaDevAttrMaxTexture1DMipmappedWidth": ["hipDeviceAttributeMaxTexture1DMipmap"],
    "cudaDevAttrMaxTextureCubemapWidth": ["hipDeviceAttributeMaxTextureCubemap"],
}


def runtime_candidates(name: str) -> list[str]:
    c = list(RUNTIME_OVERRIDES.get(name, []))
    if name.startswith("cudaDevAttr"):
        c.append("hipDeviceAttribute" + name[len("cudaDevAttr"):])
    if name.startswith("cuda"):
        rest = name[4:]
        c += ["hip" + rest] + (["hip" + rest + "_t"] if name.endswith("_t") else []) + ["hip" + rest + "_v2"]
    elif name.startswith("CUDA_"):
        c += ["HIP_" + name[5:]]
    elif name.startswith("CUDART_"):
        c += ["HIP_" + name[7:], "HIPRT_" + name[7:]]
    elif name.startswith("make_cuda"):             # make_cudaExtent -> make_hipExtent
        c.append("make_hip" + name[9:])
    elif name.startswith("make_cu"):
        c.append("make_hip" + name[7:])
    elif name.startswith("cu") and name[2:3].isupper():   # cuComplex.h
        c.append("hip" + name[2:])
    else:
        c.append(name)   # vector types, make_float4, ...
    return c


# -- CUDA driver --------------------------------------------------------------------------------

DRIVER_OVERRIDES = {
    "cuMemAlloc": ["hipMalloc"], "cuMemFree": ["hipFree"], "cuMemAllocManaged": ["hipMallocManaged"],
    "cuMemAllocHost": ["hipMemAllocHost"], "cuMemFreeHost": ["hipHostFree"],
    "cuMemHostAlloc": ["hipHostAlloc"], "cuMemHostRegister": ["hipHostRegister"],
    "cuMemHostUnregister": ["hipHostUnregister"],
    "cuMemHostGetDevicePointer": ["hipHostGetDevicePointer"], "cuMemHostGetFlags": ["hipHostGetFlags"],
    "cuMemAllocPitch": ["hipMemAllocPitch"],
    "cuDeviceGetCount": ["hipGetDeviceCount"],
    "cuLaunchKernel": ["hipModuleLaunchKernel"],
    "cuLaunchCooperativeKernel": ["hipModuleLaunchCooperativeKernel"],
    "cuLaunchCooperativeKernelMultiDevice": ["hipModuleLaunchCooperativeKernelMultiDevice"],
    "cuLaunchHostFunc": ["hipLaunchHostFunc"],
    "cuOccupancyMaxActiveBlocksPerMultiprocessor": ["hipModuleOccupancyMaxActiveBlocksPerMultiprocessor"],
    "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags":
        ["hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags"],
    "cuOccupancyMaxPotentialBlockSize": ["hipModuleOccupancyMaxPotentialBlockSize"],
    "cuOccupancyMaxPotentialBlockSizeWithFlags": ["hipModuleOccupancyMaxPotentialBlockSizeWithFlags"],
    "cuMemcpy2D": ["hipMemcpyParam2D"], "cuMemcpy2DAsync": ["hipMemcpyParam2DAsync"],
    "cuMemcpy2DUnaligned": ["hipDrvMemcpy2DUnaligned"],
    "cuMemcpy3D": ["hipDrvMemcpy3D"], "cuMemcpy3DAsync": ["hipDrvMemcpy3DAsync"],
    "cuPointerGetAttributes": ["hipDrvPointerGetAttributes"],
    "cuGetErrorString": ["hipDrvGetErrorString"], "cuGetErrorName": ["hipDrvGetErrorName"],
    "cuStreamCreate": ["hipStreamCreateWithFlags"], "cuEventCreate": ["hipEventCreateWithFlags"],
    "cuGraphInstantiate": ["hipGraphInstantiateWithFlags"],
    "cuMemsetD2D8": ["hipMemset2D"],     # same meaning; hipMemsetD2D8 is new in 7.2
    # HIP words these device attributes and flags differently
    "CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE": ["hipDeviceAttributePersistingL2CacheMaxSize"],
    "CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK": ["hipDeviceAttributeReservedSharedMemPerBlock"],
    "CU_MEM_ALLOC_GRANULARITY_RECOMMENDED": ["hipMemAllocationGranularityRecommended"],
    "CU_MEM_ALLOC_GRANULARITY_MINIMUM": ["hipMemAllocationGranularityMinimum"],
    # types
    "CUresult": ["hipError_t"], "CUdevice": ["hipDevice_t"], "CUdevice_v1": ["hipDevice_t"],
    "CUcontext": ["hipCtx_t"], "CUmodule": ["hipModule_t"], "CUfunction": ["hipFunction_t"],
    "CUstream": ["hipStream_t"], "CUevent": ["hipEvent_t"], "CUdeviceptr": ["hipDeviceptr_t"],
    "CUdeviceptr_v2": ["hipDeviceptr_t"],
    "CUarray": ["hipArray_t"], "CUmipmappedArray": ["hipMipmappedArray_t"],
    "CUtexObject": ["hipTextureObject_t"], "CUsurfObject": ["hipSurfaceObject_t"],
    "CUdevice_attribute": ["hipDeviceAttribute_t"], "CUfunction_attribute": ["hipFunction_attribute"],
    "CUjit_option": ["hipJitOption"], "CUgraph": ["hipGraph_t"], "CUgraphNode": ["hipGraphNode_t"],
    "CUgraphExec": ["hipGraphExec_t"], "CUmemoryPool": ["hipMemPool_t"],
    "CUDA_MEMCPY2D": ["hip_Memcpy2D"], "CUDA_MEMCPY3D": ["HIP_MEMCPY3D"],
    "CUDA_ARRAY_DESCRIPTOR": ["HIP_ARRAY_DESCRIPTOR"], "CUDA_ARRAY3D_DESCRIPTOR": ["HIP_ARRAY3D_DESCRIPTOR"],
    "CUstreamCallback": ["hipStreamCallback_t"], "CUhostFn": ["hipHostFn_t"],
    "CUipcMemHandle": ["hipIpcMemHandle_t"], "CUipcEventHandle": ["hipIpcEventHandle_t"],
    "CUfunc_cache": ["hipFuncCache_t"], "CUsharedconfig": ["hipSharedMemConfig"],
    "CUlimit": ["hipLimit_t"], "CUmemorytype": ["hipMemoryType"], "CUuuid": ["hipUUID"],
    "CUexternalMemory": ["hipExternalMemory_t"], "CUexternalSemaphore": ["hipExternalSemaphore_t"],
    "CUuserObject": ["hipUserObject_t"], "CUkernel": ["hipKernel_t"], "CUlibrary": ["hipLibrary_t"],
    "CUlinkState": ["hipLinkState_t"],
    "CUDA_KERNEL_NODE_PARAMS": ["hipKernelNodeParams"],
    "CUDA_MEMSET_NODE_PARAMS": ["hipMemsetParams"],
    "CUDA_HOST_NODE_PARAMS": ["hipHostNodeParams"],
    "CUDA_RESOURCE_DESC": ["HIP_RESOURCE_DESC"], "CUDA_TEXTURE_DESC": ["HIP_TEXTURE_DESC"],
    "CUDA_RESOURCE_VIEW_DESC": ["HIP_RESOURCE_VIEW_DESC"],
    "CUDA_SUCCESS": ["hipSuccess"],
    "CUgraphMem_attribute": ["hipGraphMemAttributeType"], "CUmemPool_attribute": ["hipMemPoolAttr"],
    "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS": ["hipExternalSemaphoreSignalNodeParams"],
    "CUDA_EXT_SEM_WAIT_NODE_PARAMS": ["hipExternalSemaphoreWaitNodeParams"],
    "CUdevice_P2PAttribute": ["hipDeviceP2PAttr"], "CUmem_advise": ["hipMemoryAdvise"],
    "CUlaunchConfig": ["HIP_LAUNCH_CONFIG"], "CUDA_LAUNCH_PARAMS": ["hipFunctionLaunchParams"],
    "CUgraphicsResource": ["hipGraphicsResource_t"], "CUtexref": ["hipTexRef"],
    "cuMemAdvise": ["hipMemAdvise_v2"], "cuMemPrefetchAsync": ["hipMemPrefetchAsync_v2"],
    # CUDA's count of its own JIT input types (6); hipJitNumInputTypes also counts HIP-only ones
    "CU_JIT_NUM_INPUT_TYPES": ["hipJitNumLegacyInputTypes"],
    # the context-scoped limits are the device limits of the current context's device in HIP
    "cuCtxGetLimit": ["hipDeviceGetLimit"], "cuCtxSetLimit": ["hipDeviceSetLimit"],
    "cuCtxGetStreamPriorityRange": ["hipDeviceGetStreamPriorityRange"],
    "cuMemAllocAsync": ["hipMallocAsync"], "cuMemFreeAsync": ["hipFreeAsync"],
    "cuMemAllocFromPoolAsync": ["hipMallocFromPoolAsync"],
    "CU_DEVICE_CPU": ["hipCpuDeviceId"], "CU_DEVICE_INVALID": ["hipInvalidDeviceId"],
    # flags of cuLaunchCooperativeKernelMultiDevice (HIP: hipLaunchCooperativeKernelMultiDevice)
    "CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC": ["hipCooperativeLaunchMultiDeviceNoPreSync"],
    "CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_POST_LAUNCH_SYNC": ["hipCooperativeLaunchMultiDeviceNoPostSync"],
}


DRIVER_HEADERS = ["cuda.h", "cudaGL.h"]


def driver_candidates(name: str, kind: str) -> list[str]:
    c = list(DRIVER_OVERRIDES.get(name, []))
    if kind == "function" and name.startswith("cu"):
        rest = name[2:]
        c += ["hip" + rest, "hipDrv" + rest, "hip" + rest + "_v2"]
    elif name.startswith("CUDA_ERROR_"):
        c += ["hipError" + camel(name[11:])]
    elif name.startswith("CUDA_"):
        c += ["HIP_" + name[5:], "hip" + camel(name[5:])]
    elif name.startswith("CU_"):
        c += ["HIP_" + name[3:], "hip" + camel(name[3:])]
    elif name.startswith("CU"):
        rest = re.sub(r"_(enum|st)$", "", name[2:])
        c += ["hip" + rest[:1].upper() + rest[1:], "hip" + rest[:1].upper() + rest[1:] + "_t",
              "HIP" + rest]
    elif name.startswith("cu"):
        c += ["hip" + name[2:]]
    return c


# -- device, lowp -------------------------------------------------------------------------------

DEVICE_HEADERS = ["crt/math_functions.h", "crt/device_functions.h", "crt/device_double_functions.h",
                  "device_atomic_functions.h", "sm_20_atomic_functions.h", "sm_32_atomic_functions.h",
                  "sm_35_atomic_functions.h", "sm_60_atomic_functions.h", "sm_20_intrinsics.h",
                  "sm_30_intrinsics.h", "sm_32_intrinsics.h", "sm_35_intrinsics.h",
                  "sm_61_intrinsics.h", "crt/sm_70_rt.h", "crt/sm_80_rt.h", "crt/sm_90_rt.h",
                  "crt/sm_100_rt.h"]
LOWP_HEADERS = ["cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h",
                "cuda_fp8.hpp", "cuda_fp6.h", "cuda_fp6.hpp", "cuda_fp4.h", "cuda_fp4.hpp"]
SYNC_WARP = ["__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
             "__ballot_sync", "__any_sync", "__all_sync"]

LOWP_OVERRIDES = {
    # HIP's __float2bfloat16 is static_cast<__bf16>(float): IEEE round-to-nearest-even, as _rn
    "__float2bfloat16_rn": ["__float2bfloat16"],
    "nv_bfloat16": ["__hip_bfloat16"], "nv_bfloat162": ["__hip_bfloat162"],
}


def lowp_candidates(name: str) -> list[str]:
    c = list(LOWP_OVERRIDES.get(name, []))
    if name.startswith("__nv_"):
        c.append("__hip_" + name[5:])
    elif name.startswith("__NV_"):
        c.append("__HIP_" + name[5:])
    elif name.startswith("CUDART_"):
        c += ["HIPRT_" + name[7:], "HIP_" + name[7:]]
    elif name.startswith("nv_"):
        pass  # nv_bfloat16-style typedefs only through LOWP_OVERRIDES (hip_bfloat16 is another type)
    else:
        c.append(name)
    return c


INTERNAL = re.compile(
    r"^(__.*(_H|_HPP|_DECL|_INLINE|_API|_MACROS?)__?$|__internal|__cuda|__nv_(?!bfloat|fp|cvt_|saturation)|__CUDA|_CUDA|__NV_|"
    r"__DEF_IF|__CUDACC|__float_simpl|__bfloat_simpl|__half_simpl|.*_v\d+$|.*_ptsz$|.*_ptds$|_Z)")


HOST_HELPERS = re.compile(r"^(_[A-Z]|__libcpp|__cmath|__pow_helper|__\w+_BITS$|_[a-z]+sign$)")


# Names the header scan picks up that are not user-facing CUDA APIs: C/C++ words the light parser
# mistakes for enumerators or types, HIP's own built-in names, helper macros of cuda_fp16/bf16.hpp,
# C-library internals CUDA re-declares for device code, and implementation helpers.
NOT_API = frozenset("""
    assert hi lo rounding warpSize threadIdx blockIdx blockDim gridDim IF_DEVICE_OR_CUDACC
    __finitel __isinfl __isnanl __signbitl __isfinited __isfinitef __isinfd __isnand __signbitd
    __u128AtomicCAS __u128AtomicCAS_block __u128AtomicCAS_system
    __u128AtomicExch __u128AtomicExch_block __u128AtomicExch_system
    any all ballot
""".split())
# C/C++ keywords and fundamental types (a row for one of them would flag every file)
CXX_WORDS = KEYWORDS | frozenset("""
    wchar_t char8_t char16_t char32_t size_t ptrdiff_t nullptr_t concept requires co_await
    co_return co_yield thread_local static_cast dynamic_cast const_cast reinterpret_cast
    _Bool _Complex restrict
""".split())
# helper macros of the fp16/bf16 headers (__BINARY_OP_HALF_MACRO, __HALF_TO_US, __SPEC_CASE, ...):
# all-caps with leading underscores, unlike the user-facing CUDART_* constants and __NV_* enumerators
LOWP_HELPER_MACRO = re.compile(r"^_+[A-Z][A-Z0-9_]*$")


def not_api(name: str) -> bool:
    return name in NOT_API or name in CXX_WORDS or name.endswith("_internal")


def is_internal(name: str, decl: Declarations) -> bool:
    if not_api(name):
        return True
    if HOST_HELPERS.match(name):
        return True
    if INTERNAL.match(name) and not name.startswith(("__nv_bfloat", "__nv_fp", "__nv_cvt_", "__nv_saturation",
                                                     "__NV_E", "__NV_SAT",
                                                     "__NV_NOSAT")):
        return True
    v = decl.macro_values.get(name, "")
    if name in decl.macros and name.startswith("__") and v in ("", "1"):
        return True   # guards and feature flags
    if name in decl.macros and re.search(r"_H_*$", name) and v == "":
        return True   # include guards (CUDAGL_H)
    return False


# execution-space and launch attributes of crt/host_defines.h that user code writes; the rest of
# that header (__inline__, __restrict__, __location__, __tile__, ...) is compiler plumbing
ATTRIBUTES = frozenset("""
    __global__ __device__ __host__ __shared__ __constant__ __managed__ __forceinline__ __noinline__
    __launch_bounds__ __align__ __cluster_dims__ __grid_constant__ __maxnreg__
""".split())

# directed-rounding arithmetic (__fadd_rd, __dmul_ru, __fsqrt_rz, ...): clang's HIP header declares
# them only under OCML_BASIC_ROUNDED_OPERATIONS, so a default HIP compile does not see them
ROUNDED = re.compile(r"^__(fadd|fsub|fmul|fdiv|fmaf|frcp|fsqrt|dadd|dsub|dmul|ddiv|fma|drcp|dsqrt)_r[duz]$")
ROUNDED_NOTE = ("HIP declares it (__clang_hip_math.h) only when compiled with "
                "-DOCML_BASIC_ROUNDED_OPERATIONS; without it only the _rn form exists")


# -- driving ------------------------------------------------------------------------------------

def cuda_decl(files: list[str]) -> Declarations:
    paths = [CUDA / "crt/host_defines.h"] + [CUDA / f for f in files]
    return scan_headers([p for p in paths if p.is_file()], drop_internal=True)


def removed_runtime(current: Declarations) -> set[str]:
    """Runtime functions CUDA lists as removed (generated_cudart_removed_meta.h) and no longer declares."""
    meta = CUDA / "generated_cudart_removed_meta.h"
    out = set()
    if meta.is_file():
        for m in re.finditer(r"typedef struct (cuda\w+?)_(?:ptsz_|ptds_)?v\d+_params_st", meta.read_text()):
            name = re.sub(r"_(ptsz|ptds)$", "", m.group(1))
            if name not in current.names() and not re.search(r"_v\d+$", name):
                out.add(name)
    return out


# names gone from CUDA 12/13 headers that old code still uses (texture/surface references,
# thread-era API); kept as `removed` rows so porter can say what they became
EXTRA_REMOVED_RUNTIME = ["cudaThreadSynchronize", "cudaThreadExit", "cudaThreadGetLimit", "cudaThreadSetLimit",
                         "cudaThreadGetCacheConfig", "cudaThreadSetCacheConfig", "textureReference",
                         "surfaceReference", "cudaTextureType1D", "cudaGetTextureReference",
                         "cudaCooperativeLaunchMultiDeviceNoPreSync", "cudaCooperativeLaunchMultiDeviceNoPostSync",
                         "cudaDevAttrCooperativeMultiDeviceLaunch"]
# kinds of removed names that are not functions
REMOVED_KIND = {"cudaCooperativeLaunchMultiDeviceNoPreSync": "macro", "cudaCooperativeLaunchMultiDeviceNoPostSync": "macro",
                "cudaDevAttrCooperativeMultiDeviceLaunch": "enum"}
# the CUDA 4.0 thread-era functions were renamed cudaDevice* with the same parameters and meaning
# (CUDA 12 removed the old names); their HIP targets are the cudaDevice* equivalents
REMOVED_EQUIVALENT = {
    "cudaThreadSynchronize": "hipDeviceSynchronize", "cudaThreadExit": "hipDeviceReset",
    "cudaThreadGetLimit": "hipDeviceGetLimit", "cudaThreadSetLimit": "hipDeviceSetLimit",
    "cudaThreadGetCacheConfig": "hipDeviceGetCacheConfig", "cudaThreadSetCacheConfig": "hipDeviceSetCacheConfig",
}


def build(kinds_from: Declarations, names: set[str]) -> list[tuple[str, str]]:
    out = []
    for n in sorted(names):
        k = kinds_from.kind_of(n)
        if k:
            out.append((n, k))
    return out


def propose_table(m: Matcher, names: list[tuple[str, str]], cands, cuda_src) -> list[Proposal]:
    props = []
    for name, kind in names:
        p = Proposal(name, kind, cuda_src(name))
        hip, why = m.find(name, kind, cands(name, kind))
        if hip:
            p.hip, p.status, p.hip_since = hip, "supported", m.since(hip)
            if hip in m.h72.decl.deprecated:
                p.status = "deprecated"
            p.hip_file = hip_source(m.h72, hip)
        else:
            p.notes = "no HIP equivalent in ROCm 7.2 headers" + (f" ({'; '.join(why[:2])})" if why else "")
        props.append(p)
    return props


def row(p: Proposal) -> dict:
    src = f"{p.cuda_file} {CUDA_VER}"
    if p.hip_file:
        src += f"; {p.hip_file}"
    kind = p.kind
    return dict(cuda=p.cuda, hip=p.hip, roc="", kind=kind, status=p.status, hip_since=p.hip_since,
                transform=p.transform, notes=p.notes, source=src)


def sort_rows(rows: list[dict]) -> list[dict]:
    def key(r):
        v = tuple(int(x) for x in r["hip_since"].split(".")) if r["hip_since"] else (0,)
        return (r["cuda"], v)
    return sorted(rows, key=key)


def write(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in sort_rows(rows):
            w.writerow(r)


# CUDA names whose look-alike HIP name means something else
DENY = {
    "CUDA_VERSION": "HIP_VERSION encodes the HIP version, not a CUDA API level",
    "CUDART_VERSION": "HIP_VERSION encodes the HIP version, not a CUDA runtime version",
}
RUNTIME_PREFIX = re.compile(r"^(cuda|CUDA|CUDART_|make_cu|cu[A-Z])")
VECTOR_FILES = {"vector_types.h", "vector_functions.h", "library_types.h"}


def finish(m: Matcher, props: list[Proposal]) -> list[dict]:
    rows = []
    for p in props:
        if p.kind == "type" and TAG_NAME.match(p.cuda) and p.status != "removed":
            hip = tag_target(m.h72, p.cuda, p.hip)
            if hip:
                p.hip, p.status, p.hip_file = hip, "supported", hip_source(m.h72, hip)
                p.hip_since = "" if hip in m.h64.tags else "7.2"
                p.notes = "struct/enum tag: maps to the HIP tag of the same sort"
            else:
                p.hip, p.status, p.hip_since, p.hip_file = "", "unsupported", "", ""
                p.notes = ("struct/enum tag with no HIP tag of that name; use the CUDA typedef "
                           "(porter maps it) instead of the tag")
        if p.cuda in DENY:
            p.hip, p.status, p.hip_since, p.hip_file = "", "unsupported", "", ""
            p.notes = DENY[p.cuda]
        rows.append(row(p))
    return rows


def make_tables(h72: Hip, h64: Hip) -> dict[str, list[dict]]:
    tables: dict[str, list[dict]] = {}

    # runtime
    rt = cuda_decl(RUNTIME_HEADERS)
    m = Matcher(h72, h64, rt)
    names = [(n, k) for n, k in build(rt, rt.names())
             if not is_internal(n, rt) and not n.startswith("CU") or n.startswith("CUDA")
             if (RUNTIME_PREFIX.match(n) or rt.origin.get(n) in VECTOR_FILES) and not is_internal(n, rt)]
    props = propose_table(m, names, lambda n, k: runtime_candidates(n), lambda n: rt.origin[n])
    for p in props:
        if p.cuda in SYMBOL_APIS and p.hip:
            # the device symbol is the first argument of the To* copies, the second of the rest
            p.transform = "symbol_arg0" if "ToSymbol" in p.cuda else "symbol_arg1"
        if p.cuda in DEFAULT_ARGS and p.hip:
            p.transform = DEFAULT_ARGS[p.cuda]
    removed = sorted(removed_runtime(rt) | {n for n in EXTRA_REMOVED_RUNTIME if n not in rt.names()})
    for n in removed:
        p = Proposal(n, "type" if n[0].islower() and not n.startswith("cuda") else "function",
                     "generated_cudart_removed_meta.h")
        if n.startswith("cudaTextureType"):
            p.kind = "macro"
        if n in REMOVED_KIND:
            p.kind, p.cuda_file = REMOVED_KIND[n], "driver_types.h of CUDA 12, absent from"
        hip, why = m.find(n, "function" if p.kind == "function" else p.kind,
                          [REMOVED_EQUIVALENT[n]] if n in REMOVED_EQUIVALENT else runtime_candidates(n) + [n])
        p.status = "removed"
        if hip and n in REMOVED_EQUIVALENT:
            p.hip, p.hip_since, p.hip_file = hip, m.since(hip), hip_source(h72, hip)
            p.notes = (f"removed from current CUDA (use cudaDevice{n[len('cudaThread'):]}); "
                       f"{hip} has the same parameters and meaning")
        elif hip:
            p.hip, p.hip_since, p.hip_file = hip, m.since(hip), hip_source(h72, hip)
            p.notes = "removed from current CUDA; HIP still declares it"
        else:
            p.notes = "removed from current CUDA; no HIP equivalent"
        props.append(p)
    tables["runtime"] = finish(m, props)
    runtime_names = {p.cuda for p in props}

    # driver
    dr = cuda_decl(DRIVER_HEADERS)
    m = Matcher(h72, h64, dr)
    names = [(n, k) for n, k in build(dr, dr.names())
             if re.match(r"^(cu[A-Z]|CU)", n) and not is_internal(n, dr) and n not in runtime_names]
    props = propose_table(m, names, driver_candidates, lambda n: dr.origin[n])
    tables["driver"] = finish(m, props)

    # device functions
    dv = cuda_decl(DEVICE_HEADERS)
    m = Matcher(h72, h64, dv)
    names = [(n, "device_function") for n in sorted(dv.functions)
             if not is_internal(n, dv) and n not in SYNC_WARP]
    names += [(n, "macro") for n in sorted(ATTRIBUTES) if n in dv.names()]
    props = propose_table(m, names, lambda n, k: DEVICE_OVERRIDES.get(n, [n]), lambda n: dv.origin[n])
    for p in props:
        if ROUNDED.match(p.cuda) and p.hip:
            p.hip, p.status, p.hip_since, p.hip_file = "", "unsupported", "", ""
            p.notes = ROUNDED_NOTE
    for n in SYNC_WARP:
        base = n[:-5]
        p = Proposal(n, "device_function", dv.origin.get(n, "sm_30_intrinsics.h"))
        if h72.kind(base) and h64.kind(base):
            p.hip, p.status, p.transform = base, "supported", "drop_arg0"
            p.hip_file = hip_source(h72, base)
            p.notes = (f"before ROCm 7.0 the mask argument is dropped and {base} (whole wavefront) is used; "
                       "ROCm 6.2-6.4 offer {n} only with HIP_ENABLE_WARP_SYNC_BUILTINS").replace("{n}", n)
            props.append(p)
        q = Proposal(n, "device_function", p.cuda_file)
        if h72.kind(n):
            q.hip, q.status, q.hip_since, q.hip_file = n, "supported", "7.0", hip_source(h72, n)
            q.notes = ("HIP's mask is 64-bit (wavefront of 64 lanes on most AMD GPUs): a 32-bit "
                       "0xffffffff mask covers only lanes 0-31 there")
            props.append(q)
    for p in props:
        if p.cuda == "__syncwarp" and p.hip:
            p.hip_since = "7.0"   # declared by default from ROCm 7.0 (absent from 6.4 headers)
    tables["device"] = finish(m, props)

    # low precision
    lp = cuda_decl(LOWP_HEADERS)
    m = Matcher(h72, h64, lp)
    names = [(n, "device_function" if k == "function" else k) for n, k in build(lp, lp.names())
             if not is_internal(n, lp) and n not in dv.functions and n not in runtime_names
             and n not in SYNC_WARP and lp.origin.get(n) != "host_defines.h"
             and not (k == "macro" and LOWP_HELPER_MACRO.match(n) and not n.startswith("__NV_"))]
    props = propose_table(m, names, lambda n, k: lowp_candidates(n), lambda n: lp.origin[n])
    for p in props:
        if "fp8" in p.cuda or p.cuda in ("__NV_E4M3", "__NV_E5M2"):
            extra = ("HIP has OCP fp8 types (used natively by MI350/gfx950) and _fnuz variants "
                     "(MI300/gfx942 hardware format): check the encoding the target GPU uses")
            p.notes = f"{p.notes}; {extra}" if p.notes else extra
    tables["lowp"] = finish(m, props)
    return tables


# reviewed: the parameter lists differ only in spelling (templates, extra HIP-only overloads)
SIGNATURE_OK = {
    "cudaLaunchKernelEx": "variadic template; same parameters",
    "cudaLaunchCooperativeKernel": "HIP adds an internal overload; the public form matches",
    "cuMemPoolExportToShareableHandle": "flags: unsigned long long vs unsigned int (reserved, 0)",
    "cuMemPoolImportFromShareableHandle": "flags: unsigned long long vs unsigned int (reserved, 0)",
}

_QUALIFIERS = {"const", "struct", "enum", "union", "volatile", "__restrict__", "__restrict", "restrict",
               "CUDARTAPI", "CUDAAPI", "__device_builtin__", "typename"}


def param_types(tokens: list[str]) -> list[str]:
    """Parameter types of one declaration, names and default values dropped."""
    out, depth, cur = [], 0, []
    for t in tokens + [","]:
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        if t == "," and depth == 0:
            if "=" in cur:
                cur = cur[:cur.index("=")]
            for mac in ("__dparm", "__dv"):
                if mac in cur:
                    cur = cur[:cur.index(mac)]
            cur = ["unsigned int" if x == "unsigned" and (k + 1 == len(cur) or cur[k + 1] not in ("int", "char", "short", "long"))
                   else x for k, x in enumerate(cur)]
            cur = [x for x in cur if x not in _QUALIFIERS]
            idents = [x for x in cur if re.fullmatch(r"[A-Za-z_]\w*", x)]
            if len(idents) > 1 and cur and cur[-1] == idents[-1]:
                cur = cur[:-1]
            out.append(" ".join(cur))
            cur = []
        else:
            cur.append(t)
    return [] if out == ["void"] or out == [""] else out


_SAME = [(r"\bhipDeviceptr_t\b", "void *"), (r"\bhipDevice_t\b", "int"),
         (r"\b(cuuint64_t|uint64_t|unsigned long long)\b", "u64"),
         (r"\b(cuuint32_t|uint32_t|unsigned int|unsigned char|int)\b", "i32"),
         (r"\bhipGraphicsResource \*", "hipGraphicsResource_t"), (r"\bhipTexRef\b", "textureReference *")]


def same_type(t: str) -> str:
    t = re.sub(r"\s+[A-Za-z_]\w*$", "", t) if re.search(r"[\w*&]\s+[A-Za-z_]\w*$", t) and not re.search(
        r"\b(int|long|char|short|float|double)$", t) else t
    for pat, rep in _SAME:
        t = re.sub(pat, rep, t)
    return t


def review_signatures(tables: dict[str, list[dict]], cuda_decls: dict[str, Declarations], h72: Hip) -> list[str]:
    """Functions whose parameter types differ after renaming the CUDA types (for the reviewer)."""
    typemap = {}
    for rows in tables.values():
        for r in rows:
            if r["kind"] in ("type", "enum", "macro") and r["hip"]:
                typemap[r["cuda"]] = r["hip"]
    out = []
    for area in ("runtime", "driver"):
        decl = cuda_decls[area]
        for r in tables[area]:
            if r["kind"] != "function" or not r["hip"] or r["cuda"] not in decl.params:
                continue
            hp = h72.decl.params.get(r["hip"], [])
            if not hp:
                continue
            cands = [[" ".join(typemap.get(t, t) for t in p.split()) for p in param_types(c)]
                     for c in decl.params[r["cuda"]]]
            hips = [param_types(h) for h in hp]
            cands = [[same_type(t) for t in c] for c in cands]
            hips = [[same_type(t) for t in h] for h in hips]
            if not any(c == h for c in cands for h in hips):
                out.append((area, r, f"{cands[0]} vs {hips[0]}"))
    return out


# CUDA include -> HIP include (None: no HIP counterpart); every path is checked on disk
HEADERS = {
    "cuda_runtime.h": "hip/hip_runtime.h", "cuda_runtime_api.h": "hip/hip_runtime_api.h",
    "cuda.h": "hip/hip_runtime.h", "cuda_fp16.h": "hip/hip_fp16.h", "cuda_bf16.h": "hip/hip_bf16.h",
    "cuda_fp8.h": "hip/hip_fp8.h", "cuda_fp6.h": "hip/hip_fp6.h", "cuda_fp4.h": "hip/hip_fp4.h",
    "cooperative_groups.h": "hip/hip_cooperative_groups.h",
    "cuComplex.h": "hip/hip_complex.h", "device_launch_parameters.h": "hip/hip_runtime.h",
    "vector_types.h": "hip/hip_vector_types.h", "vector_functions.h": "hip/hip_vector_types.h",
    "math_constants.h": "hip/hip_math_constants.h", "cuda_profiler_api.h": "hip/hip_runtime_api.h",
    "texture_types.h": "hip/texture_types.h", "surface_types.h": "hip/surface_types.h",
    "library_types.h": "hip/library_types.h", "driver_types.h": "hip/driver_types.h",
    "channel_descriptor.h": "hip/channel_descriptor.h", "device_functions.h": "hip/device_functions.h",
    "math_functions.h": "hip/math_functions.h", "cuda_gl_interop.h": "hip/hip_gl_interop.h",
    "cuda_device_runtime_api.h": "hip/hip_runtime_api.h",
    "device_atomic_functions.h": "hip/hip_runtime.h", "sm_20_intrinsics.h": "hip/hip_runtime.h",
    "sm_30_intrinsics.h": "hip/hip_runtime.h", "sm_32_intrinsics.h": "hip/hip_runtime.h",
    "sm_60_atomic_functions.h": "hip/hip_runtime.h",
    "cuda_occupancy.h": None, "cuda_pipeline.h": None, "cuda_pipeline_primitives.h": None,
    "cuda_awbarrier.h": None, "cuda_awbarrier_primitives.h": None, "cudaProfiler.h": None,
    "cuda_egl_interop.h": None, "cuda_vdpau_interop.h": None, "cudaGL.h": None, "cudaEGL.h": None,
    "cudaVDPAU.h": None, "cudaTypedefs.h": None, "cuda_stdint.h": None,
}
HEADER_NOTES = {
    "cuda.h": "HIP declares the driver-style API in hip_runtime_api.h, included by hip_runtime.h",
    "device_launch_parameters.h": "threadIdx/blockIdx/blockDim/gridDim come with hip_runtime.h",
    "cuda_profiler_api.h": "hipProfilerStart/hipProfilerStop are in hip_runtime_api.h",
    "cudaProfiler.h": "driver profiler API (cuProfilerStart/Stop): no HIP header",
    "cuda_pipeline.h": "asynchronous copy pipelines (memcpy_async) have no HIP equivalent",
    "cuda_awbarrier.h": "arrive/wait barriers have no HIP equivalent",
    "cuda_fp8.h": "hip_fp8.h: MI300 (gfx942) uses the FNUZ encodings, MI350 (gfx950) the OCP ones",
}


def header_rows(h72: Hip, h64: Hip) -> list[dict]:
    rows = []
    for cuda, hip in HEADERS.items():
        src = f"{cuda} {CUDA_VER}"
        if not (CUDA / cuda).is_file():
            continue
        if hip and (R72 / hip).is_file():
            since = "" if (R64 / hip).is_file() else "7.2"
            rows.append(dict(cuda=cuda, hip=hip, roc="", kind="header", status="supported", hip_since=since,
                             transform="", notes=HEADER_NOTES.get(cuda, ""), source=f"{src}; {hip} ROCm 7.2"))
        else:
            rows.append(dict(cuda=cuda, hip="", roc="", kind="header", status="unsupported", hip_since="",
                             transform="", notes=HEADER_NOTES.get(cuda, "no HIP counterpart in ROCm 7.2"),
                             source=src))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for the proposed CSV files")
    ap.add_argument("--review", action="store_true", help="print signature differences to review")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    h72, h64 = load_hip(R72, "7.2"), load_hip(R64, "6.4")
    tables = make_tables(h72, h64)
    tables["headers"] = header_rows(h72, h64)
    for line in bridge_by_value(tables, h72, h64):
        if args.review:
            print(line)
    for r in tables["runtime"] + tables["lowp"] + tables["device"]:
        if r["cuda"] in ROW_NOTES and r["hip"]:
            r["notes"], extra = ROW_NOTES[r["cuda"]]
            r["source"] += extra
        elif r["cuda"] in DEFAULT_ARGS and r["hip"]:
            r["notes"] = "CUDA gives the last argument a default; HIP does not"
        if r["cuda"] in HAND_UNSUPPORTED:
            r.update(hip="", status="unsupported", hip_since="", transform="",
                     notes=HAND_UNSUPPORTED[r["cuda"]])
    decls = {"runtime": cuda_decl(RUNTIME_HEADERS), "driver": cuda_decl(DRIVER_HEADERS)}
    for area, r, diff in review_signatures(tables, decls, h72):
        if r["cuda"] in SIGNATURE_OK:
            continue
        if args.review:
            print("SIGNATURE", area, r["cuda"], "->", r["hip"], diff)
        r.update(notes=f"{r['hip']} exists but its parameters differ ({diff})", hip="",
                 status="unsupported", hip_since="", transform="", source=r["source"].split(";")[0])
    for line in versioned_and_tags(tables, h72, h64):   # after the review: copies reviewed rows
        if args.review:
            print(line)
    for r in tables["runtime"]:
        if r["cuda"] in MAX_ARGS_ROWS:
            r["hip"], r["transform"], r["notes"] = MAX_ARGS_ROWS[r["cuda"]]
            r.update(status="supported", hip_since="",
                     source=r["source"].split(";")[0] + "; hip_runtime_api.h ROCm 7.2")
    for area in ("runtime", "driver"):
        for r in tables[area]:
            if r["cuda"] in MEMLOC:
                r["hip"], r["transform"] = MEMLOC[r["cuda"]]
                r.update(status="supported", hip_since="", notes=MEMLOC_NOTE)
    for area, rows in tables.items():
        write(args.out / f"{area}.csv", rows)
        counts: dict[str, int] = {}
        for r in rows:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        print(f"{area}.csv: {len(rows)} rows {counts}")
    return 0



# -- enumerators and flags matched by value ------------------------------------------------------
#
# The naming rules miss driver enumerators and flags whose HIP name is spelled after the runtime
# API (CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK -> hipDeviceAttributeMaxThreadsPerBlock). CUDA
# gives each such driver value the same number as its runtime twin (CU_DEVICE_ATTRIBUTE_X and
# cudaDevAttrX, CU_MEMHOSTALLOC_PORTABLE and cudaHostAllocPortable), so a driver value takes the
# HIP name of the runtime value with the same number in the paired enum or flag family. Where the
# HIP enum itself keeps CUDA's numbering (hipError_t, hipJitOption, ...), a CUDA value takes the
# HIP enumerator with its number directly.

CUDA_VALUE_HEADERS = ["cuda.h", "driver_types.h", "library_types.h", "cuda_gl_interop.h", "cudaGL.h",
                      "texture_types.h", "surface_types.h"]

# driver flag families (macros, or enumerators of enums without a runtime twin) -> runtime family
FLAG_FAMILIES = [
    ("CU_CTX_", "cudaDevice"), ("CU_MEMHOSTALLOC_", "cudaHostAlloc"),
    ("CU_MEMHOSTREGISTER_", "cudaHostRegister"), ("CU_MEMATTACH_", "cudaMemAttach"),
    ("CUDA_ARRAY3D_", "cudaArray"), ("CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_", "cudaCooperativeLaunchMultiDevice"),
    ("CU_OCCUPANCY_", "cudaOccupancy"), ("CU_IPC_MEM_", "cudaIpcMem"),
    ("CU_GL_DEVICE_LIST_", "cudaGLDeviceList"), ("CU_GRAPHICS_REGISTER_FLAGS_", "cudaGraphicsRegisterFlags"),
    ("CU_GRAPHICS_MAP_RESOURCE_FLAGS_", "cudaGraphicsMapFlags"),
]
# enum twins whose HIP types differ, so the pairing by HIP type does not find them
ENUM_TWINS = {"CUsharedconfig": "cudaSharedMemConfig", "CUjit_option": "cudaJitOption"}

# reviewed value matches that are not the same meaning
VALUE_DENY = {
    "CU_STREAM_WAIT_VALUE_GEQ": "hipStreamWaitValueGte compares (*addr & mask) >= value; CUDA's GEQ is a "
                                "wrap-around comparison (int32_t)(*addr - value) >= 0",
    "CU_DEVICE_ATTRIBUTE_GPU_OVERLAP": "a yes/no attribute; HIP only has hipDeviceAttributeAsyncEngineCount (a count)",
    "cudaDevAttrGpuOverlap": "a yes/no attribute; HIP only has hipDeviceAttributeAsyncEngineCount (a count)",
}
# HIP enumerators that reuse a CUDA number for a HIP-only meaning (911/912 are CUDA's external-device
# and cluster-size errors; HIP uses them for channel descriptors and textures; CUDA's conditional graph
# node is HIP's memcpy-to-symbol node)
HIP_OWN_VALUES = {"hipErrorInvalidChannelDescriptor", "hipErrorInvalidTexture", "hipGraphNodeTypeMemcpyToSymbol",
                  "hipGraphNodeTypeMemcpyFromSymbol"}
# CUDA's per-dimension texture/surface limits (width, height, depth, layers): HIP has one attribute
# per texture/surface shape (hipDeviceAttributeMaxTexture2DLayered, ...) whose value covers several
# dimensions, so a per-dimension query has no one-to-one HIP name
MULTI_DIM = re.compile(r"^(cudaDevAttrMax(Texture|Surface)\w*(Width|Height|Depth|Layers|Pitch|Alt)"
                       r"|CU_DEVICE_ATTRIBUTE_MAXIMUM_(TEXTURE|SURFACE)\w*)$")
MULTI_DIM_NOTE = ("HIP reports this limit through {hip}, one attribute for all the dimensions of that "
                  "shape; there is no per-dimension HIP attribute")


def multi_dim_key(name: str) -> str:
    """cudaDevAttrMaxTexture2DLayeredHeight / CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT
    -> 'texture2dlayered' (the shape, without the dimension)."""
    n = name.replace("CU_DEVICE_ATTRIBUTE_MAXIMUM_", "").replace("cudaDevAttrMax", "").lower().replace("_", "")
    n = n.replace("array", "layered").replace("mipmapped", "mipmap")
    return re.sub(r"(width|height|depth|layers|numlayers|pitch|alternate|alt)+$", "", n) + (
        "alt" if n.endswith(("alternate", "alt")) else "")


MULTI_DIM_HIP = {k.lower(): "hipDeviceAttributeMax" + k for k in (
    "Texture1DLayered", "Texture2DLayered", "Texture2DGather", "Texture2DLinear", "Texture2DMipmap",
    "Texture3DAlt", "TextureCubemapLayered", "Surface1DLayered", "Surface2D", "Surface2DLayered",
    "Surface3D", "SurfaceCubemapLayered")}

_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|\d+[A-Za-z]?|[A-Z]+")
_PREFIX_WORDS = {"cu", "cuda", "hip", "hiprt", "cudart"}


def words(name: str) -> set[str]:
    out = set()
    for part in name.split("_"):
        out |= {w.lower() for w in _WORDS.findall(part)}
    return out - _PREFIX_WORDS


def similarity(a: str, b: str, drop: set[str] = frozenset()) -> float:
    wa, wb = words(a) - drop, words(b) - drop
    return len(wa & wb) / len(wa) if wa else 0.0


def bridge_by_value(tables: dict[str, list[dict]], h72: Hip, h64: Hip) -> list[str]:
    cv = scan_values([CUDA / f for f in CUDA_VALUE_HEADERS if (CUDA / f).is_file()])
    hv = scan_values(header_files(R72 / "hip"))
    rows = {area: {r["cuda"]: r for r in tables[area]} for area in ("runtime", "driver")}
    log: list[str] = []

    def hip_of(name: str) -> str:
        for area in ("runtime", "driver"):
            r = rows[area].get(name)
            if r and r["hip"]:
                return r["hip"]
        return ""

    def adopt(r: dict, hip: str, note: str) -> None:
        r.update(hip=hip, status="supported", notes=note,
                 hip_since="" if hip in h64.decl.names() or hip in h64.tokens else "7.2",
                 source=r["source"].split(";")[0] + "; " + hip_source(h72, hip))
        log.append(f"VALUE {r['cuda']} -> {hip}: {note}")

    def hip_members(hip_type: str) -> list[str]:
        return hv.members.get(hip_type) or hv.members.get(hv.tag_of.get(hip_type, ""), []) or []

    def pick(name: str, cands: list[str], need: float, drop: set[str] = frozenset()) -> str:
        cands = sorted(dict.fromkeys(c for c in cands if c and h72.kind(c)),
                       key=lambda c: -similarity(name, c, drop))
        if cands and similarity(name, cands[0], drop) >= need:
            return cands[0]
        return ""

    # 1. HIP enums that keep CUDA's numbering: the HIP enumerator with the same value, when the
    #    enumerators that share a value also share their names' words (hipJitOption, hipMemPoolAttr)
    for area in ("runtime", "driver"):
        for etype, members in cv.members.items():
            hip_type = hip_of(etype)
            hm = hip_members(hip_type) if hip_type else []
            if not hm:
                continue
            drop = words(etype) | words(hip_type) | words(cv.tag_of.get(etype, ""))
            by_value: dict[int, list[str]] = {}
            for h in hm:
                if h in hv.value:
                    by_value.setdefault(hv.value[h], []).append(h)
            pairs = [(m, by_value[cv.value[m]]) for m in members if cv.value[m] in by_value]
            good = sum(1 for m, hs in pairs
                       if hip_of(m) in hs or max(similarity(m, h, drop) for h in hs) >= 0.5)
            mirrored = good >= 3 and good >= 0.8 * len(pairs)
            # any family: the HIP enumerator whose name has exactly the same words (the number may
            # differ where HIP leaves out CUDA-only values: CU_JIT_POSITION_INDEPENDENT_CODE)
            for mname in members:
                r = rows[area].get(mname)
                if not r or r["hip"] or mname in VALUE_DENY:
                    continue
                same = [h for h in hm if words(mname) - drop == words(h) - drop and h not in HIP_OWN_VALUES]
                if len(same) == 1:
                    adopt(r, same[0], f"the {hip_type} enumerator of the same name")
            if not mirrored:
                continue
            for mname, hs in pairs:
                r = rows[area].get(mname)
                if not r or r["hip"] or mname in VALUE_DENY:
                    continue
                hs = [h for h in hs if h not in HIP_OWN_VALUES]
                hip = pick(mname, hs, 0.0 if hip_type == "hipError_t" else 0.5, drop)
                if hip:
                    adopt(r, hip, f"{hip_type} keeps CUDA's numbering: {hip} has the value of {mname} "
                                  f"({cv.value[mname]})")

    # 2. driver value -> runtime value with the same number in the twin enum or flag family
    twins: dict[str, list[str]] = {}
    for dtype in cv.members:
        if not dtype.startswith("CU"):
            continue
        h = hip_of(dtype)
        twins[dtype] = [rtype for rtype in cv.members if rtype.startswith("cuda") and h and hip_of(rtype) == h]
        if dtype in ENUM_TWINS:
            twins[dtype].append(ENUM_TWINS[dtype])
    runtime_by_family = {}
    for dp, rp in FLAG_FAMILIES:
        runtime_by_family[dp] = [n for n in rows["runtime"] if n.startswith(rp) and n in cv.value
                                 and rows["runtime"][n]["kind"] in ("macro", "enum")]
    for name, r in rows["driver"].items():
        if r["hip"] or name not in cv.value or name in VALUE_DENY:
            continue
        v = cv.value[name]
        cands: list[str] = []
        dtype = cv.enum_of.get(name)
        for rtype in twins.get(dtype, []):
            cands += [m for m in cv.members[rtype] if cv.value[m] == v]
        for dp, rnames in runtime_by_family.items():
            if name.startswith(dp):
                cands += [m for m in rnames if cv.value[m] == v]
        hips = {hip_of(c): c for c in cands if hip_of(c)}
        if not hips:
            continue
        if len(hips) > 1:
            best = pick(name, list(hips), 0.0)
            hips = {best: hips[best]} if best else {}
        for hip, rname in hips.items():
            adopt(r, hip, f"same value as {rname} ({v}), which HIP names {hip}")

    for area in ("runtime", "driver"):
        for r in tables[area]:
            if r["hip"]:
                continue
            if r["cuda"] in VALUE_DENY:
                r["notes"] = VALUE_DENY[r["cuda"]]
            elif MULTI_DIM.match(r["cuda"]):
                what = MULTI_DIM_HIP.get(multi_dim_key(r["cuda"]))
                if what and h72.kind(what):
                    r["notes"] = MULTI_DIM_NOTE.format(hip=what)
    return log


# CUDA 13 moved these to a cudaMemLocation argument; CUDA 12 code passes a device number. The row
# keeps HIP's device form and the transform picks the _v2 (location) form per call.
MEMLOC_NOTE = ("CUDA 13 takes a cudaMemLocation where CUDA 12 took a device number: a call passing a "
               "location becomes the _v2 function (ROCm 7.2), a device number keeps the plain one")
MEMLOC = {
    "cudaMemPrefetchAsync": ("hipMemPrefetchAsync", "memloc:2:hipMemPrefetchAsync_v2:7.2"),
    "cudaMemAdvise": ("hipMemAdvise", "memloc:3:hipMemAdvise_v2:7.2"),
    "cuMemPrefetchAsync": ("hipMemPrefetchAsync", "memloc:2:hipMemPrefetchAsync_v2:7.2"),
    "cuMemAdvise": ("hipMemAdvise", "memloc:3:hipMemAdvise_v2:7.2"),
    "cuMemPrefetchAsync_v2": ("hipMemPrefetchAsync", "memloc:2:hipMemPrefetchAsync_v2:7.2"),
    "cuMemAdvise_v2": ("hipMemAdvise", "memloc:3:hipMemAdvise_v2:7.2"),
}

# reviewed: calls with at most N arguments are the same in HIP (CUDA 13 inserted a parameter later on)
MAX_ARGS_ROWS = {
    "cudaStreamGetCaptureInfo": ("hipStreamGetCaptureInfo_v2", "max_args:5",
                                 "CUDA 13 inserts edgeData_out before numDependencies_out: calls with up "
                                 "to 5 arguments match hipStreamGetCaptureInfo_v2, longer ones are reported"),
}

# reviewed: same name in HIP, different signature the header scan cannot see
HAND_UNSUPPORTED = {
    "cudaGraphExecUpdate": "CUDA 12+ takes (exec, graph, cudaGraphExecUpdateResultInfo*); hipGraphExecUpdate "
                           "keeps the CUDA 11 form (exec, graph, hipGraphNode_t*, hipGraphExecUpdateResult*): "
                           "rewrite the call by hand",
}

# reviewed notes kept on regenerated rows: cuda -> (notes, addition to the source)
ROW_NOTES = {
    **{f"atomic{op}_block": ("HIP has no block-scoped atomics; the device-scoped one is stronger "
                             "(correct, maybe slower)", "")
       for op in ("Add", "Sub", "Exch", "Min", "Max", "Inc", "Dec", "CAS", "And", "Or", "Xor")},
    "__float2bfloat16_rn": ("HIP's __float2bfloat16 converts with static_cast<__bf16>, which rounds to "
                            "nearest even like CUDA's _rn", " (__float2bfloat16, amd_hip_bf16.h)"),
    "cudaGraphInstantiate": ("CUDA 12+ cudaGraphInstantiate(exec, graph, flags = 0) is HIP's WithFlags form; "
                             "hipGraphInstantiate keeps the 5-argument CUDA 11 signature", ""),
    "cudaMallocHost": ("C++: HIP's template overload hipHostMalloc(T**, size, flags = hipHostMallocDefault) takes "
                       "the same two arguments; C code must pass hipHostMallocDefault as a third; hipMallocHost "
                       "is deprecated", " (template hipHostMalloc)"),
}

_VERSIONED_DEFINE = re.compile(
    r"^[ \t]*#[ \t]*define[ \t]+(cu\w+)[ \t]+(?:__CUDA_API_PT(?:DS|SZ)\(\s*)?(\1_v\d+)\s*\)?[ \t]*$", re.M)


def versioned_and_tags(tables: dict[str, list[dict]], h72: Hip, h64: Hip) -> list[str]:
    """Rows for the versioned names CUDA declares behind the plain ones (cuMemAlloc is
    `#define cuMemAlloc cuMemAlloc_v2`; CUDA_MEMCPY2D is `typedef CUDA_MEMCPY2D_v2 CUDA_MEMCPY2D`): the
    same HIP name as the plain name. Struct/enum tags whose CUDA typedef maps to a HIP typedef of
    a tagged struct/enum: the HIP tag (CUDA_MEMCPY2D_st -> hip_Memcpy2D, CUfunc_st -> ihipModuleSymbol_t)."""
    log: list[str] = []
    cv = scan_values([CUDA / f for f in CUDA_VALUE_HEADERS if (CUDA / f).is_file()])
    hv = scan_values(header_files(R72 / "hip"))
    hv64 = scan_values(header_files(R64 / "hip"))
    driver = tables["driver"]
    rows = {r["cuda"]: r for area in ("runtime", "driver") for r in tables[area]}

    def add(name: str, base: dict, kind: str, note: str, src: str) -> None:
        r = dict(base, cuda=name, kind=kind, notes=note,
                 source=f"{src} {CUDA_VER}" + (";" + base["source"].split(";", 1)[1] if ";" in base["source"] else ""))
        driver.append(r)
        rows[name] = r
        log.append(f"VERSIONED {name} -> {r['hip']}: {note}")

    text = strip_text(CUDA / "cuda.h")
    for m in _VERSIONED_DEFINE.finditer(text):
        plain, versioned = m.group(1), m.group(2)
        base = rows.get(plain)
        if base and base["hip"] and versioned not in rows and base["kind"] == "function":
            add(versioned, base, "function", f"cuda.h defines {plain} as {versioned}", "cuda.h")
    for plain, versioned in sorted(cv.alias.items()):
        base = rows.get(plain)
        if (re.fullmatch(re.escape(plain) + r"_v\d+", versioned) and base and base["hip"]
                and versioned not in rows and base["kind"] == "type"):
            add(versioned, base, "type", f"cuda.h: typedef {versioned} {plain}", "cuda.h")

    # tags
    names_of_tag: dict[str, set[str]] = {}
    for n, tag in list(cv.struct_tag.items()) + [(n, t) for n, t in cv.tag_of.items() if n != t]:
        names_of_tag.setdefault(tag, set()).add(n)
    aliases_of: dict[str, set[str]] = {}
    for a, b in cv.alias.items():
        aliases_of.setdefault(b, set()).add(a)
    for tag, typedefs in sorted(names_of_tag.items()):
        r = rows.get(tag)
        if not r or r["hip"]:
            continue
        names, todo = set(), list(typedefs)
        while todo:
            n = todo.pop()
            if n not in names:
                names.add(n)
                todo += aliases_of.get(n, ())
        hips = {rows[n]["hip"] for n in names if n in rows and rows[n]["hip"] and rows[n]["kind"] == "type"}
        is_enum = tag in cv.tag_of.values() and tag.endswith("_enum") or tag in cv.members
        htags = {hv.tag_of.get(h) if is_enum else hv.struct_tag.get(h) for h in hips} - {None}
        htags = {t for t in htags if h72.tags.get(t) == ("enum" if is_enum else "struct")}
        if len(htags) != 1:
            continue
        hip = htags.pop()
        via = sorted(n for n in names if n in rows and rows[n]["hip"])[0]
        r.update(hip=hip, status="supported", hip_since="" if hip in h64.tags else "7.2",
                 notes=f"struct/enum tag of {via}: maps to the tag of its HIP type {rows[via]['hip']}",
                 source=r["source"].split(";")[0] + "; " + hip_source(h72, rows[via]["hip"]))
        log.append(f"TAG {tag} -> {hip} (via {via} -> {rows[via]['hip']})")
    return log


def strip_text(path: Path) -> str:
    from cuda_names import strip_comments
    return strip_comments(path.read_text(encoding="utf-8", errors="replace"))


if __name__ == "__main__":
    sys.exit(main())
