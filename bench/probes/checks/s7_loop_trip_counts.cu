#include "common.cuh"
__global__ void k(int* out) {
    int t = threadIdx.x;
    int trips = t < 32 ? 2 : 1;
    for (int i = 0; i < trips; ++i) __syncthreads();
    out[t] = trips;
}
int main() { int* o = device_array<int>(64); k<<<1, 64>>>(o); REPORT("a barrier in a loop, whole warps looping a different number of times"); }
