// Host-side entry points of the gpukit kernels. All pointers are device pointers; every
// launcher is asynchronous with respect to the host and runs on `stream`.
#pragma once

#include <cuda_runtime.h>

namespace gpukit {

// y[i] = alpha * x[i] + y[i]
void saxpy(int n, float alpha, const float* x, float* y, cudaStream_t stream = 0);

// Sum of x[0..n). `partial` must hold at least reduce_partial_count(n) floats;
// the result is written to *result.
int reduce_partial_count(int n);
void reduce_sum(int n, const float* x, float* partial, float* result, cudaStream_t stream = 0);

// C (m x n) = A (m x k) * B (k x n), row-major, single precision.
void matmul(int m, int n, int k, const float* A, const float* B, float* C, cudaStream_t stream = 0);

}  // namespace gpukit
