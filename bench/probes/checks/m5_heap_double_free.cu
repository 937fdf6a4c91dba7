#include "common.cuh"
__global__ void k(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(64));
    p[0] = 1;
    out[0] = p[0];
    free(p);
    free(p);
}
int main() { int* o = device_array<int>(32); k<<<1, 32>>>(o); REPORT("device heap: double free"); }
