// Races on global memory, found from the accesses and what CUDA's memory model orders (not from
// a wrong result: the CPU device runs warps in one order, and a racy kernel often comes out
// right). Each buggy kernel has a correct twin that must run clean, and the correct patterns that
// synchronise through memory (fences and flags, atomics, cuda::atomic_ref, grid sync, the
// threadfence reduction) are not reported.
#include "engine_harness.hpp"

#include <numeric>
#include <set>

namespace xcuda::cpu::testing {
namespace {

#define EXPECT_RAN(out) ASSERT_EQ((out).status, CUDA_SUCCESS) << ((out).failure ? (out).failure->report() : "")

// A copy: the outcome is often a temporary, gone when the statement ends (ASan saw the reference
// into it read afterwards).
Finding race_of(const LaunchOutcome& out) {
    EXPECT_NE(out.failure, nullptr) << "no finding";
    if (out.failure == nullptr) return Finding{};
    EXPECT_EQ(out.failure->finding.kind, FindingKind::global_race) << out.failure->report();
    return out.failure->finding;
}

bool same(const Dim3& a, const Dim3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

TEST(GlobalRace, ACounterEveryBlockBumpsWithoutAnAtomicIsARaceBetweenBlocksAtItsElement) {  // r1
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void k(int* count) { if (threadIdx.x == 0) count[0] = count[0] + 1; }
extern "C" __global__ void fixed(int* count) { if (threadIdx.x == 0) atomicAdd(&count[0], 1); }
)");
    const auto count = e.to_device(std::vector<int>(1, 0));
    const Finding& d = race_of(e.launch(m, "k", {64, 1, 1}, {32, 1, 1}, 0, count));
    EXPECT_EQ(d.where.line, 2);
    EXPECT_EQ(d.other_where.line, 2);
    EXPECT_FALSE(same(d.block, d.other_block));
    EXPECT_EQ(d.region.parameter, 0);
    EXPECT_EQ(d.region.offset, 0);
    EXPECT_EQ(d.size, 4u);

    const auto clean = e.to_device(std::vector<int>(1, 0));
    EXPECT_RAN(e.launch(m, "fixed", {64, 1, 1}, {32, 1, 1}, 0, clean));
    EXPECT_EQ(e.to_host<int>(clean, 1)[0], 64);
}

TEST(GlobalRace, WarpsOfABlockWritingEachOthersElementsWithoutABarrierRace) {  // r2
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void k(float* out) {
    int t = threadIdx.x;
    out[t] = t;
    out[(t + 32) % 64] += 1.0f;
}
extern "C" __global__ void fixed(float* out) {
    int t = threadIdx.x;
    out[t] = t;
    __syncthreads();
    out[(t + 32) % 64] += 1.0f;
}
)");
    const auto out = e.to_device(std::vector<float>(64, 0.0f));
    const Finding& d = race_of(e.launch(m, "k", {1, 1, 1}, {64, 1, 1}, 0, out));
    EXPECT_TRUE(same(d.block, d.other_block));
    EXPECT_NE(d.thread.x / 32, d.other_thread.x / 32);  // different warps
    const std::set<int> lines{d.where.line, d.other_where.line};
    EXPECT_EQ(lines, (std::set<int>{4, 5}));

