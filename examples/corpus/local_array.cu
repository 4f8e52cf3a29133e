// A per-thread array in local memory, reached through a generic pointer by a
// function nvcc does not inline (it is also called on global memory, so the
// pointer stays generic), at an index that is the same in every lane.
__device__ __noinline__ int pick(const int *arr, int k) { return arr[k]; }

__global__ void local_pick(int *out, const int *in, int k, int n) {
  int hist[8];
  int tid = threadIdx.x;
#pragma unroll 1
  for (int j = 0; j < 8; ++j) hist[j] = (tid + j) & 3;
  int v = pick(hist, k & 7);    // per lane: the branch below may diverge
  int w = pick(in, k & 7);      // one global address: the same value in every lane
  int acc = 0;
  if (v == 0) {
#pragma unroll 1
    for (int j = 0; j < n; ++j) acc += in[j * 32 + tid];
  }
  if (w > 4) {
#pragma unroll 1
    for (int j = 0; j < n; ++j) acc ^= in[j + tid];
  }
  out[tid] = acc;
}

__global__ void local_scan(float *out, const float *in, int m) {
  float acc[16];
  int tid = threadIdx.x;
  int len = m < 16 ? m : 16;
#pragma unroll 1
  for (int j = 0; j < len; ++j) acc[j] = in[tid * 16 + j];
#pragma unroll 1
  for (int j = 1; j < len; ++j) acc[j] += acc[j - 1];
  out[tid] = len > 0 ? acc[(len - 1) & 15] : 0.0f;
}
