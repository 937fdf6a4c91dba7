#include "common.cuh"
__global__ void k(int* count) { if (threadIdx.x == 0) count[0] = count[0] + 1; }
int main() { int* c = device_array<int>(1); k<<<64, 32>>>(c); REPORT("a non-atomic global counter bumped by every block"); }
