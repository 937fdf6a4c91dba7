// __global__ void fake() {}
#include <cuda_fp16.h>
namespace ns { namespace inner {
template <typename T, int B = 256>
__global__ void __launch_bounds__(B) axpy(T a, const T* __restrict__ x, T* y, int n = 0) {}
} }
extern "C" { __global__ void k(__half* h, float* const p, const int& r, float) {} }
const char* s = R"x(__global__ void raw() {})x";
