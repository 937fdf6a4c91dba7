#include "common.cuh"
__global__ void k(const float* in, float* out) {
    __shared__ float ta[32], tb[32];
    int t = threadIdx.x;
    tb[t % 32] = 0.0f;
    ta[t] = in[t];  // 64 threads: ta[32..63] is past ta
    __syncthreads();
    out[t] = ta[t] + tb[t % 32];
}
int main() { float* i = device_array<float>(64); float* o = device_array<float>(64); k<<<1, 64>>>(i, o); REPORT("a __shared__ array overrun into the next one"); }
