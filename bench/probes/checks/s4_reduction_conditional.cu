#include "common.cuh"
__global__ void k(const float* in, float* out) {
    __shared__ float sm[128];
    int t = threadIdx.x;
    sm[t] = in[t];
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (t < s) {
            sm[t] += sm[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[0] = sm[0];
}
int main() { float* i = device_array<float>(128); float* o = device_array<float>(1); k<<<1, 128>>>(i, o); REPORT("reduction with the barrier inside if (t < s)"); }
