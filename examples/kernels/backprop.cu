// A backprop layer: each hidden unit sums its weighted inputs, then squashes.
__global__ void backprop_layer(const float *input, const float *weights, float *hidden,
                               int nin, int nhid)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < nhid) {
        float sum = 0.0f;
        #pragma unroll 1
        for (int i = 0; i < nin; i++)
            sum += weights[i * nhid + j] * input[i];
        hidden[j] = 1.0f / (1.0f + __expf(-sum));
    }
}
