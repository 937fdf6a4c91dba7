// Shared by the probes: a launch, a synchronise, and what the runtime said.
#include <cstdio>
#include <cuda_runtime.h>
#define REPORT(what)                                                                 \
    do {                                                                             \
        cudaError_t launch = cudaGetLastError();                                     \
        cudaError_t sync = cudaDeviceSynchronize();                                  \
        std::printf("%s: launch=%s sync=%s\n", what, cudaGetErrorName(launch),       \
                    cudaGetErrorName(sync));                                         \
    } while (0)
template <class T> T* device_array(int n, bool zero = true) {
    T* p = nullptr;
    cudaMalloc(&p, n * sizeof(T));
    if (zero) cudaMemset(p, 0, n * sizeof(T));
    return p;
}
