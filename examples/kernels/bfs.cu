// One BFS step: frontier nodes walk their adjacency lists.
__global__ void bfs_step(const int *start, const int *degree, const int *edges, int *mask,
                         int *visited, int *cost, int nnodes)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < nnodes && mask[v]) {
        mask[v] = 0;
        int first = start[v];
        #pragma unroll 1
        for (int e = first; e < first + degree[v]; e++) {
            int w = edges[e];
            if (!visited[w]) {
                cost[w] = cost[v] + 1;
                visited[w] = 1;
            }
        }
    }
}
