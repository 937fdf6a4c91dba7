// The teaching profile's counts, per cell line: what a coalesced and a strided load cost in
// sectors, what a column of an unpadded shared tile costs in bank conflicts, where warps diverge.
#include "engine_harness.hpp"

#include <map>

namespace xcuda::cpu::testing {
namespace {

// The counts of each cell line of the launch's profile, summed over its instructions.
std::map<int, InstructionCounts> by_line(const LineProfile& p) {
    std::map<int, InstructionCounts> lines;
    for (const auto& row : p.rows) {
        InstructionCounts& c = lines[row.where.line];
        c.executed += row.counts.executed;
        c.lanes += row.counts.lanes;
        c.divergent += row.counts.divergent;
        c.requests += row.counts.requests;
        c.sectors += row.counts.sectors;
        c.bank_conflicts += row.counts.bank_conflicts;
    }
    return lines;
}

LaunchOutcome profiled(Engine& e, const std::shared_ptr<Module>& m, const char* kernel, std::uint64_t a,
                       std::uint64_t b) {
    e.options.profile = true;
    return e.launch(m, kernel, {1, 1, 1}, {32, 1, 1}, 0, a, b);
}

TEST(LineProfile, ACoalescedLoadNeedsFourSectorsAndAStridedOneThirtyTwo) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void copy(const float* in, float* out) {
    float coalesced = in[threadIdx.x];
    float strided = in[threadIdx.x * 32];
    out[threadIdx.x] = coalesced + strided;
})");
    const auto in = e.to_device(std::vector<float>(32 * 32, 1.0f)), out = e.allocate(32 * 4);
    const LaunchOutcome r = profiled(e, m, "copy", in, out);
    ASSERT_EQ(r.status, CUDA_SUCCESS);
    ASSERT_NE(r.profile, nullptr);
    auto lines = by_line(*r.profile);
    EXPECT_EQ(lines[3].requests, 1u);
    EXPECT_EQ(lines[3].sectors, 4u);  // 32 lanes x 4 bytes = 128 contiguous bytes
    EXPECT_EQ(lines[4].requests, 1u);
    EXPECT_EQ(lines[4].sectors, 32u);  // 128 bytes apart: a sector each
    EXPECT_EQ(lines[5].sectors, 4u);   // the store, coalesced
    for (const auto& [line, c] : lines) EXPECT_EQ(c.divergent, 0u) << "line " << line;
}

TEST(LineProfile, AColumnOfAnUnpaddedSharedTileIsA32WayBankConflictAndPaddingRemovesIt) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void columns(const float* in, float* out) {
    __shared__ float tile[32][32];
    __shared__ float padded[32][33];
    for (int r = 0; r < 32; ++r) { tile[r][threadIdx.x] = in[r * 32 + threadIdx.x]; padded[r][threadIdx.x] = 0; }
    __syncwarp();
    float a = tile[threadIdx.x][0];
    float b = padded[threadIdx.x][0];
    out[threadIdx.x] = a + b;
})");
    const auto in = e.to_device(std::vector<float>(32 * 32, 1.0f)), out = e.allocate(32 * 4);
    const LaunchOutcome r = profiled(e, m, "columns", in, out);
    ASSERT_EQ(r.status, CUDA_SUCCESS) << (r.failure ? r.failure->report() : "");
    auto lines = by_line(*r.profile);
    EXPECT_EQ(lines[7].bank_conflicts, 31u);  // 32 words in one bank: 32 wavefronts
    EXPECT_EQ(lines[8].bank_conflicts, 0u);   // a row of 33: every lane in its own bank
}

TEST(LineProfile, ALoopWhoseTripCountDependsOnTheLaneDivergesAndCountsOnlyTheLanesThatRun) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void loopy(const int* in, int* out) {
    int v = 0;
    for (int i = 0; i < threadIdx.x % 4; ++i)
        v = v * 3 + in[i];
    out[threadIdx.x] = v;
})");
    const auto in = e.to_device(std::vector<int>(32, 2)), out = e.allocate(32 * 4);
    const LaunchOutcome r = profiled(e, m, "loopy", in, out);
    ASSERT_EQ(r.status, CUDA_SUCCESS);
    auto lines = by_line(*r.profile);
    std::uint64_t divergent = 0;
    for (const auto& [line, c] : lines) divergent += c.divergent;
    EXPECT_GE(divergent, 1u);
    // The loop body's load: every warp-level execution is one request; the lanes that ran it are
    // the sum of the trip counts (8 lanes each of 1, 2 and 3 trips: 48).
    ASSERT_GT(lines[5].requests, 0u);
    EXPECT_EQ(lines[5].lanes % 48, 0u) << lines[5].lanes;
    EXPECT_EQ(e.to_host<int>(out, 32)[3], (2 * 3 + 2) * 3 + 2);
}

}  // namespace
}  // namespace xcuda::cpu::testing
