// Warp votes, shuffles, atomics, a shared-memory histogram and an inline-asm
// elect.sync whose predicate has no '%' (as sm_90 code writes it).
__global__ void histogram(const int *keys, int *bins, int n) {
  __shared__ int local_bins[16];
  int tid = threadIdx.x;
  if (tid < 16) local_bins[tid] = 0;
  __syncthreads();
#pragma unroll 1
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local_bins[keys[i] & 15], 1);
  __syncthreads();
  if (tid < 16) atomicAdd(&bins[tid], local_bins[tid]);
}

__global__ void warp_sum(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  unsigned active = __ballot_sync(0xffffffffu, v != 0.0f);
#pragma unroll 1
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if (__any_sync(0xffffffffu, v > 100.0f)) v = 100.0f;
  if ((threadIdx.x & 31) == 0) out[i / 32] = v + __popc(active);
}

__device__ __forceinline__ unsigned elect_one() {
  unsigned is_leader;
  asm volatile("{\n\t.reg .pred P1;\n\telect.sync _|P1, 0xffffffff;\n\tselp.b32 %0, 1, 0, P1;\n\t}"
               : "=r"(is_leader));
  return is_leader;
}

__global__ void leader_count(int *counter, int *flags) {
  if (elect_one()) atomicAdd(counter, 1);
  flags[threadIdx.x] = 1;
}