    const auto clean = e.to_device(std::vector<float>(64, 0.0f));
    EXPECT_RAN(e.launch(m, "fixed", {1, 1, 1}, {64, 1, 1}, 0, clean));
    const auto got = e.to_host<float>(clean, 64);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(got[i], static_cast<float>(i) + 1.0f) << i;
}

TEST(GlobalRace, LanesOfOneWarpReadingWhatAnotherLaneWroteWithoutSyncwarpRace) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void k(int* out) {
    if (threadIdx.x == 0) out[0] = 7;
    out[1 + threadIdx.x] = out[0];
}
extern "C" __global__ void fixed(int* out) {
    if (threadIdx.x == 0) out[0] = 7;
    __syncwarp();
    out[1 + threadIdx.x] = out[0];
}
)");
    const auto out = e.to_device(std::vector<int>(33, 0));
    const Finding& d = race_of(e.launch(m, "k", {1, 1, 1}, {32, 1, 1}, 0, out));
    const std::set<int> lines{d.where.line, d.other_where.line};
    EXPECT_EQ(lines, (std::set<int>{3, 4}));  // (NVRTC has the other lanes load before lane 0 stores)
    EXPECT_TRUE(d.thread.x == 0 || d.other_thread.x == 0);
    EXPECT_NE(d.thread.x, d.other_thread.x);
    const auto clean = e.to_device(std::vector<int>(33, 0));
    EXPECT_RAN(e.launch(m, "fixed", {1, 1, 1}, {32, 1, 1}, 0, clean));
}

TEST(GlobalRace, StoringTheValueAlreadyThereIsBenign) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void k(int* flag, int* seen) {
    flag[0] = 1;                      // every thread of every block: the same value
    seen[blockIdx.x * blockDim.x + threadIdx.x] = flag[0];
}
)");
    const auto flag = e.to_device(std::vector<int>(1, 0));
    const auto seen = e.to_device(std::vector<int>(256, 0));
    EXPECT_RAN(e.launch(m, "k", {4, 1, 1}, {64, 1, 1}, 0, flag, seen));
}

// The threadfence-reduction sample's structure: each block's partial sum, then __threadfence()
// and an atomicInc on a counter; the block that takes the last ticket sums the partials (after a
// barrier that passes what its thread 0 saw to the others) and resets the counter.
constexpr const char* reduction = R"(
__device__ unsigned int retirement = 0;
extern "C" __global__ void k(const float* in, float* partial, float* result, int fence) {
    __shared__ float s[64];
    __shared__ bool last;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        if (fence) __threadfence();
        unsigned int ticket = atomicInc(&retirement, gridDim.x);
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
        float sum = 0;
        for (int b = t; b < gridDim.x; b += blockDim.x) sum += partial[b];
        s[t] = sum;
        __syncthreads();
        for (int h = blockDim.x / 2; h > 0; h >>= 1) {
            if (t < h) s[t] += s[t + h];
            __syncthreads();
        }
        if (t == 0) {
            *result = s[0];
            retirement = 0;
        }
    }
}
)";

TEST(GlobalRace, TheThreadfenceReductionIsOrderedByItsFenceAndCounter) {
    Engine e;
    auto m = e.load(reduction);
    const auto in = e.to_device(std::vector<float>(64 * 100, 1.0f));
    const auto partial = e.to_device(std::vector<float>(100, 0.0f));
    const auto result = e.to_device(std::vector<float>(1, 0.0f));
    for (int run = 0; run < 3; ++run) {
        EXPECT_RAN(e.launch(m, "k", {100, 1, 1}, {64, 1, 1}, 0, in, partial, result, 1));
        EXPECT_EQ(e.to_host<float>(result, 1)[0], 6400.0f);
    }
}

TEST(GlobalRace, TheSameReductionWithoutItsThreadfenceRacesOnThePartialSums) {
    Engine e;
    auto m = e.load(reduction);
    const auto in = e.to_device(std::vector<float>(64 * 100, 1.0f));
    const auto partial = e.to_device(std::vector<float>(100, 0.0f));
    const auto result = e.to_device(std::vector<float>(1, 0.0f));
    const Finding& d = race_of(e.launch(m, "k", {100, 1, 1}, {64, 1, 1}, 0, in, partial, result, 0));
    const std::set<int> lines{d.where.line, d.other_where.line};
    EXPECT_EQ(lines, (std::set<int>{14, 22}));  // the partial's write, and the last block's read of it
    EXPECT_EQ(d.region.parameter, 1);
}

