// A kernel whose branches all depend on parameters and block indices only:
// value agreement should prove every branch uniform.
__global__ void saxpy_rows(float *y, const float *x, float a, int n, int rows, int mode)
{
    int base = blockIdx.x * n;
    #pragma unroll 1
    for (int r = 0; r < rows; r++) {
        if (mode > 0) {
            #pragma unroll 1
            for (int k = 0; k < n; k++)
                y[base + k] += a * x[r * n + k];
        } else {
            y[base + r] = 0.0f;
        }
    }
}
