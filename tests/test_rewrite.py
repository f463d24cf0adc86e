"""The rewriter on small inputs: positions, qualified names, aliases, versions, --roc plans."""

from __future__ import annotations

from porter.engine import EngineOptions, process_one
from porter.mappings.index import load_index
from porter.rewrite.cuda import PortOptions, roc_plan
from porter.rules.base import RuleOptions


def port(src: str, version=(7, 2), name: str = "t.cu", **kw):
    opts = EngineOptions(
        port=PortOptions(rocm_version=version, **kw), rules=RuleOptions(), run_rules=False
    )
    res = process_one(name, src.encode(), opts)
    return res.new_data.decode(), res.findings


def test_qualified_rows_and_namespace_aliases():
    src = (
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        "__global__ void k(float* p) {\n"
        "  auto t = cg::tiled_partition<16>(cg::this_thread_block());\n"
        "  p[0] = cg::reduce(t, p[1], cg::plus<float>());\n"
        "  p[1] = cooperative_groups::reduce(t, p[2], cooperative_groups::plus<float>());\n}\n"
    )
    out, findings = port(src)
    unsupported = sorted(f.name for f in findings if f.code == "PT002")
    assert unsupported == [
        "cg::plus",
        "cg::reduce",
        "cooperative_groups::plus",
        "cooperative_groups::reduce",
    ]
    assert "cg::tiled_partition<16>(cg::this_thread_block())" in out


def test_thrust_cuda_policy_and_cub_namespace():
    out, _ = port(
        "#include <thrust/system/cuda/execution_policy.h>\n"
        "void f(cudaStream_t s) { auto p = thrust::cuda::par.on(s); "
        "cub::DeviceReduce::Sum(0); }\n"
    )
    assert "#include <thrust/system/hip/execution_policy.h>" in out
    assert "thrust::hip::par.on(s)" in out and "hipcub::DeviceReduce::Sum" in out
    assert "hipStream_t" in out


def test_identity_rows_still_follow_the_target_version():
    src = "__global__ void k(int* p) { p[0] = __reduce_add_sync(0xffffffffu, p[1]); }\n"
    _, old = port(src, version=(6, 4))
    _, new = port(src, version=(7, 2))
    assert any(f.code == "PT002" and f.name == "__reduce_add_sync" for f in old)
    assert not any(f.code == "PT002" for f in new)


def test_comments_strings_and_macro_bodies():
    src = (
        "#include <cuda_runtime.h>\n"
        "#define ALLOC(p, n) cudaMalloc(&p, n) /* cudaFree */\n"
        'const char* s = "cudaMalloc";  // cudaMalloc\n'
        "void f(float* d) { ALLOC(d, 4); cudaFree(d); }\n"
    )
    out, _ = port(src)
    assert "#define ALLOC(p, n) hipMalloc(&p, n) /* cudaFree */" in out
    assert '"cudaMalloc";  // cudaMalloc' in out and "hipFree(d)" in out


def test_field_names_and_project_declarations_are_not_api_references():
    src = (
        "struct Ctx { int cudaStream; };\n"
        "int cudaHelperCount(int x) { return x; }\n"
        "int g(Ctx c) { return c.cudaStream + cudaHelperCount(1); }\n"
    )
    out, findings = port(src)
    assert out == src
    # declared in the file: filtered project-wide by the engine's declared-name pass
    from porter.engine import filter_declared

    r = process_one(
        "t.cu",
        src.encode(),
        EngineOptions(port=PortOptions(), rules=RuleOptions(), run_rules=False),
    )
    filter_declared([r])
    assert not [f for f in r.findings if f.code == "PT001"]


def test_roc_plan_keeps_a_library_on_hip_when_one_name_lacks_a_roc_equivalent():
    idx = load_index()
    areas, blockers = roc_plan(idx, [b"cublasSgemm(h); cublasCreate(&h);"], (7, 2))
    assert "blas" in areas and not blockers
    # cublasGemmEx takes cudaDataType arguments, rocblas_gemm_ex rocblas_datatype ones
    data_type_call = [b"cublasSgemm(h); cublasGemmEx(h);"]
    areas, blockers = roc_plan(idx, data_type_call, (7, 2))
    assert "blas" not in areas and "cublasGemmEx" in blockers["blas"]
    # complex calls have roc* names (porter defines ROCM_MATHLIBS_API_USE_HIP_COMPLEX)
    areas, blockers = roc_plan(idx, [b"cublasSgemm(h); cublasCgemm(h);"], (7, 2))
    assert "blas" in areas and not blockers


