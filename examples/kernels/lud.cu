// An LU-decomposition diagonal step: threads below the pivot row eliminate.
__global__ void lud_diagonal(float *m, int size)
{
    __shared__ float a[32 * 32];
    int tx = threadIdx.x;
    #pragma unroll 1
    for (int i = 0; i < 32; i++)
        a[i * 32 + tx] = m[i * size + tx];
    __syncthreads();
    #pragma unroll 1
    for (int i = 0; i < 31; i++) {
        if (tx > i) {
            #pragma unroll 1
            for (int j = 0; j < i; j++)
                a[tx * 32 + i] -= a[tx * 32 + j] * a[j * 32 + i];
            a[tx * 32 + i] /= a[i * 32 + i];
        }
        __syncthreads();
    }
    #pragma unroll 1
    for (int i = 1; i < 32; i++)
        m[i * size + tx] = a[i * 32 + tx];
}
