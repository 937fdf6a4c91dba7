// Real kernels, compiled by NVRTC, run on the engine: their results against the host's.
#include "engine_harness.hpp"

#include <cmath>
#include <numeric>
#include <random>

namespace xcuda::cpu::testing {
namespace {

TEST(Kernels, SaxpyComputesWhatAnFmaDoesForEveryElement) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
})");
    const int n = 1000;
    std::vector<float> x(n), y(n);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-10, 10);
    for (int i = 0; i < n; ++i) {
        x[i] = u(rng);
        y[i] = u(rng);
    }
    const auto dx = e.to_device(x), dy = e.to_device(y);
    const LaunchOutcome out = e.launch(m, "saxpy", {4, 1, 1}, {256, 1, 1}, 0, 2.5f, dx, dy, n);
    ASSERT_EQ(out.status, CUDA_SUCCESS) << (out.failure ? out.failure->report() : "");
    const auto got = e.to_host<float>(dy, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], std::fma(2.5f, x[i], y[i])) << "element " << i;
}

TEST(Kernels, ATiledSharedMemoryMatrixProductIsExactOnSmallIntegers) {
    Engine e;
    auto m = e.load(R"(
#define T 16
extern "C" __global__ void sgemm(const float* A, const float* B, float* C, int n) {
    __shared__ float As[T][T], Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float sum = 0;
    for (int t = 0; t < n / T; ++t) {
        As[ty][tx] = A[row * n + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k) sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = sum;
})");
    const int n = 64;
    std::vector<float> a(n * n), b(n * n);
    for (int i = 0; i < n * n; ++i) {
        a[i] = static_cast<float>(i % 7 - 3);
        b[i] = static_cast<float>(i % 5 - 2);
    }
    const auto da = e.to_device(a), db = e.to_device(b), dc = e.to_device(std::vector<float>(n * n, -1.0f));
    const LaunchOutcome out = e.launch(m, "sgemm", {n / 16, n / 16, 1}, {16, 16, 1}, 0, da, db, dc, n);
    ASSERT_EQ(out.status, CUDA_SUCCESS) << (out.failure ? out.failure->report() : "");
    const auto c = e.to_host<float>(dc, n * n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            float ref = 0;
            for (int k = 0; k < n; ++k) ref += a[i * n + k] * b[k * n + j];
            ASSERT_EQ(c[i * n + j], ref) << i << "," << j;
        }
    }
}

TEST(Kernels, ABlockReductionWithSharedMemoryAndShufflesSumsEveryBlock) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void block_sum(const int* in, int* out, int n) {
    __shared__ int warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
        for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
        if (threadIdx.x == 0) out[blockIdx.x] = v;
    }
})");
    const int n = 5000, threads = 256, blocks = (n + threads - 1) / threads;
    std::vector<int> in(n);
    std::iota(in.begin(), in.end(), -1000);
    const auto din = e.to_device(in), dout = e.to_device(std::vector<int>(blocks, 0));
    const LaunchOutcome out = e.launch(m, "block_sum", {blocks, 1, 1}, {threads, 1, 1}, 0, din, dout, n);
    ASSERT_EQ(out.status, CUDA_SUCCESS) << (out.failure ? out.failure->report() : "");
    const auto sums = e.to_host<int>(dout, blocks);
    for (int b = 0; b < blocks; ++b) {
        long ref = 0;
        for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) ref += in[i];
        EXPECT_EQ(sums[b], ref) << "block " << b;
    }
}

TEST(Kernels, AtomicsFromBlocksRunningInParallelLoseNoUpdate) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void histogram(const unsigned char* data, int n, unsigned* bins, float* total,
                                     unsigned long long* biggest) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&bins[data[i] % 16], 1u);
        atomicAdd(total, 1.0f);
        atomicMax(biggest, (unsigned long long)data[i]);
    }
})");
    const int n = 100000;
    std::vector<unsigned char> data(n);
    for (int i = 0; i < n; ++i) data[i] = static_cast<unsigned char>((i * 37) % 251);
    const auto dd = e.to_device(data), bins = e.to_device(std::vector<unsigned>(16, 0)),
               total = e.to_device(std::vector<float>(1, 0.0f)),
               biggest = e.to_device(std::vector<unsigned long long>(1, 0));
    const LaunchOutcome out = e.launch(m, "histogram", {64, 1, 1}, {128, 1, 1}, 0, dd, n, bins, total, biggest);
    ASSERT_EQ(out.status, CUDA_SUCCESS) << (out.failure ? out.failure->report() : "");
    std::vector<unsigned> ref(16, 0);
    for (unsigned char c : data) ++ref[c % 16];
    EXPECT_EQ(e.to_host<unsigned>(bins, 16), ref);
    EXPECT_EQ(e.to_host<float>(total, 1)[0], static_cast<float>(n));  // exact below 2^24
    EXPECT_EQ(e.to_host<unsigned long long>(biggest, 1)[0], 250u);
}

TEST(Kernels, DevicePrintfWritesEveryThreadsLineToStdout) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void hello(float f) {
    printf("thread %d of block %d: %.2f %s %5u|%-3c|\n", threadIdx.x, blockIdx.x, f, "ok", 42u, 'z');
})");
    CaptureStdout capture;
    const LaunchOutcome out = e.launch(m, "hello", {2, 1, 1}, {2, 1, 1}, 0, 1.5f);
    const std::string text = capture.finish();
    ASSERT_EQ(out.status, CUDA_SUCCESS) << (out.failure ? out.failure->report() : "");
    for (const char* line :
         {"thread 0 of block 0: 1.50 ok    42|z  |\n", "thread 1 of block 0: 1.50 ok    42|z  |\n",
          "thread 0 of block 1: 1.50 ok    42|z  |\n", "thread 1 of block 1: 1.50 ok    42|z  |\n"}) {
        EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "in:\n" << text;
    }
}

