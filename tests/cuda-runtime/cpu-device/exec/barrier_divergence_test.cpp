// Divergent barriers judged as compute-sanitizer's synccheck judged the probes of
// bench/probes/checks on an H100 (the kernels are the probes' own, s1-s9): reported where it
// reported, in its words, with both lines where two barriers are involved; the early-return
// patterns it accepts run clean.
#include "engine_harness.hpp"

#include <set>

namespace xcuda::cpu::testing {
namespace {

std::shared_ptr<const Failure> run(Engine& e, const std::string& source, Dim3 block, int n = 0) {
    auto m = e.load(source);
    const auto out = e.to_device(std::vector<int>(block.x, 0));
    const LaunchOutcome o =
        n != 0 ? e.launch(m, "k", {1, 1, 1}, block, 0, out, n) : e.launch(m, "k", {1, 1, 1}, block, 0, out);
    if (o.status == CUDA_SUCCESS) return nullptr;
    EXPECT_NE(o.failure, nullptr) << "an error status without a report";
    return o.failure;
}

TEST(BarrierDivergence, LanesOfAWarpSkippingABarrierAreDivergentInTheWarpAtItsLine) {  // s1
    Engine e;
    const auto f = run(e, R"(
extern "C" __global__ void k(int* out) {
    if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = 1;
})",
                       {64, 1, 1});
    ASSERT_NE(f, nullptr);
    const Finding& d = f->finding;
    EXPECT_EQ(d.kind, FindingKind::divergent_barrier);
    EXPECT_EQ(d.divergence, Divergence::warp);
    EXPECT_EQ(d.where.line, 3);
    EXPECT_EQ(d.waiting, "threads 0-15");
    EXPECT_EQ(d.absent, "threads 16-31");
    EXPECT_FALSE(d.absent_at_barrier);
    EXPECT_EQ(d.other_where.line, 4);  // where the others went
    EXPECT_NE(f->report().find("Divergent thread(s) in warp"), std::string::npos) << f->report();
}

TEST(BarrierDivergence, AWholeWarpReturningBeforeABarrierIsNotWaitedFor) {  // s2
    Engine e;
    EXPECT_EQ(run(e, R"(
extern "C" __global__ void k(int* out) {
    if (threadIdx.x >= 32) return;
    __syncthreads();
    out[threadIdx.x] = 1;
})",
                  {64, 1, 1}),
              nullptr);
}

TEST(BarrierDivergence, PartOfAWarpReturningBeforeABarrierIsNotWaitedFor) {  // s3
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void k(int* out, int n) {
    int t = threadIdx.x;
    if (t >= n) return;
    __syncthreads();
    out[t] = 1;
})");
    const auto out = e.to_device(std::vector<int>(64, 0));
    const LaunchOutcome o = e.launch(m, "k", {1, 1, 1}, {64, 1, 1}, 0, out, 40);
    ASSERT_EQ(o.status, CUDA_SUCCESS) << o.failure->report();
    const auto got = e.to_host<int>(out, 64);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(got[i], i < 40 ? 1 : 0) << i;
}

TEST(BarrierDivergence, AReductionWithItsBarrierInsideIfIsDivergentInTheWarpWhereTheLanesSplit) {  // s4
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void k(const float* in, float* out) {
    __shared__ float sm[128];
    int t = threadIdx.x;
    sm[t] = in[t];
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
        if (t < s) {
            sm[t] += sm[t + s];
            __syncthreads();
        }
    }
    if (t == 0) out[0] = sm[0];
})");
    const auto in = e.to_device(std::vector<float>(128, 1.0f));
    const auto out = e.to_device(std::vector<float>(1, 0.0f));
    const LaunchOutcome o = e.launch(m, "k", {1, 1, 1}, {128, 1, 1}, 0, in, out);
    ASSERT_NE(o.failure, nullptr);
    const Finding& d = o.failure->finding;
    EXPECT_EQ(d.kind, FindingKind::divergent_barrier);
    EXPECT_EQ(d.divergence, Divergence::warp);  // the whole warps that skipped at s = 64 and 32 exited
    EXPECT_EQ(d.where.line, 10);
    EXPECT_EQ(d.waiting, "threads 0-15");
    EXPECT_EQ(d.absent, "threads 16-31");
}

TEST(BarrierDivergence, WholeWarpsAtTheBarriersOfAnIfAndItsElseAreDivergentInTheBlockNamingBoth) {  // s5
    Engine e;
    const auto f = run(e, R"(
extern "C" __global__ void k(int* out) {
    __shared__ int sm[64];
    int t = threadIdx.x;
    if (t < 32) { sm[t] = 1; __syncthreads(); out[t] = sm[63 - t]; }
    else { sm[t] = 2; __syncthreads(); out[t] = sm[63 - t]; }
})",
                       {64, 1, 1});
    ASSERT_NE(f, nullptr);
    const Finding& d = f->finding;
    EXPECT_EQ(d.divergence, Divergence::block);
    EXPECT_TRUE(d.absent_at_barrier);
    const std::set<int> lines{d.where.line, d.other_where.line};
    EXPECT_EQ(lines, (std::set<int>{5, 6}));
    EXPECT_NE(f->report().find("Divergent thread(s) in block"), std::string::npos) << f->report();
}

