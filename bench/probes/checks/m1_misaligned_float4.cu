#include "common.cuh"
__global__ void k(const float* in, float* out) {
    const float4* v = reinterpret_cast<const float4*>(in + 1);
    float4 a = v[threadIdx.x];
    out[threadIdx.x] = a.x + a.y + a.z + a.w;
}
int main() { float* i = device_array<float>(1024); float* o = device_array<float>(32); k<<<1, 32>>>(i, o); REPORT("misaligned float4 load"); }
