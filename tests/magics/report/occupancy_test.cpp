#include <gtest/gtest.h>

#include <algorithm>

#include "xcuda/report/occupancy.hpp"

using namespace xcuda::report;

namespace {

DeviceLimits sm90() { return *limits_for_arch("sm_90"); }

bool limited_by(const Occupancy& o, Limiter l) {
    return std::find(o.limiters.begin(), o.limiters.end(), l) != o.limiters.end();
}

}  // namespace

TEST(LimitsForArch, Sm90MatchesTheHopperLimits) {
    auto l = limits_for_arch("sm_90");
    ASSERT_TRUE(l);
    EXPECT_EQ(l->arch, "sm_90");
    EXPECT_EQ(l->max_threads_per_sm, 2048);
    EXPECT_EQ(l->max_blocks_per_sm, 32);
    EXPECT_EQ(l->regs_per_sm, 65536);
    EXPECT_EQ(l->reg_alloc_unit, 256);
    EXPECT_EQ(l->shared_per_sm, 228u * 1024);
    EXPECT_EQ(l->shared_per_block_optin, 227u * 1024);
    EXPECT_EQ(l->shared_alloc_unit, 128u);
    EXPECT_EQ(l->shared_reserved_per_block, 1024u);
}

TEST(LimitsForArch, AcceptsTheUsualSpellingsAndRejectsUnknownArchs) {
    for (const char* a : {"sm_90", "sm_90a", "compute_90", "90", "9.0"}) {
        auto l = limits_for_arch(a);
        ASSERT_TRUE(l) << a;
        EXPECT_EQ(l->arch, "sm_90") << a;
    }
    EXPECT_EQ(limits_for_arch("sm_86")->max_threads_per_sm, 1536);
    EXPECT_EQ(limits_for_arch("sm_75")->max_blocks_per_sm, 16);
    EXPECT_FALSE(limits_for_arch("sm_61"));
    EXPECT_FALSE(limits_for_arch("sm_"));
    EXPECT_FALSE(limits_for_arch("banana"));
    EXPECT_FALSE(limits_for_arch("9."));
    EXPECT_EQ(known_archs().front(), "sm_70");
}

// Hand check: 64 regs x 32 threads = 2048 regs/warp; 65536/4 = 16384 per sub-partition
// holds 8 warps, 32 per SM; a 256-thread block is 8 warps -> 4 blocks = 32/64 warps.
TEST(Occupancy, RegisterLimited64RegsAt256Threads) {
    Occupancy o = occupancy(sm90(), 64, 0, 256);
    EXPECT_EQ(o.warps_per_block, 8);
    EXPECT_EQ(o.blocks_by_registers, 4);
    EXPECT_EQ(o.blocks_by_threads, 8);
    EXPECT_EQ(o.blocks_by_shared, 228);  // only the 1 KiB reservation per block
    EXPECT_EQ(o.active_blocks, 4);
    EXPECT_EQ(o.active_warps, 32);
    EXPECT_EQ(o.max_warps, 64);
    EXPECT_DOUBLE_EQ(o.fraction, 0.5);
    EXPECT_EQ(o.limiters, std::vector<Limiter>{Limiter::registers});
    EXPECT_TRUE(o.problem.empty());
}

// Hand check: 37 regs -> 1184 regs/warp, rounded to 1280 (5 x 256); 16384/1280 = 12 warps
// per sub-partition, 48 per SM; 48/8 = 6 blocks = 48/64 = 75%. 40 regs round the same.
TEST(Occupancy, RegistersAreAllocatedPerWarpIn256RegisterUnits) {
    Occupancy o37 = occupancy(sm90(), 37, 0, 256);
    Occupancy o40 = occupancy(sm90(), 40, 0, 256);
    EXPECT_EQ(o37.registers_per_block, 1280 * 8);
    EXPECT_EQ(o37.active_blocks, 6);
    EXPECT_DOUBLE_EQ(o37.fraction, 0.75);
    EXPECT_EQ(o40.active_blocks, o37.active_blocks);
    EXPECT_TRUE(limited_by(o37, Limiter::registers));
}

// Hand check: 48 KiB static + 1 KiB reserved = 50176 B (a multiple of 128);
// 233472 / 50176 = 4 blocks of 4 warps = 16/64 = 25%.
TEST(Occupancy, SharedMemoryLimited48KiBAt128Threads) {
    Occupancy o = occupancy(sm90(), 32, 48 * 1024, 128);
    EXPECT_EQ(o.shared_per_block, 50176u);
    EXPECT_EQ(o.blocks_by_shared, 4);
    EXPECT_EQ(o.active_blocks, 4);
    EXPECT_DOUBLE_EQ(o.fraction, 0.25);
    EXPECT_EQ(o.limiters, std::vector<Limiter>{Limiter::shared_memory});
}

TEST(Occupancy, SharedMemoryIsRoundedToTheAllocationUnitIncludingDynamic) {
    // 1000 static + 100 dynamic + 1024 reserved = 2124 -> 2176 (17 x 128).
    Occupancy o = occupancy(sm90(), 16, 1000, 64, 100);
    EXPECT_EQ(o.shared_per_block, 2176u);
    EXPECT_EQ(o.blocks_by_shared, 233472 / 2176);
}

// 32-thread blocks: 64 would fit by threads, but an SM holds at most 32 blocks -> 50%.
TEST(Occupancy, SmallBlocksAreLimitedByBlocksPerSm) {
    Occupancy o = occupancy(sm90(), 32, 0, 32);
    EXPECT_EQ(o.active_blocks, 32);
    EXPECT_DOUBLE_EQ(o.fraction, 0.5);
    EXPECT_EQ(o.limiters, std::vector<Limiter>{Limiter::blocks_per_sm});
}

