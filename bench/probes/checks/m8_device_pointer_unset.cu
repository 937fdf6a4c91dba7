#include "common.cuh"
__device__ float* table;
__global__ void k(float* out) { out[threadIdx.x] = table[threadIdx.x]; }
int main() { float* o = device_array<float>(32); k<<<1, 32>>>(o); REPORT("a __device__ pointer never set"); }
