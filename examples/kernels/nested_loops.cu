// Loops nested in thread-dependent branches nested in a loop: a stress case for
// divergence (each half of the warp runs its own loop nest, with inner
// data- and thread-dependent loops).
__global__ void nested_loops(float *a, int n, int m)
{
    int t = threadIdx.x;
    float s = a[t];
    #pragma unroll 1
    for (int r = 0; r < n; r++) {
        if (t & 1) {
            #pragma unroll 1
            for (int i = 0; i < (t & 7); i++) {
                s += a[i];
                if (s > 3.0f) {
                    #pragma unroll 1
                    for (int j = 0; j < m; j++)
                        s *= a[j];
                }
            }
        } else {
            #pragma unroll 1
            for (int i = 0; i < m; i++) {
                s -= a[i + t];
                if (t & 2) {
                    #pragma unroll 1
                    for (int j = 0; j < (t >> 2); j++)
                        s += a[j * t];
                }
            }
        }
        if (t & 4) {
            #pragma unroll 1
            for (int k = 0; k < n; k++)
                s = s * 0.5f + a[k];
        }
    }
    a[t] = s;
}