def test_hip_launch_syntax_keeps_inner_rewrites():
    out, _ = port(
        "__global__ void k(cudaStream_t* s);\n"
        "void h(cudaStream_t* s, int n) { k<<<dim3(n), 64, 0, s[0]>>>(s); }\n",
        launch_syntax="hip",
    )
    assert "hipLaunchKernelGGL(k, dim3(n), dim3(64), 0, s[0], s);" in out
    assert "hipStream_t* s" in out


def test_include_only_files_are_ported_without_a_parse():
    src = (
        "/* a commented-out include:\n#include <cuda_runtime.h>\n*/\n"
        '#include <cuda_fp16.h>\n#include "cub/cub.cuh"\n#include <vector>\n'
    )
    out, findings = port(src)
    assert "#include <cuda_runtime.h>\n*/" in out  # inside the block comment: kept
    assert "#include <hip/hip_fp16.h>" in out and '#include "hipcub/hipcub.hpp"' in out
    assert "#include <vector>" in out
    from porter.rewrite.cuda import include_directives

    # what the rules see (ctx.includes): the three directives, not the commented-out line
    paths = [d.path for d in include_directives(src.encode())]
    assert paths == ["cuda_fp16.h", "cub/cub.cuh", "vector"]


def test_only_cuda_toolkit_include_paths_count_as_unconverted():
    out, findings = port(
        '#include <cutlass/cutlass.h>\n#include "custom_kernels.h"\n'
        "#include <cuda/std/barrier>\n#include <cusparseLt.h>\n"
    )
    unconverted = sorted(f.name for f in findings if f.code in ("PT001", "PT002"))
    assert "cutlass/cutlass.h" not in unconverted and "custom_kernels.h" not in unconverted
    assert "cuda/std/barrier" in unconverted and "cusparseLt.h" in unconverted


def test_default_argument_transform():
    out, _ = port(
        "void f(cudaGraph_t g) { cudaGraphExec_t e; cudaGraphInstantiate(&e, g); "
        "cudaGraphInstantiate(&e, g, 1); }\n"
    )
    assert "hipGraphInstantiateWithFlags(&e, g, 0);" in out
    assert "hipGraphInstantiateWithFlags(&e, g, 1);" in out


def test_memory_hints_follow_the_cuda12_or_cuda13_form_of_each_call():
    src = (
        "void f(float* um, size_t n, int dev, cudaStream_t s) {\n"
        "  cudaMemPrefetchAsync(um, n, dev, s);\n"
        "  cudaMemAdvise(um, n, cudaMemAdviseSetAccessedBy, cudaCpuDeviceId);\n"
        "  cudaMemLocation loc = {cudaMemLocationTypeDevice, dev};\n"
        "  cudaMemPrefetchAsync(um, n, loc, 0, s);\n"
        "  cudaMemAdvise(um, n, cudaMemAdviseSetReadMostly, loc);\n}\n"
    )
    out, _ = port(src)
    assert "hipMemPrefetchAsync(um, n, dev, s);" in out
    assert "hipMemAdvise(um, n, hipMemAdviseSetAccessedBy, hipCpuDeviceId);" in out
    assert "hipMemPrefetchAsync_v2(um, n, loc, 0, s);" in out
    assert "hipMemAdvise_v2(um, n, hipMemAdviseSetReadMostly, loc);" in out
    out64, findings = port(src, version=(6, 4))
    assert "hipMemPrefetchAsync(um, n, dev, s);" in out64
    assert sum(1 for f in findings if f.code == "PT002") == 2


def test_make_cuda_helpers():
    out, _ = port(
        "void f() { cudaExtent e = make_cudaExtent(1, 2, 3); "
        "cudaPitchedPtr p = make_cudaPitchedPtr(0, 4, 1, 1); }\n"
    )
    assert "make_hipExtent(1, 2, 3)" in out and "make_hipPitchedPtr(0, 4, 1, 1)" in out


def test_macro_bodies_that_are_a_single_name():
    out, _ = port(
        "#define CUBLAS_LOWP CUDA_R_16BF\n#define gpuStream_t cudaStream_t\n"
        "#define floatX __nv_bfloat16\n#define D2H cudaMemcpyDeviceToHost\n",
        name="t.h",
    )
    assert out == (
        "#define CUBLAS_LOWP HIP_R_16BF\n#define gpuStream_t hipStream_t\n"
        "#define floatX __hip_bfloat16\n#define D2H hipMemcpyDeviceToHost\n"
    )


