// The C++ floor for part 1: host time per cuLaunchKernel of the same cubin, same
// arguments (3 device pointers + an int) on a non-blocking stream, through the driver
// API, measured exactly as bench/launch.py measures the Python peers.
//
// usage: launch_floor CUBIN KERNEL N ITERS REPS WARM SYNC_ITERS
// prints one JSON line: {"launch_ns": [...per rep...], "sync_readback_ns": [...],
//                        "ctx_init_ms": x, "max_abs_err": e}
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* name = "?";
    const char* msg = "?";
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &msg);
    std::fprintf(stderr, "launch_floor: %s failed: %s (%s)\n", what, name, msg);
    std::exit(1);
}

using Clock = std::chrono::steady_clock;

double ns_since(Clock::time_point t0, long iters) {
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / iters;
}

void print_list(const char* key, const std::vector<double>& v, bool last) {
    std::printf("\"%s\": [", key);
    for (size_t i = 0; i < v.size(); ++i) std::printf("%s%.1f", i ? ", " : "", v[i]);
    std::printf("]%s", last ? "" : ", ");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 8) {
        std::fprintf(stderr, "usage: %s CUBIN KERNEL N ITERS REPS WARM SYNC_ITERS\n", argv[0]);
        return 2;
    }
    const char* cubin = argv[1];
    const char* kname = argv[2];
    int n = std::atoi(argv[3]);
    long iters = std::atol(argv[4]);
    int reps = std::atoi(argv[5]);
    long warm = std::atol(argv[6]);
    long sync_iters = std::atol(argv[7]);

    auto t_init = Clock::now();
    check(cuInit(0), "cuInit");
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    double ctx_ms = ns_since(t_init, 1) / 1e6;

    CUmodule mod;
    check(cuModuleLoad(&mod, cubin), "cuModuleLoad");
    CUfunction fn;
    check(cuModuleGetFunction(&fn, mod, kname), "cuModuleGetFunction");
    CUstream stream;
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

    size_t bytes = size_t(n) * sizeof(float);
    std::vector<float> hx(n), hy(n), hout(n);
    std::mt19937 gen(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int i = 0; i < n; ++i) {
        hx[i] = dist(gen);
        hy[i] = dist(gen);
    }
    CUdeviceptr x, y, out;
    check(cuMemAlloc(&x, bytes), "cuMemAlloc x");
    check(cuMemAlloc(&y, bytes), "cuMemAlloc y");
    check(cuMemAlloc(&out, bytes), "cuMemAlloc out");
    check(cuMemcpyHtoD(x, hx.data(), bytes), "cuMemcpyHtoD x");
    check(cuMemcpyHtoD(y, hy.data(), bytes), "cuMemcpyHtoD y");
    check(cuMemsetD32(out, 0x7fc00000u, n), "cuMemsetD32 (poison with NaN)");

    void* params[] = {&x, &y, &out, &n};
    unsigned block = 256, grid = (unsigned(n) + block - 1) / block;
    auto launch = [&] {
        check(cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel");
    };

    launch();
    check(cuStreamSynchronize(stream), "cuStreamSynchronize (check)");
    check(cuMemcpyDtoH(hout.data(), out, bytes), "cuMemcpyDtoH (check)");
    double err = 0;
    for (int i = 0; i < n; ++i) {
        double ref = 2.0 * double(hx[i]) + double(hy[i]);
        double e = std::fabs(double(hout[i]) - ref);
        err = std::isnan(e) ? INFINITY : std::max(err, e);
    }

    for (long i = 0; i < warm; ++i) launch();
    check(cuStreamSynchronize(stream), "cuStreamSynchronize (warm)");

    // The same round trip into page-locked memory and then a memcpy to the pageable array: is
    // the driver's own staging for pageable copies worth replacing for small read-backs?
    void* pinned = nullptr;
    check(cuMemHostAlloc(&pinned, bytes, 0), "cuMemHostAlloc");

    std::vector<double> per_launch, per_sync, per_sync_pinned;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        for (long i = 0; i < iters; ++i) launch();
        per_launch.push_back(ns_since(t0, iters));
        check(cuStreamSynchronize(stream), "cuStreamSynchronize (rep)");

        t0 = Clock::now();
        for (long i = 0; i < sync_iters; ++i) {
            launch();
            check(cuMemcpyDtoHAsync(hout.data(), out, bytes, stream), "cuMemcpyDtoHAsync");
            check(cuStreamSynchronize(stream), "cuStreamSynchronize");
        }
        per_sync.push_back(ns_since(t0, sync_iters));

        t0 = Clock::now();
        for (long i = 0; i < sync_iters; ++i) {
            launch();
            check(cuMemcpyDtoHAsync(pinned, out, bytes, stream), "cuMemcpyDtoHAsync (pinned)");
            check(cuStreamSynchronize(stream), "cuStreamSynchronize");
            std::memcpy(hout.data(), pinned, bytes);
        }
        per_sync_pinned.push_back(ns_since(t0, sync_iters));
    }
    std::printf("{");
    print_list("launch_ns", per_launch, false);
    print_list("sync_readback_ns", per_sync, false);
    print_list("sync_readback_pinned_ns", per_sync_pinned, false);
    std::printf("\"ctx_init_ms\": %.1f, \"max_abs_err\": %.3g}\n", ctx_ms, err);

    cuMemFreeHost(pinned);
    cuMemFree(x);
    cuMemFree(y);
    cuMemFree(out);
    cuStreamDestroy(stream);
    cuModuleUnload(mod);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
