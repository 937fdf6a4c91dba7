// Launches from the device (dynamic parallelism, compiled with -rdc as NVRTC's device runtime
// calls): children complete before their parent's launch does, launches into one stream run in
// order, a tail launch after everything else its parent launched, the device runtime's errors come
// back to the launching thread, and a child's findings name the child at its line.
#include "engine_harness.hpp"

#include <numeric>

namespace xcuda::cpu::testing {
namespace {

#define EXPECT_RAN(out) ASSERT_EQ((out).status, CUDA_SUCCESS) << ((out).failure ? (out).failure->report() : "")

std::shared_ptr<Module> load_rdc(Engine& e, const std::string& source) { return e.load(source, {"-rdc=true"}); }

TEST(DeviceLaunch, EachBlockLaunchesAChildAndEveryChildHasRunWhenTheParentsLaunchReturns) {
    Engine e;
    auto m = load_rdc(e, R"(
extern "C" __global__ void child(int* out, int base) { out[base + threadIdx.x] = base + threadIdx.x; }
extern "C" __global__ void parent(int* out) {
    if (threadIdx.x == 0) child<<<1, 32>>>(out, blockIdx.x * 32);
})");
    ASSERT_NE(e.ptx().find("__cudaCDP2LaunchDeviceV2"), std::string::npos)
        << "NVRTC no longer calls the device runtime";
    const auto out = e.to_device(std::vector<int>(128, -1));
    EXPECT_RAN(e.launch(m, "parent", {4, 1, 1}, {64, 1, 1}, 0, out));
    std::vector<int> expected(128);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(e.to_host<int>(out, 128), expected);
}

TEST(DeviceLaunch, LaunchesIntoOneStreamRunInTheOrderTheyWereMade) {
    Engine e;
    auto m = load_rdc(e, R"(
extern "C" __global__ void digit(long long* p, int d) { *p = *p * 10 + d; }
extern "C" __global__ void count(long long* implicit, long long* named) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    for (int d = 1; d <= 6; ++d) {
        digit<<<1, 1>>>(implicit, d);
        digit<<<1, 1, 0, s>>>(named, d);
    }
    cudaStreamDestroy(s);
})");
    const auto implicit = e.to_device(std::vector<long long>{0}), named = e.to_device(std::vector<long long>{0});
    EXPECT_RAN(e.launch(m, "count", {1, 1, 1}, {1, 1, 1}, 0, implicit, named));
    EXPECT_EQ(e.to_host<long long>(implicit, 1)[0], 123456);
    EXPECT_EQ(e.to_host<long long>(named, 1)[0], 123456);
}

TEST(DeviceLaunch, ATailLaunchRunsAfterTheParentGridAndEverythingElseItLaunched) {
    Engine e;
    auto m = load_rdc(e, R"(
extern "C" __global__ void put(int* p, int i, int v) { p[i] = v; }
extern "C" __global__ void copy(int* p, int to, int from) { p[to] = p[from]; }
extern "C" __global__ void grandparent_of_copies(int* p) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        copy<<<1, 1, 0, cudaStreamTailLaunch>>>(p, 1, 0);  // launched first, runs last
        put<<<1, 1>>>(p, 0, 42);
        put<<<1, 1, 0, cudaStreamFireAndForget>>>(p, 2, 7);
    }
    if (blockIdx.x == 1 && threadIdx.x == 0) p[3] = 5;  // the parent grid's own work
})");
    const auto p = e.to_device(std::vector<int>{0, 0, 0, 0});
    EXPECT_RAN(e.launch(m, "grandparent_of_copies", {2, 1, 1}, {32, 1, 1}, 0, p));
    EXPECT_EQ(e.to_host<int>(p, 4), (std::vector<int>{42, 42, 7, 5}));
}

TEST(DeviceLaunch, RecursionStopsAtTheNestingLimitWithTheDeviceRuntimesError) {
    Engine e;
    auto m = load_rdc(e, R"(
extern "C" __global__ void deeper(int* depth_errors, int depth) {
    depth_errors[depth] = -1;  // reached
    deeper<<<1, 1>>>(depth_errors, depth + 1);
    depth_errors[depth] = cudaGetLastError();
})");
    const auto errors = e.to_device(std::vector<int>(30, -2));
    EXPECT_RAN(e.launch(m, "deeper", {1, 1, 1}, {1, 1, 1}, 0, errors, 0));
    const auto got = e.to_host<int>(errors, 30);
    for (int d = 0; d < 24; ++d) EXPECT_EQ(got[d], 0) << d;  // cudaSuccess: the launch was made
    EXPECT_EQ(got[24], 65);                                  // cudaErrorLaunchMaxDepthExceeded
    EXPECT_EQ(got[25], -2);                                  // never ran
}