def test_two_cuda_headers_becoming_one_hip_header_are_included_once():
    out, _ = port(
        "#include <cuda.h>\n#include <cuda_runtime.h>\n#include <vector>\n"
        "#ifdef USE_DRIVER\n#include <cuda.h>\n#else\n"
        "#include <cuda_runtime.h>\n#endif\n"
    )
    assert out == (
        "#include <hip/hip_runtime.h>\n#include <vector>\n"
        "#ifdef USE_DRIVER\n#include <hip/hip_runtime.h>\n#else\n"
        "#include <hip/hip_runtime.h>\n#endif\n"
    )
    again, _ = port(out)
    assert again == out


def test_max_args_transform():
    out, findings = port(
        "void f(cudaStream_t s, cudaStreamCaptureStatus* st, unsigned long long* "
        "id,\n"
        "       const cudaGraphEdgeData** e, size_t* n, cudaGraph_t* g, const "
        "cudaGraphNode_t** d) {\n"
        "  cudaStreamGetCaptureInfo(s, st, id);\n"
        "  cudaStreamGetCaptureInfo(s, st, id, g, d, e, n);\n}\n"
    )
    assert "hipStreamGetCaptureInfo_v2(s, st, id);" in out
    assert "cudaStreamGetCaptureInfo(s, st, id, g, d, e, n);" in out
    assert [
        f.line for f in findings if f.code == "PT002" and f.name == "cudaStreamGetCaptureInfo"
    ] == [4]


def test_vendor_switch_keeps_the_nvidia_side_and_reports_nothing_there():
    src = (
        "#if defined(USE_ROCM)\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n"
        "inline void reset() { cudaCtxResetPersistingL2Cache(); }\n#endif\n"
        "#ifndef __HIP_PLATFORM_AMD__\n__device__ unsigned s(void* p) { return "
        "__cvta_generic_to_shared(p); }\n#endif\n"
        "void f(float* d) { cudaFree(d); }\n"
    )
    out, findings = port(src)
    assert "#include <cuda_runtime.h>" in out and "cudaCtxResetPersistingL2Cache();" in out
    assert "__cvta_generic_to_shared(p)" in out and "hipFree(d)" in out
    assert not [f for f in findings if f.code in ("PT001", "PT002")]


def test_project_definitions_of_cuda_names_are_not_renamed():
    src = (
        "#define cudaStreamNonBlocking hipStreamNonBlocking\n"
        "#define cudaMallocHost(p, n) hipHostMalloc(p, n, hipHostMallocDefault)\n"
        "namespace cub = hipcub;\n"
        "inline const char* cudaGetErrorName(hipError_t e) { return hipGetErrorName(e); }\n"
        "#undef cudaMalloc\n"
    )
    out, _ = port(src)
    assert out == src


def test_a_project_shim_layer_is_left_to_do_its_job(tmp_path):
    import subprocess
    import sys

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "vendors.h").write_text(
        "#pragma once\n#if defined(GGML_USE_HIP)\n#include <hip/hip_runtime.h>\n"
        "#define cudaError_t hipError_t\n#define cudaSuccess hipSuccess\n#define cudaMalloc "
        "hipMalloc\n"
        "#else\n#include <cuda_runtime.h>\n#endif\n"
    )
    use = (
        '#include "vendors.h"\n__global__ void k(float* p) { p[threadIdx.x] = 0.f; }\n'
        "cudaError_t alloc(float** p) { cudaError_t e = cudaMalloc(p, 4); return e == "
        "cudaSuccess ? e : e; }\n"
        "void sync() { cudaDeviceSynchronize(); }\n"
    )
    (tmp_path / "src" / "use.cu").write_text(use)
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "porter.cli", "port", str(tmp_path / "src"), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert (out / "vendors.h").read_text() == (tmp_path / "src" / "vendors.h").read_text()
    ported = (out / "use.cu").read_text()
    assert "cudaError_t e = cudaMalloc(p, 4)" in ported  # the shim's names stay
    assert "hipDeviceSynchronize()" in ported  # the rest is ported
    assert "#include <hip/hip_runtime.h>" not in ported  # the shim header includes it
