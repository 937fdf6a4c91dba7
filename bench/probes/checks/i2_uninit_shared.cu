#include "common.cuh"
__global__ void k(float* out) {
    __shared__ float tile[64];
    int t = threadIdx.x;
    if (t < 32) tile[t] = t;
    __syncthreads();
    out[t] = tile[63 - t];  // tile[32..63] never written
}
int main() { float* o = device_array<float>(64); k<<<1, 64>>>(o); REPORT("shared memory read before any thread wrote it"); }
