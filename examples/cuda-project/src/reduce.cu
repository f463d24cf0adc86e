// Two-pass sum reduction: each block reduces a grid-stride slice with warp shuffles, then a
// single block reduces the per-block partial sums.
#include "gpukit/common.cuh"
#include "gpukit/kernels.cuh"

namespace gpukit {
namespace {

constexpr int kMaxBlocks = 1024;

__device__ float block_reduce_sum(float val) {
  __shared__ float warp_sums[32];  // one slot per warp of a 1024-thread block
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;

  val = warp_reduce_sum(val);
  if (lane == 0) warp_sums[warp] = val;
  __syncthreads();

  // The first warp reduces the per-warp sums.
  const int num_warps = blockDim.x / 32;
  val = (threadIdx.x < num_warps) ? warp_sums[lane] : 0.0f;
  if (warp == 0) val = warp_reduce_sum(val);
  return val;
}

__global__ void reduce_kernel(int n, const float* __restrict__ in, float* __restrict__ out) {
  float sum = 0.0f;
  for (int i = global_tid(); i < n; i += blockDim.x * gridDim.x) sum += in[i];
  sum = block_reduce_sum(sum);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

}  // namespace

int reduce_partial_count(int n) { return min(ceil_div(n, kBlockSize), kMaxBlocks); }

void reduce_sum(int n, const float* x, float* partial, float* result, cudaStream_t stream) {
  const int blocks = reduce_partial_count(n);
  reduce_kernel<<<blocks, kBlockSize, 0, stream>>>(n, x, partial);
  CUDA_CHECK_LAUNCH();
  reduce_kernel<<<1, kMaxBlocks, 0, stream>>>(blocks, partial, result);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gpukit
