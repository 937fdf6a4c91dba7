#include "common.cuh"
__global__ void k(int* out) {
    if (threadIdx.x >= 32) return;
    __syncthreads();
    out[threadIdx.x] = 1;
}
int main() { int* o = device_array<int>(64); k<<<1, 64>>>(o); REPORT("a whole warp returns before a barrier"); }
