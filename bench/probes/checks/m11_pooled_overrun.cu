#include "common.cuh"
// One allocation reused for a smaller array (as a pool does): the overrun stays inside it.
__global__ void k(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = in[i];
}
int main() { float* i = device_array<float>(300); float* o = device_array<float>(300); k<<<2, 128>>>(i, o, 240); REPORT("off-by-one inside a larger allocation (n=240 of 300)"); }
