#include "common.cuh"
__global__ void k(int* out) {
    if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = 1;
}
int main() { int* o = device_array<int>(64); k<<<1, 64>>>(o); REPORT("partial warp skips a barrier, then exits"); }
