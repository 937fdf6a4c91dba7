// The device memory arena (check/device_memory.hpp): alignment, red zones, zero fill, the
// quarantine, running out, the allocation table, and concurrent use.
#include "check/device_memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

namespace xcuda::cpu {
namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

bool all_zero(std::uint64_t address, std::size_t bytes) {
    const auto* p = reinterpret_cast<const unsigned char*>(address);
    return std::all_of(p, p + bytes, [](unsigned char b) { return b == 0; });
}

TEST(DeviceMemory, AllocationsAreAlignedInsideTheArenaAndApart) {
    DeviceMemory memory(64 * mib);
    std::vector<std::uint64_t> bases;
    for (std::size_t bytes : {1, 7, 255, 256, 257, 4096, 100000}) {
        const std::uint64_t base = memory.allocate(bytes);
        ASSERT_NE(base, 0u) << bytes;
        EXPECT_EQ(base % DeviceMemory::alignment, 0u);
        EXPECT_TRUE(memory.in_arena(base, bytes));
        bases.push_back(base);
    }
    const auto table = memory.table();
    ASSERT_EQ(table->live.size(), bases.size());
    for (std::size_t i = 1; i < table->live.size(); ++i) {
        const Allocation& before = table->live[i - 1];
        // At least a 256-byte red zone between the end of one allocation and the next.
        EXPECT_GE(table->live[i].base, before.base + before.size + 256);
    }
}

TEST(DeviceMemory, RedZonesGrowWithTheAllocation) {
    DeviceMemory memory(256 * mib);
    const std::uint64_t big = memory.allocate(16 * mib);
    const std::uint64_t next = memory.allocate(16);
    EXPECT_GE(next - (big + 16 * mib), 64u * 1024);  // an overrun by a row lands in the red zone
}

TEST(DeviceMemory, NewAllocationsReadAsZerosEvenWhereFreeSpaceWasWritten) {
    DeviceMemory memory(64 * mib, 0);  // no quarantine: freed space is reused at once
    const std::uint64_t a = memory.allocate(10000);
    std::memset(reinterpret_cast<void*>(a), 0xAB, 10000);
    // A kernel without checks may write past its allocation, into the red zone and free space.
    std::memset(reinterpret_cast<void*>(a + 10000), 0xCD, 20000);
    ASSERT_EQ(memory.free(a), DeviceMemory::FreeResult::freed);
    const std::uint64_t b = memory.allocate(30000);
    EXPECT_EQ(b, a);  // first fit
    EXPECT_TRUE(all_zero(b, 30000));
}

TEST(DeviceMemory, FreedAllocationsStayQuarantinedAndAreNotReused) {
    DeviceMemory memory(64 * mib);
    const std::uint64_t a = memory.allocate(4096);
    ASSERT_EQ(memory.free(a), DeviceMemory::FreeResult::freed);
    EXPECT_EQ(memory.free(a), DeviceMemory::FreeResult::not_allocated);
    const std::uint64_t b = memory.allocate(4096);
    EXPECT_NE(b, a);
    const auto table = memory.table();
    ASSERT_EQ(table->freed.size(), 1u);
    EXPECT_EQ(table->freed[0].base, a);
    EXPECT_EQ(table->freed_containing(a + 100), &table->freed[0]);
    EXPECT_EQ(table->containing(a + 100), nullptr);
}

TEST(DeviceMemory, TheQuarantineReleasesItsOldestFirstAndReleasedSpaceReadsZero) {
    DeviceMemory memory(64 * mib, 3 * mib);
    const std::uint64_t first = memory.allocate(mib);
    const std::uint64_t second = memory.allocate(mib);
    const std::uint64_t third = memory.allocate(mib);
    std::memset(reinterpret_cast<void*>(first), 0x11, mib);
    memory.free(first);
    memory.free(second);
    auto table = memory.table();
    EXPECT_EQ(table->freed.size(), 2u);
    memory.free(third);  // over 3 MiB with the red zones: the oldest leaves the quarantine
    table = memory.table();
    ASSERT_EQ(table->freed.size(), 2u);
    EXPECT_EQ(table->freed_containing(first), nullptr);
    EXPECT_NE(table->freed_containing(second), nullptr);
    const std::uint64_t again = memory.allocate(mib);
    EXPECT_EQ(again, first);  // its space is free again, first fit from the bottom
    EXPECT_TRUE(all_zero(again, mib));
}

TEST(DeviceMemory, TheEnginesOwnAllocationsAreNotQuarantined) {
    DeviceMemory memory(64 * mib);
    const std::uint64_t params = memory.allocate(64, Allocation::Kind::launch_parameters);
    memory.free(params);
    EXPECT_TRUE(memory.table()->freed.empty());
    EXPECT_EQ(memory.allocate(64, Allocation::Kind::launch_parameters), params);
}

TEST(DeviceMemory, TheQuarantineKeepsABoundedNumberOfAllocations) {
    DeviceMemory memory(256 * mib);
    for (std::size_t i = 0; i < DeviceMemory::quarantine_entries + 10; ++i) memory.free(memory.allocate(16));
    EXPECT_EQ(memory.table()->freed.size(), DeviceMemory::quarantine_entries);
}

TEST(DeviceMemory, RunningOutAnswersZeroAfterTheQuarantineGaveItsSpaceBack) {
    DeviceMemory memory(16 * mib);
    EXPECT_EQ(memory.allocate(17 * mib), 0u);
    const std::uint64_t a = memory.allocate(12 * mib);
    ASSERT_NE(a, 0u);
    EXPECT_EQ(memory.allocate(12 * mib), 0u);
    memory.free(a);  // quarantined, yet its space serves an allocation that needs it
    EXPECT_EQ(memory.allocate(12 * mib), a);
    EXPECT_TRUE(memory.table()->freed.empty());
}

TEST(DeviceMemory, UsedCountsLiveBlocksWithTheirRedZones) {
    DeviceMemory memory(64 * mib);
    EXPECT_EQ(memory.used(), 0u);
    const std::uint64_t a = memory.allocate(1000);
    EXPECT_GE(memory.used(), 1000u + 256);
    memory.free(a);
    EXPECT_EQ(memory.used(), 0u);
}

TEST(DeviceMemory, TheTableFindsRangesAndTheNearestAllocation) {
    DeviceMemory memory(64 * mib);
    const std::uint64_t a = memory.allocate(100, Allocation::Kind::device);
    const std::uint64_t b = memory.allocate(200, Allocation::Kind::module_variable, "coeffs");
    const auto table = memory.table();
    ASSERT_NE(table->find(a, 100), nullptr);
    EXPECT_EQ(table->find(a, 100)->base, a);
    EXPECT_EQ(table->find(a + 99, 1)->base, a);
    EXPECT_EQ(table->find(a + 99, 2), nullptr);  // one byte past the end
    EXPECT_EQ(table->find(a - 1, 1), nullptr);
    EXPECT_EQ(table->containing(a + 100), nullptr);  // the red zone
    const Allocation* var = table->find(b + 10, 4);
    ASSERT_NE(var, nullptr);
    EXPECT_EQ(var->kind, Allocation::Kind::module_variable);
    EXPECT_EQ(var->label, "coeffs");
    EXPECT_LT(table->find(a, 1)->serial, var->serial);
    EXPECT_EQ(table->nearest(a + 104)->base, a);  // just past a's end
    EXPECT_EQ(table->nearest(b - 2)->base, b);    // just before b
    EXPECT_EQ(table->nearest(a)->base, a);
}

TEST(DeviceMemory, SerialsIncrease) {
    DeviceMemory memory(64 * mib);
    std::uint64_t last = 0;
    for (int i = 0; i < 20; ++i) {
        const std::uint64_t a = memory.allocate(64);
        const std::uint64_t serial = memory.table()->find(a, 64)->serial;
        EXPECT_GT(serial, last);
        last = serial;
        if (i % 2 == 0) memory.free(a);
    }
}

TEST(DeviceMemory, ATableTakenEarlierDoesNotChange) {
    DeviceMemory memory(64 * mib);
    const std::uint64_t a = memory.allocate(64);
    const auto before = memory.table();
    memory.free(a);
    memory.allocate(64);
    EXPECT_EQ(before->live.size(), 1u);
    EXPECT_EQ(before->live[0].base, a);
    EXPECT_NE(memory.table(), before);
}

TEST(DeviceMemory, ConcurrentAllocationsNeverOverlap) {
    DeviceMemory memory(512 * mib);
    std::vector<std::thread> threads;
    std::vector<std::vector<std::uint64_t>> kept(4);
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 500; ++i) {
                const std::uint64_t a = memory.allocate(static_cast<std::size_t>(64 + (i * 37) % 5000));
                ASSERT_NE(a, 0u);
                if (i % 3 == 0) {
                    memory.free(a);
                } else {
                    kept[t].push_back(a);
                }
                (void)memory.table();
            }
        });
    }
    for (std::thread& t : threads) t.join();
    const auto table = memory.table();
    std::size_t expected = 0;
    for (const auto& k : kept) expected += k.size();
    ASSERT_EQ(table->live.size(), expected);
    for (std::size_t i = 1; i < table->live.size(); ++i)
        EXPECT_GE(table->live[i].base, table->live[i - 1].base + table->live[i - 1].size);
}

TEST(DeviceMemory, DefaultCapacityIsHalfThePhysicalMemoryAtMost64GiBOrTheEnvironments) {
    unsetenv("XCUDA_CPU_MEMORY");
    const std::size_t fallback = default_device_memory_capacity();
    EXPECT_LE(fallback, std::size_t{64} << 30);
    EXPECT_GT(fallback, 0u);
    setenv("XCUDA_CPU_MEMORY", "2G", 1);
    EXPECT_EQ(default_device_memory_capacity(), std::size_t{2} << 30);
    setenv("XCUDA_CPU_MEMORY", "512MiB", 1);
    EXPECT_EQ(default_device_memory_capacity(), 512 * mib);
    setenv("XCUDA_CPU_MEMORY", "1048576", 1);
    EXPECT_EQ(default_device_memory_capacity(), mib);
    setenv("XCUDA_CPU_MEMORY", "lots", 1);
    EXPECT_EQ(default_device_memory_capacity(), fallback);  // with a warning naming the value
    unsetenv("XCUDA_CPU_MEMORY");
}

}  // namespace
}  // namespace xcuda::cpu