// 768 threads = 24 warps; 64/24 = 2 blocks = 48 warps = 75%; 16 regs allow 5 blocks.
TEST(Occupancy, BlockSizeThatDoesNotDivideTheSmIsLimitedByThreads) {
    Occupancy o = occupancy(sm90(), 16, 0, 768);
    EXPECT_EQ(o.active_blocks, 2);
    EXPECT_DOUBLE_EQ(o.fraction, 0.75);
    EXPECT_EQ(o.limiters, std::vector<Limiter>{Limiter::block_size});
}

TEST(Occupancy, ReportsEveryLimiterThatTies) {
    // 32 regs at 768 threads: registers allow 64/24 = 2 blocks, as do threads.
    Occupancy o = occupancy(sm90(), 32, 0, 768);
    EXPECT_EQ(o.active_blocks, 2);
    EXPECT_EQ(o.limiters, (std::vector<Limiter>{Limiter::registers, Limiter::block_size}));
}

TEST(Occupancy, PartialWarpCountsAsAWholeWarp) {
    Occupancy o = occupancy(sm90(), 32, 0, 100);
    EXPECT_EQ(o.warps_per_block, 4);
}

TEST(Occupancy, OtherArchitecturesUseTheirOwnLimits) {
    // sm_86: 48 warps, 16 blocks: 128-thread blocks -> min(12, 16) = 12 blocks = 100%.
    Occupancy a = occupancy(*limits_for_arch("sm_86"), 32, 0, 128);
    EXPECT_EQ(a.active_blocks, 12);
    EXPECT_DOUBLE_EQ(a.fraction, 1.0);
    // sm_75: 32 warps per SM, so one 1024-thread block fills it.
    Occupancy b = occupancy(*limits_for_arch("sm_75"), 32, 0, 1024);
    EXPECT_EQ(b.active_blocks, 1);
    EXPECT_DOUBLE_EQ(b.fraction, 1.0);
}

// 255 regs -> 8160, rounded to 8192 per warp; 1024 threads = 32 warps need 262144 > 65536.
// At most 8 warps (256 threads) fit.
TEST(Occupancy, BlockThatCannotFitItsRegistersSaysSoAndNamesTheLargestThatFits) {
    Occupancy o = occupancy(sm90(), 255, 0, 1024);
    EXPECT_EQ(o.active_blocks, 0);
    EXPECT_DOUBLE_EQ(o.fraction, 0.0);
    EXPECT_TRUE(o.limiters.empty());
    EXPECT_NE(o.problem.find("at most 256 threads"), std::string::npos) << o.problem;
}

TEST(Occupancy, TooMuchSharedMemoryPerBlockCannotLaunch) {
    Occupancy o = occupancy(sm90(), 32, 200 * 1024, 128, 30 * 1024);
    EXPECT_EQ(o.active_blocks, 0);
    EXPECT_NE(o.problem.find("227 KiB"), std::string::npos) << o.problem;
    // Exactly the opt-in limit still fits one block per SM.
    EXPECT_EQ(occupancy(sm90(), 32, 227 * 1024, 128).active_blocks, 1);
}

TEST(Occupancy, BlockLargerThan1024ThreadsIsRejected) {
    Occupancy o = occupancy(sm90(), 32, 0, 2048);
    EXPECT_EQ(o.active_blocks, 0);
    EXPECT_NE(o.problem.find("2048"), std::string::npos);
}

TEST(BestBlockSize, PicksTheLargestBlockWithTheHighestOccupancy) {
    Occupancy b = best_block_size(sm90(), 32, 0);
    EXPECT_DOUBLE_EQ(b.fraction, 1.0);
    EXPECT_EQ(b.block_size, 1024);
    EXPECT_EQ(b.block_size % 32, 0);
}

TEST(BestBlockSize, LiftsOccupancyAboveAPoorChoice) {
    // 48 KiB static shared per block caps blocks at 4: bigger blocks raise occupancy.
    Occupancy at128 = occupancy(sm90(), 32, 48 * 1024, 128);
    Occupancy best = best_block_size(sm90(), 32, 48 * 1024);
    EXPECT_GT(best.fraction, at128.fraction);
    // 512 (4 blocks) and 1024 threads (2 blocks) both fill the SM; the larger wins.
    EXPECT_DOUBLE_EQ(best.fraction, 1.0);
    EXPECT_EQ(best.block_size, 1024);
}

TEST(OccupancyAdvice, NamesTheLimiterAndTheRegisterCountThatWouldHelp) {
    auto l = sm90();
    Occupancy at = occupancy(l, 72, 0, 256);  // 2304/warp -> 7 warps/partition, 28/SM -> 3 blocks
    EXPECT_EQ(at.active_blocks, 3);
    const std::string a = occupancy_advice(l, 72, at, best_block_size(l, 72, 0));
    EXPECT_NE(a.find("Occupancy 38% at 256 threads/block"), std::string::npos) << a;
    EXPECT_NE(a.find("limited by registers"), std::string::npos) << a;
    EXPECT_NE(a.find("At most 64 registers/thread"), std::string::npos) << a;
}

TEST(OccupancyAdvice, FullOccupancyNeedsNoAdvice) {
    auto l = sm90();
    Occupancy at = occupancy(l, 32, 0, 256);
    const std::string a = occupancy_advice(l, 32, at, best_block_size(l, 32, 0));
    EXPECT_NE(a.find("Occupancy 100%"), std::string::npos) << a;
    EXPECT_EQ(a.find("limited by"), std::string::npos) << a;
}
