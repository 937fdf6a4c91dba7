#include "common.cuh"
__global__ void k(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(64));
    p[0] = 1;
    free(p + 4);
    free(out);
}
int main() { int* o = device_array<int>(32); k<<<1, 32>>>(o); REPORT("device heap: free of a pointer malloc did not return"); }