TEST(BarrierDivergence, LanesOfOneWarpAtTheBarriersOfAnIfAndItsElseAreDivergentInTheWarp) {  // s6
    Engine e;
    const auto f = run(e, R"(
extern "C" __global__ void k(int* out) {
    __shared__ int sm[64];
    int t = threadIdx.x;
    if (t < 16) { sm[t] = 1; __syncthreads(); out[t] = sm[63 - t]; }
    else { sm[t] = 2; __syncthreads(); out[t] = sm[63 - t]; }
})",
                       {64, 1, 1});
    ASSERT_NE(f, nullptr);
    const Finding& d = f->finding;
    EXPECT_EQ(d.divergence, Divergence::warp);
    EXPECT_TRUE(d.absent_at_barrier);
    const std::set<int> lines{d.where.line, d.other_where.line};
    EXPECT_EQ(lines, (std::set<int>{5, 6}));
}

TEST(BarrierDivergence, WholeWarpsLoopingThroughABarrierADifferentNumberOfTimesThenExitingRunClean) {  // s7
    Engine e;
    EXPECT_EQ(run(e, R"(
extern "C" __global__ void k(int* out) {
    int t = threadIdx.x;
    int trips = t < 32 ? 2 : 1;
    for (int i = 0; i < trips; ++i) __syncthreads();
    out[t] = trips;
})",
                  {64, 1, 1}),
              nullptr);
}

TEST(BarrierDivergence, PartOfAWarpReturningBeforeTwoBarriersRunsClean) {  // s8
    Engine e;
    EXPECT_EQ(run(e, R"(
extern "C" __global__ void k(int* out, int n) {
    __shared__ int sm[64];
    int t = threadIdx.x;
    if (t >= n) return;
    sm[t] = t;
    __syncthreads();
    out[t] = sm[(t + 1) % n];
    __syncthreads();
})",
                  {64, 1, 1}, 40),
              nullptr);
}

TEST(BarrierDivergence, WholeWarpsThatSkippedABarrierAreBlamedAtTheNextOneAndTheSkippedOneIsNamed) {  // s9
    Engine e;
    const auto f = run(e, R"(
extern "C" __global__ void k(int* out) {
    __shared__ int sm[128];
    int t = threadIdx.x;
    if (t < 64) __syncthreads();
    sm[t] = t;
    __syncthreads();
    out[t] = sm[127 - t];
})",
                       {128, 1, 1});
    ASSERT_NE(f, nullptr);
    const Finding& d = f->finding;
    EXPECT_EQ(d.divergence, Divergence::block);
    EXPECT_EQ(d.where.line, 7);
    EXPECT_EQ(d.other_where.line, 5);
    EXPECT_EQ(d.waiting, "threads 64-127");
    EXPECT_EQ(d.absent, "threads 0-63");
    EXPECT_EQ(f->finding.thread.x, 64u);
}

TEST(BarrierDivergence, ABarrierThatCanNeverCompleteSaysWhoWaitsAndWhoNeverComes) {
    Engine e;
    const auto f = run(e, R"(
extern "C" __global__ void k(int* out) {
    if (threadIdx.x < 32) {
        __syncthreads();
    } else {
        asm volatile("bar.sync 1;");
    }
})",
                       {64, 1, 1});
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->finding.kind, FindingKind::divergent_barrier);
    EXPECT_EQ(f->finding.where.line, 4);
    EXPECT_EQ(f->finding.waiting, "threads 0-31");
    EXPECT_NE(f->finding.absent.find("32 running threads"), std::string::npos) << f->finding.absent;
}

TEST(BarrierDivergence, WithTheChecksOffADivergentBarrierThatCompletesRunsOnAsOnAGpu) {
    Engine e;
    e.options.checks = false;
    EXPECT_EQ(run(e, R"(
extern "C" __global__ void k(int* out) {
    if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = 1;
})",
                  {64, 1, 1}),
              nullptr);
}

TEST(BarrierDivergence, ARaceUnderABarrierSomeWarpsSkipNamesTheBarrierTheWriterWaitsAt) {
    Engine e;
    const auto f = run(e, R"(
extern "C" __global__ void k(int* out) {
    __shared__ int s[128];
    int tid = threadIdx.x;
    s[tid] = tid;
    if (tid < 64) __syncthreads();
    out[tid] = s[127 - tid];
})",
                       {128, 1, 1});
    ASSERT_NE(f, nullptr);
    const Finding& d = f->finding;
    EXPECT_EQ(d.kind, FindingKind::shared_race);
    EXPECT_EQ(d.where.line, 7);
    EXPECT_EQ(d.other_where.line, 5);
    EXPECT_EQ(d.skipped_barrier.line, 6);  // the writer waits there; the reader skipped it
    EXPECT_NE(f->report().find("did not reach"), std::string::npos) << f->report();
}

}  // namespace
}  // namespace xcuda::cpu::testing
