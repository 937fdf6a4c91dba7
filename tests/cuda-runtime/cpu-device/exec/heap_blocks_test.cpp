// The device heap's block table (check/heap_blocks.hpp) and the written-bytes shadow
// (check/init_shadow.hpp) on their own: what each access and free is judged to be.
#include "check/heap_blocks.hpp"
#include "check/init_shadow.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace xcuda::cpu::testing {
namespace {

constexpr std::uint64_t heap_begin = 0x100000, heap_bytes = 64 * 1024;

SourceLocation line(int n) {
    SourceLocation at;
    at.file = "cell.cu";
    at.line = n;
    return at;
}

TEST(HeapBlocks, AccessesInsideALiveBlockAreFineAndPastItsEndOrAfterItsFreeAreNot) {
    HeapBlocks heap;
    heap.reset(heap_begin, heap_begin + heap_bytes);
    const std::uint64_t a = heap.allocate(16, line(3)), b = heap.allocate(64, line(4));
    ASSERT_NE(a, 0u);
    ASSERT_NE(b, 0u);
    EXPECT_EQ(a % 16, 0u);
    EXPECT_GT(b, a + 16);  // a red zone between them
    HeapBlock block;
    bool has = false;
    EXPECT_EQ(heap.check(a + 12, 4, block, has), HeapBlocks::Access::ok);
    EXPECT_EQ(heap.check(a + 16, 4, block, has), HeapBlocks::Access::out_of_bounds);
    ASSERT_TRUE(has);
    EXPECT_EQ(block.base, a);
    EXPECT_EQ(block.allocated_at.line, 3);
    EXPECT_EQ(heap.check(a + 14, 4, block, has), HeapBlocks::Access::out_of_bounds);  // straddles its end
    EXPECT_EQ(heap.check(b - 4, 4, block, has), HeapBlocks::Access::out_of_bounds);   // a's red zone, just before b
    EXPECT_EQ(block.base, a);
    EXPECT_EQ(heap.release(a, line(5), block), HeapBlocks::Freed::freed);
    EXPECT_EQ(heap.check(a, 4, block, has), HeapBlocks::Access::freed);
    EXPECT_EQ(block.freed_at.line, 5);
}

TEST(HeapBlocks, FreeingTwiceInsideABlockOrOutsideEveryBlockIsTold) {
    HeapBlocks heap;
    heap.reset(heap_begin, heap_begin + heap_bytes);
    const std::uint64_t a = heap.allocate(64, line(3));
    HeapBlock block;
    EXPECT_EQ(heap.release(a + 16, line(4), block), HeapBlocks::Freed::inside_block);
    EXPECT_EQ(block.base, a);
    EXPECT_EQ(heap.release(a, line(5), block), HeapBlocks::Freed::freed);
    EXPECT_EQ(heap.release(a, line(6), block), HeapBlocks::Freed::twice);
    EXPECT_EQ(block.freed_at.line, 5);
    EXPECT_EQ(heap.release(heap_begin + heap_bytes - 64, line(7), block), HeapBlocks::Freed::not_a_block);
}

TEST(HeapBlocks, FreedBlocksAreQuarantinedUntilTheHeapNeedsTheirSpace) {
    HeapBlocks heap;
    heap.reset(heap_begin, heap_begin + heap_bytes);
    // Blocks of 1 KiB (1280 bytes with their red zones): about 50 fit.
    std::vector<std::uint64_t> blocks;
    for (std::uint64_t p; (p = heap.allocate(1024, line(1))) != 0;) blocks.push_back(p);
    ASSERT_GT(blocks.size(), 40u);
    HeapBlock block;
    ASSERT_EQ(heap.release(blocks[0], line(2), block), HeapBlocks::Freed::freed);
    bool has = false;
    EXPECT_EQ(heap.check(blocks[0], 4, block, has), HeapBlocks::Access::freed);  // not reused yet
    // The heap is full: a new block takes the quarantined one's space, as a GPU's malloc would.
    const std::uint64_t again = heap.allocate(1024, line(3));
    EXPECT_EQ(again, blocks[0]);
    EXPECT_EQ(heap.check(again, 4, block, has), HeapBlocks::Access::ok);
    EXPECT_EQ(heap.allocate(1024, line(4)), 0u);  // nothing left: device malloc returns NULL
}

TEST(InitShadow, BytesAreUnwrittenUntilMarkedAndTheShadowCompletesWhenAllAre) {
    const std::uint64_t base = 0x200000;
    InitShadow shadow(base, 100);
    EXPECT_FALSE(shadow.written(base, 4));
    shadow.mark(base, 4);
    EXPECT_TRUE(shadow.written(base, 4));
    EXPECT_FALSE(shadow.written(base + 2, 4));
    EXPECT_EQ(shadow.first_unwritten(base, 8), base + 4);
    EXPECT_FALSE(shadow.complete());
    shadow.mark(base + 4, 95);
    EXPECT_FALSE(shadow.complete());  // the last byte is still unwritten
    shadow.mark(base + 99, 1);
    EXPECT_TRUE(shadow.complete());
}

}  // namespace
}  // namespace xcuda::cpu::testing
