// What the checks find in wrong kernels, and where: kind, line, thread, the memory concerned.
#include "engine_harness.hpp"

namespace xcuda::cpu::testing {
namespace {

// Runs `kernel` of `source` with one int* of `n` ints; returns the failure (nullptr if none).
std::shared_ptr<const Failure> run_on_ints(Engine& e, const std::string& source, const char* kernel, Dim3 grid,
                                           Dim3 block, int n, int arg) {
    auto m = e.load(source);
    const auto buffer = e.to_device(std::vector<int>(static_cast<std::size_t>(n), 0));
    const LaunchOutcome out = e.launch(m, kernel, grid, block, 0, buffer, arg);
    if (out.status == CUDA_SUCCESS) return nullptr;
    EXPECT_NE(out.failure, nullptr) << "an error status without a report";
    return out.failure;
}

TEST(Findings, AnOffByOneWriteNamesTheParameterTheBytesPastTheEndTheLineAndTheThread) {
    Engine e;
    const auto f = run_on_ints(e, R"(
extern "C" __global__ void fill(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        out[i] = i;
})",
                               "fill", {4, 1, 1}, {256, 1, 1}, 1000, 1000);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->code, CUDA_ERROR_ILLEGAL_ADDRESS);
    const Finding& d = f->finding;
    EXPECT_EQ(d.kind, FindingKind::out_of_bounds);
    EXPECT_EQ(d.access, Access::write);
    EXPECT_EQ(d.size, 4u);
    // NVRTC names the program's file by its path from the working directory.
    EXPECT_EQ(d.where.file.substr(d.where.file.size() - 7), "cell.cu") << d.where.file;
    EXPECT_EQ(d.where.line, 5);
    EXPECT_EQ(d.thread.x, 1000u % 256);
    EXPECT_EQ(d.block.x, 1000u / 256);
    EXPECT_EQ(d.region.kind, Region::Kind::allocation);
    EXPECT_EQ(d.region.parameter, 0);
    EXPECT_EQ(d.region.size, 4000u);
    EXPECT_EQ(d.region.offset, 4000);  // 0 bytes past the end
    EXPECT_NE(f->report().find("0 bytes past the end"), std::string::npos) << f->report();
}

TEST(Findings, AMissingSyncthreadsIsARaceNamingTheSharedVariableAndBothLines) {
    Engine e;
    const auto f = run_on_ints(e, R"(
extern "C" __global__ void shift(int* out, int n) {
    __shared__ int tile[128];
    tile[threadIdx.x] = threadIdx.x;
    int left = tile[(threadIdx.x + 127) % 128];
    out[threadIdx.x] = left + n;
})",
                               "shift", {1, 1, 1}, {128, 1, 1}, 128, 0);
    ASSERT_NE(f, nullptr);
    const Finding& d = f->finding;
    EXPECT_EQ(d.kind, FindingKind::shared_race);
    EXPECT_EQ(d.where.line, 5);
    EXPECT_EQ(d.other_where.line, 4);
    EXPECT_EQ(d.access, Access::read);
    EXPECT_EQ(d.other_access, Access::write);
    EXPECT_NE(d.region.variable.find("tile"), std::string::npos) << d.region.variable;
}

TEST(Findings, TheSameKernelWithItsBarrierRunsClean) {
    Engine e;
    const auto f = run_on_ints(e, R"(
extern "C" __global__ void shift(int* out, int n) {
    __shared__ int tile[128];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    int left = tile[(threadIdx.x + 127) % 128];
    out[threadIdx.x] = left + n;
})",
                               "shift", {2, 1, 1}, {128, 1, 1}, 256, 0);
    EXPECT_EQ(f, nullptr) << f->report();
}

TEST(Findings, ASyncthreadsOnlySomeThreadsReachIsADivergentBarrier) {
    Engine e;
    const auto f = run_on_ints(e, R"(
extern "C" __global__ void half(int* out, int n) {
    if (threadIdx.x < 48) {
        __syncthreads();
    }
    __syncthreads();
    out[threadIdx.x] = n;
})",
                               "half", {1, 1, 1}, {64, 1, 1}, 64, 1);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->finding.kind, FindingKind::divergent_barrier);
    EXPECT_EQ(f->finding.divergence, Divergence::warp);  // threads 32-47 and 48-63 of one warp
    EXPECT_EQ(f->finding.where.line, 6);
    EXPECT_EQ(f->finding.other_where.line, 4);
    EXPECT_NE(f->report().find("cell.cu:4"), std::string::npos) << f->report();
}

