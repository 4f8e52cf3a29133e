// Double-precision math: pow and sin/cos leave nvcc's slow paths as .func
// functions (forward-declared before the entries) called from the kernel.
__global__ void damped_wave(double *out, const double *x, double decay, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double v = x[i];
    out[i] = pow(fabs(v), decay) * sin(v) + cos(2.0 * v);
  }
}

__global__ void growth(double *out, const double *rate, int years, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double acc = 1.0;
#pragma unroll 1
  for (int y = 0; y < years; ++y) acc *= pow(1.0 + rate[i], 0.5 * y);
  out[i] = acc;
}

__global__ void saxpy_f(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
