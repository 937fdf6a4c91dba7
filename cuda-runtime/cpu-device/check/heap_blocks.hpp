// The blocks of the device heap (in-kernel malloc and free), checked. Blocks are made while
// kernels run, so a launch's allocation snapshot never holds them: the heap keeps its own table.
// Each block is 16-byte aligned and followed by a red zone, so an overrun lands in no block; a
// freed block stays in the table (quarantined, not reused) while the quarantine has room, so a
// use after free or a second free is recognised as one. Workers of a launch malloc, free and
// access blocks at once: the table is guarded by a reader-writer lock.
#pragma once

#include <xcuda/cpu/finding.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <shared_mutex>

namespace xcuda::cpu {

struct HeapBlock {
    std::uint64_t base = 0;  // what malloc returned
    std::uint64_t size = 0;  // the bytes asked for
    std::uint64_t span = 0;  // with alignment and the red zone after it
    bool freed = false;
    SourceLocation allocated_at, freed_at;
};

class HeapBlocks {
public:
    // The heap's region; forgets every block.
    void reset(std::uint64_t begin, std::uint64_t end);
    bool contains(std::uint64_t address) const noexcept { return address - begin_ < end_ - begin_; }

    // A block of `bytes` (0 when the heap has no room, even after the quarantine gave its space back).
    std::uint64_t allocate(std::uint64_t bytes, const SourceLocation& at);

    enum class Freed : std::uint8_t {
        freed,
        twice,         // the block was freed already
        inside_block,  // the address lies inside a block but is not its start
        not_a_block,   // no block (the heap's free space, or memory that is not the heap's)
    };
    // free(address); `block` is the block concerned (twice, inside_block).
    Freed release(std::uint64_t address, const SourceLocation& at, HeapBlock& block);

    enum class Access : std::uint8_t { ok, out_of_bounds, freed };
    // An access of [address, address + bytes) in the heap's region; `block`: the block it lies in
    // or nearest to (has_block false when the heap has none).
    Access check(std::uint64_t address, std::uint64_t bytes, HeapBlock& block, bool& has_block) const;

private:
    void give_back(std::uint64_t base, std::uint64_t span);  // to the free ranges, coalesced
    void release_oldest();
    std::uint64_t carve(std::uint64_t span);

    mutable std::shared_mutex mutex_;
    std::uint64_t begin_ = 0, end_ = 0;
    std::map<std::uint64_t, HeapBlock> blocks_;           // live and quarantined, by base
    std::map<std::uint64_t, std::uint64_t> free_ranges_;  // base -> bytes
    std::deque<std::uint64_t> quarantine_;                // freed blocks' bases, oldest first
    std::uint64_t quarantined_bytes_ = 0;
};

}  // namespace xcuda::cpu
