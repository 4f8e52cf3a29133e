// Needleman-Wunsch: anti-diagonal sweep; only threads on the current
// diagonal work, so the branch inside the loop diverges.
__global__ void needle(int *score, const int *ref, int n, int penalty)
{
    __shared__ int tile[33 * 33];
    int tx = threadIdx.x;
    #pragma unroll 1
    for (int i = 0; i <= tx; i++)
        tile[i * 33 + tx] = score[i * n + tx];
    __syncthreads();
    #pragma unroll 1
    for (int m = 0; m < n; m++) {
        if (tx <= m) {
            int x = tx + 1;
            int y = m - tx + 1;
            int diag = tile[(y - 1) * 33 + x - 1] + ref[y * n + x];
            int up = tile[(y - 1) * 33 + x] - penalty;
            int left = tile[y * 33 + x - 1] - penalty;
            tile[y * 33 + x] = max(diag, max(up, left));
        }
        __syncthreads();
    }
    score[tx] = tile[n * 33 + tx];
}