// One block hands data to a later one through a flag (blocks start in order, so the later one
// can wait for the earlier one here as on a GPU).
TEST(GlobalRace, AFlagWrittenAfterAThreadfenceAndReadWithAVolatileLoadOrdersTheDataBeforeIt) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void k(int* data, volatile int* flag, int* out, int fence) {
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        data[t] = t + 1;
        __syncthreads();
        if (t == 0) {
            if (fence) __threadfence();
            *flag = 1;
        }
    } else {
        if (t == 0) while (*flag == 0) { }
        __syncthreads();
        out[t] = data[t];
    }
}
)");
    const auto data = e.to_device(std::vector<int>(64, 0));
    auto flag = e.to_device(std::vector<int>(1, 0));
    const auto out = e.to_device(std::vector<int>(64, 0));
    EXPECT_RAN(e.launch(m, "k", {2, 1, 1}, {64, 1, 1}, 0, data, flag, out, 1));
    const auto got = e.to_host<int>(out, 64);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(got[i], i + 1) << i;

    // Without the fence the flag orders nothing: the data's write and read race.
    const auto data2 = e.to_device(std::vector<int>(64, 0));
    flag = e.to_device(std::vector<int>(1, 0));
    const Finding& d = race_of(e.launch(m, "k", {2, 1, 1}, {64, 1, 1}, 0, data2, flag, out, 0));
    const std::set<int> lines{d.where.line, d.other_where.line};
    EXPECT_EQ(lines, (std::set<int>{5, 14}));
    EXPECT_FALSE(same(d.block, d.other_block));
}

TEST(GlobalRace, AtomicRefReleaseAndAcquireOrderTheDataTheyGuard) {
    Engine e;
    auto m = e.load(R"(
#include <cuda/atomic>
extern "C" __global__ void k(int* data, int* flag, int* out) {
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        data[t] = 2 * t;
        __syncthreads();
        if (t == 0) f.store(1, cuda::memory_order_release);
    } else {
        if (t == 0) while (f.load(cuda::memory_order_acquire) == 0) { }
        __syncthreads();
        out[t] = data[t];
    }
}
)");
    const auto data = e.to_device(std::vector<int>(64, 0));
    const auto flag = e.to_device(std::vector<int>(1, 0));
    const auto out = e.to_device(std::vector<int>(64, 0));
    EXPECT_RAN(e.launch(m, "k", {2, 1, 1}, {64, 1, 1}, 0, data, flag, out));
    EXPECT_EQ(e.to_host<int>(out, 64)[63], 126);
}

TEST(GlobalRace, AGridSyncOrdersWhatBlocksWroteBeforeItAndLeavingItOutRaces) {
    Engine e;
    e.cooperative = true;
    auto m = e.load(R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void k(int* a, int n, int sync) {
    cg::grid_group g = cg::this_grid();
    int i = g.thread_rank();
    a[i] = i;
    if (sync) g.sync();
    int v = a[(i + 64) % n];
    if (sync) g.sync();
    a[i] = v;
}
)");
    const auto a = e.to_device(std::vector<int>(256, 0));
    EXPECT_RAN(e.launch(m, "k", {4, 1, 1}, {64, 1, 1}, 0, a, 256, 1));
    const auto got = e.to_host<int>(a, 256);
    for (int i = 0; i < 256; ++i) EXPECT_EQ(got[i], (i + 64) % 256) << i;

    const auto b = e.to_device(std::vector<int>(256, 0));
    const Finding& d = race_of(e.launch(m, "k", {4, 1, 1}, {64, 1, 1}, 0, b, 256, 0));
    EXPECT_FALSE(same(d.block, d.other_block));
}

