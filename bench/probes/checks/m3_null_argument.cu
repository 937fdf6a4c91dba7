#include "common.cuh"
__global__ void k(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
int main() { float* y = device_array<float>(256); k<<<1, 256>>>(2.0f, nullptr, y, 256); REPORT("null pointer argument x"); }
