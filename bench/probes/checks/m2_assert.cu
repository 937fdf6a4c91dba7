#include "common.cuh"
#include <cassert>
__global__ void k(const float* in, float* out) {
    int i = threadIdx.x;
    assert(in[i] > 0.0f);
    out[i] = 1.0f / in[i];
}
int main() { float* i = device_array<float>(32); float* o = device_array<float>(32); k<<<1, 32>>>(i, o); REPORT("failed assert"); }
