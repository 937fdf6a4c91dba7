#include "common.cuh"
__global__ void k(int* out) {
    __shared__ int sm[64];
    int t = threadIdx.x;
    if (t < 32) { sm[t] = 1; __syncthreads(); out[t] = sm[63 - t]; }
    else { sm[t] = 2; __syncthreads(); out[t] = sm[63 - t]; }
}
int main() { int* o = device_array<int>(64); k<<<1, 64>>>(o); REPORT("if/else, each side a barrier, split by whole warps"); }
