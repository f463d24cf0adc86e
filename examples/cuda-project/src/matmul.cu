// Shared-memory tiled SGEMM: each block computes a TILE x TILE tile of C, staging tiles of A
// and B through shared memory.
#include "gpukit/common.cuh"
#include "gpukit/kernels.cuh"

namespace gpukit {
namespace {

constexpr int TILE = 16;

__global__ void __launch_bounds__(TILE * TILE)
matmul_tiled(int m, int n, int k, const float* __restrict__ A, const float* __restrict__ B,
             float* __restrict__ C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];  // +1 avoids bank conflicts on the transposed read

  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;

  for (int t = 0; t < k; t += TILE) {
    const int a_col = t + threadIdx.x;
    const int b_row = t + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < m && a_col < k) ? A[row * k + a_col] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (b_row < k && col < n) ? B[b_row * n + col] : 0.0f;
    __syncthreads();

#pragma unroll
    for (int i = 0; i < TILE; ++i) acc = fmaf(As[threadIdx.y][i], Bs[i][threadIdx.x], acc);
    __syncthreads();
  }

  if (row < m && col < n) C[row * n + col] = acc;
}

}  // namespace

void matmul(int m, int n, int k, const float* A, const float* B, float* C, cudaStream_t stream) {
  const dim3 block(TILE, TILE);
  const dim3 grid(ceil_div(n, TILE), ceil_div(m, TILE));
  matmul_tiled<<<grid, block, 0, stream>>>(m, n, k, A, B, C);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gpukit
