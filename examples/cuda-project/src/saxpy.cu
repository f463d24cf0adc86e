#include "gpukit/common.cuh"
#include "gpukit/kernels.cuh"

namespace gpukit {
namespace {

// Grid-stride loop so that any grid size covers any n.
__global__ void saxpy_kernel(int n, float alpha, const float* __restrict__ x, float* __restrict__ y) {
  for (int i = global_tid(); i < n; i += blockDim.x * gridDim.x) {
    y[i] = alpha * x[i] + y[i];
  }
}

}  // namespace

void saxpy(int n, float alpha, const float* x, float* y, cudaStream_t stream) {
  if (n == 0) return;
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int blocks = min(ceil_div(n, kBlockSize), sms * 8);
  saxpy_kernel<<<blocks, kBlockSize, 0, stream>>>(n, alpha, x, y);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gpukit
