// A hotspot-like stencil: each thread updates one cell for a number of
// iterations; border cells take a cheaper path (a thread-dependent branch
// around a loop, so divergence survives if-conversion).
__global__ void hotspot(float *temp, const float *power, int cols, int rows, int iters, float cap)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= cols || y >= rows) return;
    int idx = y * cols + x;
    float t = temp[idx];
    if (x > 0 && x < cols - 1) {
        #pragma unroll 1
        for (int k = 0; k < iters; k++) {
            float w = temp[idx - 1];
            float e = temp[idx + 1];
            t = t + cap * (power[idx] + (w + e - 2.0f * t));
        }
    } else {
        #pragma unroll 1
        for (int k = 0; k < iters; k++)
            t = t + cap * power[idx];
    }
    temp[idx] = t;
}
