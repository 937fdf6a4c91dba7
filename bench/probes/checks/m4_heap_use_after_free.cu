#include "common.cuh"
__global__ void k(int* out) {
    int* p = static_cast<int*>(malloc(16 * sizeof(int)));
    p[threadIdx.x % 16] = threadIdx.x;
    free(p);
    out[threadIdx.x] = p[threadIdx.x % 16];
}
int main() { int* o = device_array<int>(32); k<<<1, 32>>>(o); REPORT("device heap: use after free"); }
