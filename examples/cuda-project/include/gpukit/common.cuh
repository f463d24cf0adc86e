// Common helpers shared by every gpukit translation unit: error checking, index math and
// the warp-level primitives the kernels build on.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

// Abort with file/line information when a CUDA runtime call fails.
#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    cudaError_t err__ = (call);                                                   \
    if (err__ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err__), \
                   __FILE__, __LINE__, cudaGetErrorString(err__));                \
      std::exit(EXIT_FAILURE);                                                    \
    }                                                                             \
  } while (0)

// Check for launch errors (bad configuration) right after a <<<...>>> launch.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

namespace gpukit {

constexpr int kWarpSize = 32;
constexpr int kBlockSize = 256;

__host__ __device__ __forceinline__ int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Global thread index for 1-D grids.
__device__ __forceinline__ int global_tid() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Sum `val` across the 32 lanes of a warp; lane 0 ends up with the total.
__device__ __forceinline__ float warp_reduce_sum(float val) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
    val += __shfl_down_sync(0xffffffff, val, offset);
  return val;
}

__device__ __forceinline__ float warp_reduce_max(float val) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
    val = fmaxf(val, __shfl_xor_sync(0xffffffff, val, offset));
  return val;
}

}  // namespace gpukit
