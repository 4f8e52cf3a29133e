// Cooperative-groups block reduction, templated on the block size and type:
// one-line scoped blocks (cvta.shared) and many instantiations in one module.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// The shared-window address of a generic pointer, written as the CUDA headers'
// inline asm writes it: a one-line scoped block with its own register.
__device__ __forceinline__ unsigned smem_u32(const void *p) {
  unsigned a;
  asm volatile("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}

template <typename T, int BLOCK>
__global__ void block_sum(const T *in, T *out, int n) {
  __shared__ T buf[BLOCK];
  cg::thread_block cta = cg::this_thread_block();
  int tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  buf[tid] = i < n ? in[i] : T(0);
  cg::sync(cta);
#pragma unroll 1
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) buf[tid] += buf[tid + s];
    cg::sync(cta);
  }
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cta);
  if (warp.meta_group_rank() == 0 && warp.thread_rank() == 0) out[blockIdx.x] = buf[0];
}

__global__ void tile_offsets(unsigned *offs, int stride) {
  __shared__ float tile[256];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  unsigned base = smem_u32(&tile[0]);
  unsigned mine = smem_u32(&tile[(threadIdx.x * stride) & 255]);
  offs[threadIdx.x] = mine - base + (unsigned)tile[threadIdx.x];
}

template __global__ void block_sum<float, 64>(const float *, float *, int);
template __global__ void block_sum<float, 128>(const float *, float *, int);
template __global__ void block_sum<float, 256>(const float *, float *, int);
template __global__ void block_sum<int, 64>(const int *, int *, int);
template __global__ void block_sum<int, 128>(const int *, int *, int);
template __global__ void block_sum<double, 128>(const double *, double *, int);
