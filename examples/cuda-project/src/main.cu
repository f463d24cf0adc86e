// gpukit demo driver: runs SAXPY, a sum reduction and a tiled SGEMM on two streams, times them
// with events and checks every result against a CPU reference.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "gpukit/common.cuh"
#include "gpukit/kernels.cuh"

namespace {

// Affine post-processing applied to the GEMM output: C = scale * C + bias.
struct Epilogue {
  float scale;
  float bias;
};
__constant__ Epilogue c_epilogue;

__global__ void apply_epilogue(int n, float* c) {
  const int i = gpukit::global_tid();
  if (i < n) c[i] = c_epilogue.scale * c[i] + c_epilogue.bias;
}

void fill_random(std::vector<float>& v, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& x : v) x = dist(gen);
}

bool close_enough(float got, float want, float rel = 1e-3f) {
  return std::fabs(got - want) <= rel * std::fmax(1.0f, std::fabs(want));
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  const int m = 256, k = 192, p = 128;  // SGEMM sizes: (m x k) * (k x p)

  int device = 0;
  CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::printf("device %d: %s (sm_%d%d, %d SMs, warp size %d)\n", device, prop.name, prop.major,
              prop.minor, prop.multiProcessorCount, prop.warpSize);

  // Host data (pinned, so that the async copies really overlap).
  float *h_x, *h_y;
  CUDA_CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_y, n * sizeof(float)));
  std::vector<float> x(n), y(n), a(m * k), b(k * p), c(m * p);
  fill_random(x, 1);
  fill_random(y, 2);
  fill_random(a, 3);
  fill_random(b, 4);
  std::copy(x.begin(), x.end(), h_x);
  std::copy(y.begin(), y.end(), h_y);

  // Device buffers.
  float *d_x, *d_y, *d_partial, *d_sum, *d_a, *d_b, *d_c;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_partial, gpukit::reduce_partial_count(n) * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_sum, sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_a, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_b, b.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_c, c.size() * sizeof(float)));

  const Epilogue epi{0.5f, 1.0f};
  CUDA_CHECK(cudaMemcpyToSymbol(c_epilogue, &epi, sizeof(epi)));

  cudaStream_t vec_stream, gemm_stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&vec_stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&gemm_stream, cudaStreamNonBlocking));
  cudaEvent_t start, vec_done, gemm_done;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&vec_done));
  CUDA_CHECK(cudaEventCreate(&gemm_done));

  CUDA_CHECK(cudaEventRecord(start, vec_stream));
  CUDA_CHECK(cudaStreamWaitEvent(gemm_stream, start, 0));

  // Stream 1: y = 2x + y, then sum(y).
  const float alpha = 2.0f;
  CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice, vec_stream));
  CUDA_CHECK(cudaMemcpyAsync(d_y, h_y, n * sizeof(float), cudaMemcpyHostToDevice, vec_stream));
  gpukit::saxpy(n, alpha, d_x, d_y, vec_stream);
  gpukit::reduce_sum(n, d_y, d_partial, d_sum, vec_stream);
  CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost, vec_stream));
  CUDA_CHECK(cudaEventRecord(vec_done, vec_stream));

  // Stream 2: C = epilogue(A * B).
  CUDA_CHECK(cudaMemcpyAsync(d_a, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice, gemm_stream));
  CUDA_CHECK(cudaMemcpyAsync(d_b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice, gemm_stream));
  gpukit::matmul(m, p, k, d_a, d_b, d_c, gemm_stream);
  apply_epilogue<<<gpukit::ceil_div(m * p, gpukit::kBlockSize), gpukit::kBlockSize, 0, gemm_stream>>>(m * p, d_c);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(c.data(), d_c, c.size() * sizeof(float), cudaMemcpyDeviceToHost, gemm_stream));
  CUDA_CHECK(cudaEventRecord(gemm_done, gemm_stream));

  CUDA_CHECK(cudaEventSynchronize(vec_done));
  CUDA_CHECK(cudaEventSynchronize(gemm_done));
  float vec_ms = 0.0f, gemm_ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&vec_ms, start, vec_done));
  CUDA_CHECK(cudaEventElapsedTime(&gemm_ms, start, gemm_done));

  float gpu_sum = 0.0f;
  CUDA_CHECK(cudaMemcpy(&gpu_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference.
  int errors = 0;
  double cpu_sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const float want = alpha * x[i] + y[i];
    cpu_sum += want;
    if (!close_enough(h_y[i], want) && ++errors <= 5)
      std::fprintf(stderr, "saxpy mismatch at %d: %f != %f\n", i, h_y[i], want);
  }
  if (!close_enough(gpu_sum, static_cast<float>(cpu_sum), 1e-2f)) {
    std::fprintf(stderr, "sum mismatch: %f != %f\n", gpu_sum, cpu_sum);
    ++errors;
  }
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < p; ++j) {
      float acc = 0.0f;
      for (int l = 0; l < k; ++l) acc += a[i * k + l] * b[l * p + j];
      const float want = epi.scale * acc + epi.bias;
      if (!close_enough(c[i * p + j], want) && ++errors <= 10)
        std::fprintf(stderr, "matmul mismatch at (%d,%d): %f != %f\n", i, j, c[i * p + j], want);
    }
  }

  std::printf("saxpy+reduce: %.3f ms, sgemm %dx%dx%d: %.3f ms, sum = %f\n", vec_ms, m, p, k,
              gemm_ms, gpu_sum);

  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(vec_done));
  CUDA_CHECK(cudaEventDestroy(gemm_done));
  CUDA_CHECK(cudaStreamDestroy(vec_stream));
  CUDA_CHECK(cudaStreamDestroy(gemm_stream));
  for (float* ptr : {d_x, d_y, d_partial, d_sum, d_a, d_b, d_c}) CUDA_CHECK(cudaFree(ptr));
  CUDA_CHECK(cudaFreeHost(h_x));
  CUDA_CHECK(cudaFreeHost(h_y));

  std::puts(errors == 0 ? "PASSED" : "FAILED");
  return errors == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
