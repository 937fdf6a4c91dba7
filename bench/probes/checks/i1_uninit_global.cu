#include "common.cuh"
__global__ void k(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x] * 2.0f; }
int main() { float* i = device_array<float>(64, false); float* o = device_array<float>(64); k<<<1, 64>>>(i, o); REPORT("global memory read before anything wrote it"); }
