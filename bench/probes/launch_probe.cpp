// Probe: what one cuLaunchKernel costs on this machine, by form and by batch size.
// usage: launch_probe CUBIN   (the cubin holds saxpy(const float*, const float*, float*, int) and empty())
// Prints one JSON object: medians in ns per launch.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {
void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* name = "?";
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "launch_probe: %s failed: %s\n", what, name);
    std::exit(1);
}
using Clock = std::chrono::steady_clock;
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    check(cuInit(0), "cuInit");
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "retain");
    check(cuCtxSetCurrent(ctx), "set");
    CUmodule mod;
    check(cuModuleLoad(&mod, argv[1]), "cuModuleLoad");
    CUfunction saxpy, empty;
    check(cuModuleGetFunction(&saxpy, mod, "saxpy"), "get saxpy");
    check(cuModuleGetFunction(&empty, mod, "empty"), "get empty");
    CUstream stream;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "stream");
    int n = 4096;
    CUdeviceptr x, y, out;
    check(cuMemAlloc(&x, n * 4), "alloc");
    check(cuMemAlloc(&y, n * 4), "alloc");
    check(cuMemAlloc(&out, n * 4), "alloc");
    check(cuMemsetD32(x, 0, n), "memset");
    check(cuMemsetD32(y, 0, n), "memset");
    void* params[] = {&x, &y, &out, &n};
    unsigned char buf[32] = {};
    std::memcpy(buf + 0, &x, 8);
    std::memcpy(buf + 8, &y, 8);
    std::memcpy(buf + 16, &out, 8);
    std::memcpy(buf + 24, &n, 4);
    size_t buf_size = 28;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &buf_size, CU_LAUNCH_PARAM_END};
    CUlaunchConfig cfg = {};
    cfg.gridDimX = 16;
    cfg.gridDimY = 1;
    cfg.gridDimZ = 1;
    cfg.blockDimX = 256;
    cfg.blockDimY = 1;
    cfg.blockDimZ = 1;
    cfg.hStream = stream;
    CUcontext cur = nullptr;

    std::map<std::string, std::function<void()>> forms = {
        {"params", [&] { check(cuLaunchKernel(saxpy, 16, 1, 1, 256, 1, 1, 0, stream, params, nullptr), "launch"); }},
        {"extra_buffer",
         [&] { check(cuLaunchKernel(saxpy, 16, 1, 1, 256, 1, 1, 0, stream, nullptr, extra), "launch"); }},
        {"launch_ex", [&] { check(cuLaunchKernelEx(&cfg, saxpy, params, nullptr), "launchEx"); }},
        {"empty_kernel",
         [&] { check(cuLaunchKernel(empty, 1, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr), "launch"); }},
        {"params+ctxget",
         [&] {
             cuCtxGetCurrent(&cur);
             check(cuLaunchKernel(saxpy, 16, 1, 1, 256, 1, 1, 0, stream, params, nullptr), "launch");
         }},
        {"ctx_get_only", [&] { cuCtxGetCurrent(&cur); }},
    };
    const long batches[] = {100, 1000, 20000};
    std::map<std::string, std::vector<double>> samples;
    for (auto& [name, f] : forms)
        for (int i = 0; i < 500; ++i) f();
    check(cuStreamSynchronize(stream), "sync");
    for (int rep = 0; rep < 15; ++rep) {
        for (auto& [name, f] : forms) {
            for (long b : batches) {
                long total = 0;
                double ns = 0;
                while (total < 20000) {  // same number of launches per sample whatever the batch
                    auto t0 = Clock::now();
                    for (long i = 0; i < b; ++i) f();
                    ns += std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
                    total += b;
                    check(cuStreamSynchronize(stream), "sync");
                }
                samples[name + "@" + std::to_string(b)].push_back(ns / total);
            }
        }
    }
    // GPU time per back-to-back kernel: events around 20000 launches
    CUevent e0, e1;
    check(cuEventCreate(&e0, 0), "ev");
    check(cuEventCreate(&e1, 0), "ev");
    std::vector<double> gpu;
    for (int rep = 0; rep < 5; ++rep) {
        check(cuEventRecord(e0, stream), "rec");
        for (int i = 0; i < 20000; ++i) forms["params"]();
        check(cuEventRecord(e1, stream), "rec");
        check(cuEventSynchronize(e1), "evsync");
        float ms = 0;
        check(cuEventElapsedTime(&ms, e0, e1), "elapsed");
        gpu.push_back(ms * 1e6 / 20000);
    }
    std::printf("{");
    for (auto& [k, v] : samples)
        std::printf("\"%s\": [%.1f, %.1f, %.1f], ", k.c_str(), median(v), *std::min_element(v.begin(), v.end()),
                    *std::max_element(v.begin(), v.end()));
    std::printf("\"gpu_ns_per_kernel_back_to_back\": %.1f}\n", median(gpu));
    return 0;
}