TEST(DeviceLaunch, ABadConfigurationIsReturnedToTheLaunchingThreadAndNothingRuns) {
    Engine e;
    auto m = load_rdc(e, R"(
extern "C" __global__ void mark(int* p) { p[0] = 1; }
extern "C" __global__ void launcher(int* p, int* error, int* peeked) {
    mark<<<1, 2048>>>(p);
    peeked[0] = cudaPeekAtLastError();
    error[0] = cudaGetLastError();
    error[1] = cudaGetLastError();  // read once: the second is cudaSuccess
    cudaStream_t s;
    error[2] = cudaStreamCreateWithFlags(&s, cudaStreamDefault);  // the device allows only non-blocking streams
})");
    const auto p = e.to_device(std::vector<int>{0}), error = e.to_device(std::vector<int>{-1, -1, -1}),
               peeked = e.to_device(std::vector<int>{-1});
    EXPECT_RAN(e.launch(m, "launcher", {1, 1, 1}, {1, 1, 1}, 0, p, error, peeked));
    EXPECT_EQ(e.to_host<int>(p, 1)[0], 0);
    EXPECT_EQ(e.to_host<int>(peeked, 1)[0], 9);  // cudaErrorInvalidConfiguration
    EXPECT_EQ(e.to_host<int>(error, 3), (std::vector<int>{9, 0, 1}));
}

TEST(DeviceLaunch, AChildsOutOfBoundsWriteIsAFindingInTheChildAtItsLine) {
    Engine e;
    auto m = load_rdc(e, R"(
extern "C" __global__ void fill(int* out, int n) {
    out[threadIdx.x] = n;
}
extern "C" __global__ void spawn(int* out, int n) {
    if (threadIdx.x == 0) fill<<<1, n + 1>>>(out, n);
})");
    const auto out = e.to_device(std::vector<int>(16, 0));
    const LaunchOutcome r = e.launch(m, "spawn", {1, 1, 1}, {32, 1, 1}, 0, out, 16);
    ASSERT_EQ(r.status, CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(r.failure->kernel, "fill");
    EXPECT_EQ(r.failure->launched_from, "spawn");
    EXPECT_EQ(r.failure->finding.kind, FindingKind::out_of_bounds);
    EXPECT_EQ(r.failure->finding.where.line, 3);
    EXPECT_EQ(r.failure->finding.thread.x, 16u);
}

TEST(DeviceLaunch, PassingSharedMemoryToAChildIsAFindingAtTheLaunch) {
    Engine e;
    auto m = load_rdc(e, R"(
extern "C" __global__ void sum(const int* values, int* total) { atomicAdd(total, values[threadIdx.x]); }
extern "C" __global__ void stage(int* total) {
    __shared__ int values[32];
    values[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) sum<<<1, 32>>>(values, total);
})");
    const auto total = e.to_device(std::vector<int>{0});
    const LaunchOutcome r = e.launch(m, "stage", {1, 1, 1}, {32, 1, 1}, 0, total);
    ASSERT_NE(r.status, CUDA_SUCCESS);
    EXPECT_EQ(r.failure->finding.kind, FindingKind::invalid_operation);
    EXPECT_EQ(cell_line(r.failure->finding.where), 7) << r.failure->finding.where.str();
    EXPECT_NE(r.failure->finding.detail.find("cannot use its parent's shared or local memory"), std::string::npos)
        << r.failure->finding.detail;
}

TEST(DeviceLaunch, ChildGridsAreProfiledAfterTheirParent) {
    Engine e;
    e.options.profile = true;
    auto m = load_rdc(e, R"(
extern "C" __global__ void child(int* out) { out[threadIdx.x] = 1; }
extern "C" __global__ void parent(int* out) { if (threadIdx.x == 0) child<<<1, 8>>>(out); }
)");
    const auto out = e.to_device(std::vector<int>(8, 0));
    const LaunchOutcome r = e.launch(m, "parent", {2, 1, 1}, {32, 1, 1}, 0, out);
    EXPECT_RAN(r);
    ASSERT_NE(r.profile, nullptr);
    EXPECT_EQ(r.profile->kernel, "parent");
    ASSERT_EQ(r.child_profiles.size(), 2u);
    EXPECT_EQ(r.child_profiles[0]->kernel, "child");
}

}  // namespace
}  // namespace xcuda::cpu::testing