TEST(Findings, ThreadsThatReturnBeforeABarrierAreNotWaitedFor) {
    Engine e;
    const auto f = run_on_ints(e, R"(
extern "C" __global__ void guarded(int* out, int n) {
    __shared__ int s[64];
    if (threadIdx.x >= n) return;
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[n - 1 - threadIdx.x];
})",
                               "guarded", {1, 1, 1}, {64, 1, 1}, 64, 40);
    EXPECT_EQ(f, nullptr) << f->report();
}

TEST(Findings, ADeviceAssertIsReportedWithItsMessageAndLine) {
    Engine e;
    const auto f = run_on_ints(e, R"(
// What <cassert> gives a kernel (the magics layer's built-in header; NVRTC has none).
extern "C" __device__ void __assertfail(const char*, const char*, unsigned, const char*, unsigned long);
#define assert(e) ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __func__, 1))
extern "C" __global__ void check(int* out, int n) {
    assert(threadIdx.x < n);
    out[threadIdx.x] = 1;
})",
                               "check", {1, 1, 1}, {32, 1, 1}, 32, 20);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->code, CUDA_ERROR_ASSERT);
    EXPECT_EQ(f->finding.kind, FindingKind::assertion);
    EXPECT_NE(f->finding.detail.find("threadIdx.x < n"), std::string::npos) << f->finding.detail;
    EXPECT_EQ(f->finding.thread.x, 20u);
    EXPECT_EQ(f->finding.where.line, 6);
}

TEST(Findings, AShuffleWhoseMaskNamesLanesThatNeverArriveIsReported) {
    Engine e;
    const auto f = run_on_ints(e, R"(
extern "C" __global__ void partial(int* out, int n) {
    int v = threadIdx.x;
    if (threadIdx.x < 16) v = __shfl_down_sync(0xffffffff, v, 1);
    out[threadIdx.x] = v + n;
})",
                               "partial", {1, 1, 1}, {32, 1, 1}, 32, 0);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->finding.kind, FindingKind::collective_absent_lanes);
    EXPECT_EQ(f->finding.where.line, 4);
}

TEST(Findings, TrapAndMisalignedAccessesAreFindingsToo) {
    Engine e;
    const auto trap = run_on_ints(e, R"(
extern "C" __global__ void stop(int* out, int n) { if (threadIdx.x == n) __trap(); out[threadIdx.x] = 0; }
)",
                                  "stop", {1, 1, 1}, {32, 1, 1}, 32, 3);
    ASSERT_NE(trap, nullptr);
    EXPECT_EQ(trap->finding.kind, FindingKind::trap);
    EXPECT_EQ(trap->finding.thread.x, 3u);
    const auto misaligned = run_on_ints(e, R"(
extern "C" __global__ void odd(int* out, int n) {
    float4* p = reinterpret_cast<float4*>(out + n);
    p[threadIdx.x] = make_float4(1, 2, 3, 4);
}
)",
                                        "odd", {1, 1, 1}, {4, 1, 1}, 64, 1);
    ASSERT_NE(misaligned, nullptr);
    EXPECT_EQ(misaligned->code, CUDA_ERROR_MISALIGNED_ADDRESS);
    EXPECT_EQ(misaligned->finding.kind, FindingKind::misaligned);
    EXPECT_EQ(misaligned->finding.size, 16u);
}

TEST(Findings, AReadOfFreedMemoryIsAUseAfterFree) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void read(const int* in, int* out) { out[threadIdx.x] = in[threadIdx.x]; }
)");
    const auto gone = e.to_device(std::vector<int>(32, 1)), out = e.to_device(std::vector<int>(32, 0));
    e.free(gone);
    const LaunchOutcome r = e.launch(m, "read", {1, 1, 1}, {32, 1, 1}, 0, gone, out);
    ASSERT_NE(r.failure, nullptr);
    EXPECT_EQ(r.failure->finding.kind, FindingKind::use_after_free);
    EXPECT_EQ(r.failure->finding.region.size, 128u);
}

TEST(Findings, WithChecksOffAKernelOutsideDeviceMemoryStillCannotTouchTheHost) {
    Engine e;
    e.options.checks = false;
    auto m = e.load(R"(
extern "C" __global__ void wild(int* p) { p[threadIdx.x] = 1; }
)");
    int host = 0;
    const LaunchOutcome r = e.launch(m, "wild", {1, 1, 1}, {1, 1, 1}, 0, reinterpret_cast<std::uint64_t>(&host));
    EXPECT_EQ(r.status, CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(host, 0);
}

}  // namespace
}  // namespace xcuda::cpu::testing
