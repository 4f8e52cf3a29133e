// Calls nvcc keeps: a recursive device function (refused, with its line) and
// printf (an external function without a body: no bound, with its line).
#include <cstdio>
__device__ __noinline__ int leaves(const int *t, int n) { return n <= 1 ? t[n] : leaves(t, n / 2) * leaves(t, n - 1 - n / 2); }

__global__ void tree_leaves(int *out, const int *t, int n) { out[threadIdx.x] = leaves(t, n + threadIdx.x); }

__global__ void report(const int *v, int n) {
  int i = threadIdx.x;
  if (i < n && v[i] < 0) printf("negative value at %d\n", i);
}

__device__ __noinline__ float clamp01(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }

__global__ void normalise(float *x, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = clamp01((x[i] - lo) / (hi - lo));
}
