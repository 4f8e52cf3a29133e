// Pathfinder: a dynamic-programming sweep over rows; threads at the border of
// the tile keep fewer neighbours.
__global__ void pathfinder(const int *wall, int *result, int cols, int rows, int border)
{
    __shared__ int prev[256];
    int tx = threadIdx.x;
    int x = blockIdx.x * blockDim.x + tx;
    prev[tx] = result[x];
    __syncthreads();
    #pragma unroll 1
    for (int r = 0; r < rows; r++) {
        int best = prev[tx];
        if (tx > border && tx < blockDim.x - 1 - border) {
            int left = prev[tx - 1];
            int right = prev[tx + 1];
            best = min(best, min(left, right));
            #pragma unroll 1
            for (int k = 0; k < border; k++)
                best = best + (wall[r * cols + x] >> k);
        }
        __syncthreads();
        prev[tx] = best + wall[r * cols + x];
        __syncthreads();
    }
    result[x] = prev[tx];
}
