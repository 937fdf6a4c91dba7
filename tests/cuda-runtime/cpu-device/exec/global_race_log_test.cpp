// The global race check's log on its own: a warp instruction's lanes become as few entries as
// describe them exactly (what keeps the check cheap on coalesced kernels), and each entry still
// says which lane touched which element.
#include "check/global_race.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace xcuda::cpu::testing {
namespace {

struct Log {
    GlobalRaces launch;
    GlobalRaceLog log;
    explicit Log(std::size_t limit = 1 << 20) {
        log.begin_launch(launch, limit);
        log.begin_unit(0, 1, 1);
        log.add_cta(Dim3{});
    }
    static GlobalRaceLog::Where at() { return {7, 0, 0, 0, nullptr, 0x1000, 0x100000}; }
};

TEST(GlobalRaceLog, ThirtyTwoConsecutiveFloatsAreOneRun) {
    Log l;
    std::vector<std::uint64_t> a(32);
    for (unsigned i = 0; i < 32; ++i) a[i] = 0x2000 + 4 * i;
    l.log.note_warp(Log::at(), a.data(), ~0u, 4, GlobalAccessKind::read);
    l.log.end_unit();
    ASSERT_EQ(l.log.accesses().size(), 1u);
    EXPECT_EQ(l.log.accesses()[0].lo, 0x2000u);
    EXPECT_EQ(l.log.accesses()[0].bytes, 128u);
    EXPECT_EQ(l.log.accesses()[0].lanes, ~0u);
}

TEST(GlobalRaceLog, TwoRowsOfATileAreTwoRunsEachWithItsLanes) {
    Log l;
    std::vector<std::uint64_t> a(32);
    for (unsigned i = 0; i < 32; ++i) a[i] = 0x2000 + 4 * (i % 16) + (i / 16) * 2048;
    l.log.note_warp(Log::at(), a.data(), ~0u, 4, GlobalAccessKind::read);
    l.log.end_unit();
    ASSERT_EQ(l.log.accesses().size(), 2u);
    EXPECT_EQ(l.log.accesses()[0].lanes, 0x0000FFFFu);
    EXPECT_EQ(l.log.accesses()[1].lanes, 0xFFFF0000u);
    EXPECT_EQ(l.log.accesses()[1].lo, 0x2000u + 2048);
    EXPECT_EQ(l.log.accesses()[1].bytes, 64u);
}

TEST(GlobalRaceLog, LanesReadingOneElementAreOneEntryAndScatteredLanesOneEach) {
    Log l;
    std::vector<std::uint64_t> same(32, 0x3000), scattered(32);
    for (unsigned i = 0; i < 32; ++i) scattered[i] = 0x4000 + 64 * i;
    l.log.note_warp(Log::at(), same.data(), ~0u, 4, GlobalAccessKind::read);
    l.log.note_warp(Log::at(), scattered.data(), ~0u, 4, GlobalAccessKind::read);
    l.log.end_unit();
    ASSERT_EQ(l.log.accesses().size(), 33u);
    EXPECT_EQ(l.log.accesses()[0].elem, 0u);  // every lane read all of it
    EXPECT_EQ(l.log.accesses()[0].lanes, ~0u);
    EXPECT_EQ(l.log.accesses()[32].lanes, 1u << 31);
}

TEST(GlobalRaceLog, LanesThatStoredNothingNewSplitTheRunsAroundThem) {
    Log l;
    std::vector<std::uint64_t> a(32);
    for (unsigned i = 0; i < 32; ++i) a[i] = 0x2000 + 4 * i;
    const std::uint32_t changed = ~0u & ~(1u << 10);  // lane 10 stored what was there
    l.log.note_warp(Log::at(), a.data(), changed, 4, GlobalAccessKind::write);
    l.log.end_unit();
    ASSERT_EQ(l.log.accesses().size(), 2u);
    EXPECT_EQ(l.log.accesses()[0].lanes, (1u << 10) - 1);
    EXPECT_EQ(l.log.accesses()[1].lanes, changed & ~((1u << 11) - 1));
    EXPECT_EQ(l.log.accesses()[1].lo, 0x2000u + 44);
}

TEST(GlobalRaceLog, OneLaneAtATimeExtendsTheRunItsInstructionBegan) {
    Log l;
    for (unsigned lane = 0; lane < 32; lane += 2) {  // every other lane, consecutive elements
        l.log.note(Log::at(), 0x5000 + 8 * (lane / 2), 8, lane, GlobalAccessKind::read);
    }
    l.log.end_unit();
    ASSERT_EQ(l.log.accesses().size(), 1u);
    EXPECT_EQ(l.log.accesses()[0].bytes, 128u);
    EXPECT_EQ(l.log.accesses()[0].lanes, 0x55555555u);
}

TEST(GlobalRaceLog, PastItsLimitItLeavesOutReadsOfWhatTheUnitDidNotWriteThenEverything) {
    Log l(4);
    for (unsigned i = 0; i < 6; ++i) l.log.note(Log::at(), 0x2000 + 64 * i, 4, 0, GlobalAccessKind::read);
    EXPECT_TRUE(l.log.limited());
    for (unsigned i = 0; i < 6; ++i) l.log.note(Log::at(), 0x9000 + 64 * i, 4, 0, GlobalAccessKind::write);
    l.log.end_unit();
    ASSERT_EQ(l.log.accesses().size(), 8u);  // 4 reads; writes until twice the limit
    EXPECT_EQ(l.log.accesses()[3].kind, GlobalAccessKind::read);
    EXPECT_EQ(l.log.accesses()[4].kind, GlobalAccessKind::write);
}

}  // namespace
}  // namespace xcuda::cpu::testing
