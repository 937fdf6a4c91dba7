#include "common.cuh"
__global__ void k(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(4 * sizeof(int)));
    for (int i = 0; i <= 4; ++i) p[i] = i;  // p[4] is past the block
    out[0] = p[0];
    free(p);
}
int main() { int* o = device_array<int>(32); k<<<1, 32>>>(o); REPORT("device heap: a write past a malloc'ed block"); }
