// A kmeans assignment step: each point finds its nearest cluster centre.
__global__ void kmeans_assign(const float *features, const float *clusters, int *membership,
                              int npoints, int nclusters, int nfeatures)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < npoints) {
        int best = 0;
        float best_dist = 3.0e38f;
        #pragma unroll 1
        for (int c = 0; c < nclusters; c++) {
            float dist = 0.0f;
            #pragma unroll 1
            for (int f = 0; f < nfeatures; f++) {
                float d = features[f * npoints + p] - clusters[c * nfeatures + f];
                dist += d * d;
            }
            if (dist < best_dist) {
                best_dist = dist;
                best = c;
            }
        }
        membership[p] = best;
    }
}
