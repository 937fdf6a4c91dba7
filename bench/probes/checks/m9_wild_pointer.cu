#include "common.cuh"
__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }
int main() { k<<<1, 32>>>(reinterpret_cast<float*>(0x7f0012345000ull)); REPORT("a wild pointer argument"); }
