// A shared-memory tree reduction with a divergent tail: the active half
// shrinks each step, and the last warp unrolls without barriers.
__global__ void reduce(const int *in, int *out, int n)
{
    __shared__ volatile int buf[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    buf[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    #pragma unroll 1
    for (int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        #pragma unroll 1
        for (int s = 32; s > 0; s >>= 1)
            if (tid < s)
                buf[tid] += buf[tid + s];
    }
    if (tid == 0)
        out[blockIdx.x] = buf[0];
}