TEST(GlobalRace, AHistogramWithAtomicsIsCleanAndWithoutThemRaces) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void k(const int* in, int* hist, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&hist[in[i] % 16], 1);
}
extern "C" __global__ void plain(const int* in, int* hist, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        hist[in[i] % 16] += 1;
}
)");
    std::vector<int> host(4096);
    std::iota(host.begin(), host.end(), 0);
    const auto in = e.to_device(host);
    const auto hist = e.to_device(std::vector<int>(16, 0));
    EXPECT_RAN(e.launch(m, "k", {8, 1, 1}, {128, 1, 1}, 0, in, hist, 4096));
    for (int v : e.to_host<int>(hist, 16)) EXPECT_EQ(v, 256);
    const auto hist2 = e.to_device(std::vector<int>(16, 0));
    const Finding& d = race_of(e.launch(m, "plain", {8, 1, 1}, {128, 1, 1}, 0, in, hist2, 4096));
    EXPECT_EQ(d.where.line, 8);
    EXPECT_EQ(d.region.parameter, 1);
}

TEST(GlobalRace, APlainWriteToWhatOtherBlocksUpdateAtomicallyRaces) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void k(int* sum) {
    if (blockIdx.x == 3 && threadIdx.x == 0) *sum = 0;
    atomicAdd(sum, 1);
}
)");
    const auto sum = e.to_device(std::vector<int>(1, 5));
    const Finding& d = race_of(e.launch(m, "k", {4, 1, 1}, {32, 1, 1}, 0, sum));
    EXPECT_TRUE(d.access == Access::atomic || d.other_access == Access::atomic);
    EXPECT_TRUE(d.access == Access::write || d.other_access == Access::write);
}

TEST(GlobalRace, CorrectKernelsWithShufflesTilesGridStrideLoopsAndDoubleBuffersRunClean) {
    Engine e;
    auto m = e.load(R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void warp_sums(const int* x, int* out, int n) {
    int v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    for (int o = 16; o > 0; o >>= 1) v += tile.shfl_down(v, o);
    if (tile.thread_rank() == 0) atomicAdd(out, v);
}
extern "C" __global__ void smooth(const float* in, float* out, int n, int steps) {
    __shared__ float buf[2][130];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    buf[0][t + 1] = in[i];
    if (t == 0) buf[0][0] = buf[1][0] = i > 0 ? in[i - 1] : 0.0f;
    if (t == blockDim.x - 1) buf[0][t + 2] = buf[1][t + 2] = i + 1 < n ? in[i + 1] : 0.0f;
    __syncthreads();
    int cur = 0;
    for (int s = 0; s < steps; ++s) {
        buf[1 - cur][t + 1] = (buf[cur][t] + buf[cur][t + 1] + buf[cur][t + 2]) / 3.0f;
        __syncthreads();
        cur = 1 - cur;
    }
    out[i] = buf[cur][t + 1];
}
)");
    std::vector<int> x(10000, 1);
    const auto xs = e.to_device(x);
    const auto sum = e.to_device(std::vector<int>(1, 0));
    EXPECT_RAN(e.launch(m, "warp_sums", {8, 1, 1}, {128, 1, 1}, 0, xs, sum, 10000));
    EXPECT_EQ(e.to_host<int>(sum, 1)[0], 10000);
    const auto in = e.to_device(std::vector<float>(512, 3.0f));
    const auto out = e.to_device(std::vector<float>(512, 0.0f));
    EXPECT_RAN(e.launch(m, "smooth", {4, 1, 1}, {128, 1, 1}, 0, in, out, 512, 4));
}

TEST(GlobalRace, AnInPlaceStencilReadsItsNeighboursWhileTheyAreWritten) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void k(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) a[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0f;
}
)");
    std::vector<float> host(1024);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i * i % 97);
    const auto a = e.to_device(host);
    const Finding& d = race_of(e.launch(m, "k", {8, 1, 1}, {128, 1, 1}, 0, a, 1024));
    EXPECT_EQ(d.where.line, 4);
    EXPECT_EQ(d.region.parameter, 0);
}

}  // namespace
}  // namespace xcuda::cpu::testing