TEST(Kernels, NonInlinedAndRecursiveDeviceFunctionsReturnTheirResults) {
    Engine e;
    auto m = e.load(R"(
__device__ __noinline__ unsigned long long factorial(int k) { return k <= 1 ? 1ull : k * factorial(k - 1); }
__device__ __noinline__ float scale(float v, int k) { return v * k + 1.0f; }
extern "C" __global__ void calls(unsigned long long* f, float* s) {
    int i = threadIdx.x;
    f[i] = factorial(i % 21);
    s[i] = scale(0.5f, i);
})");
    const auto df = e.to_device(std::vector<unsigned long long>(64, 0)), ds = e.to_device(std::vector<float>(64, 0));
    const LaunchOutcome out = e.launch(m, "calls", {1, 1, 1}, {64, 1, 1}, 0, df, ds);
    ASSERT_EQ(out.status, CUDA_SUCCESS) << (out.failure ? out.failure->report() : "");
    const auto f = e.to_host<unsigned long long>(df, 64);
    const auto s = e.to_host<float>(ds, 64);
    for (int i = 0; i < 64; ++i) {
        unsigned long long ref = 1;
        for (int k = 2; k <= i % 21; ++k) ref *= static_cast<unsigned long long>(k);
        EXPECT_EQ(f[i], ref) << i;
        EXPECT_EQ(s[i], std::fma(0.5f, static_cast<float>(i), 1.0f)) << i;
    }
}

TEST(Kernels, WarpVotesBallotsAndMatchesSeeTheWholeWarp) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void votes(const int* v, unsigned* out) {
    int x = v[threadIdx.x];
    unsigned ballot = __ballot_sync(0xffffffff, x > 0);
    int all = __all_sync(0xffffffff, x > -100);
    int any = __any_sync(0xffffffff, x == 7);
    unsigned same = __match_any_sync(0xffffffff, x % 3);
    if (threadIdx.x == 5) { out[0] = ballot; out[1] = all; out[2] = any; out[3] = same; out[4] = __activemask(); }
})");
    std::vector<int> v(32);
    for (int i = 0; i < 32; ++i) v[i] = (i % 4 == 0) ? i : -i;
    const auto dv = e.to_device(v), dout = e.to_device(std::vector<unsigned>(5, 0));
    const LaunchOutcome out = e.launch(m, "votes", {1, 1, 1}, {32, 1, 1}, 0, dv, dout);
    ASSERT_EQ(out.status, CUDA_SUCCESS) << (out.failure ? out.failure->report() : "");
    const auto r = e.to_host<unsigned>(dout, 5);
    unsigned ballot = 0, same = 0;
    for (int i = 0; i < 32; ++i) {
        if (v[i] > 0) ballot |= 1u << i;
        if (v[i] % 3 == v[5] % 3) same |= 1u << i;
    }
    EXPECT_EQ(r[0], ballot);
    EXPECT_EQ(r[1], 1u);
    EXPECT_EQ(r[2], 0u);
    EXPECT_EQ(r[3], same);
    EXPECT_EQ(r[4], 1u << 5);  // only lane 5 executes the store: it is the active mask there
}

TEST(Kernels, DivergentLoopsReconvergeAndEveryLaneFinishesItsOwnTripCount) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void collatz(const unsigned* start, unsigned* steps) {
    unsigned v = start[threadIdx.x], n = 0;
    while (v != 1) { v = (v % 2) ? 3 * v + 1 : v / 2; ++n; }
    steps[threadIdx.x] = n;
})");
    std::vector<unsigned> start(100);
    for (unsigned i = 0; i < 100; ++i) start[i] = i + 1;
    const auto ds = e.to_device(start), dn = e.to_device(std::vector<unsigned>(100, 0));
    const LaunchOutcome out = e.launch(m, "collatz", {1, 1, 1}, {100, 1, 1}, 0, ds, dn);
    ASSERT_EQ(out.status, CUDA_SUCCESS) << (out.failure ? out.failure->report() : "");
    const auto steps = e.to_host<unsigned>(dn, 100);
    for (unsigned i = 0; i < 100; ++i) {
        unsigned v = i + 1, n = 0;
        while (v != 1) {
            v = (v % 2) ? 3 * v + 1 : v / 2;
            ++n;
        }
        EXPECT_EQ(steps[i], n) << "start " << i + 1;
    }
}

TEST(Kernels, DynamicSharedMemoryAndSyncthreadsCountWork) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void reverse(int* d, int n, int* counted) {
    extern __shared__ int s[];
    int t = threadIdx.x;
    s[t] = d[t];
    int c = __syncthreads_count(d[t] % 2 == 0);
    d[t] = s[n - t - 1];
    if (t == 0) *counted = c;
})");
    const int n = 200;
    std::vector<int> d(n);
    std::iota(d.begin(), d.end(), 0);
    const auto dd = e.to_device(d), dc = e.to_device(std::vector<int>(1, 0));
    const LaunchOutcome out = e.launch(m, "reverse", {1, 1, 1}, {n, 1, 1}, n * 4, dd, n, dc);
    ASSERT_EQ(out.status, CUDA_SUCCESS) << (out.failure ? out.failure->report() : "");
    const auto r = e.to_host<int>(dd, n);
    for (int i = 0; i < n; ++i) EXPECT_EQ(r[i], n - i - 1);
    EXPECT_EQ(e.to_host<int>(dc, 1)[0], n / 2);
}

}  // namespace
}  // namespace xcuda::cpu::testing
