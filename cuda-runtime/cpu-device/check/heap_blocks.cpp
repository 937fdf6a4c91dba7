#include "check/heap_blocks.hpp"

#include <algorithm>
#include <iterator>
#include <mutex>

namespace xcuda::cpu {
namespace {

constexpr std::uint64_t alignment = 16;  // of what device malloc returns, as on a GPU
constexpr std::size_t quarantine_entries = 4096;

std::uint64_t align_up(std::uint64_t v) { return (v + alignment - 1) / alignment * alignment; }

// After each block: as many bytes as it has (16 to 256), so an overrun by an element, or a row
// of a small array, lands in no block.
std::uint64_t red_zone(std::uint64_t bytes) { return std::clamp<std::uint64_t>(align_up(bytes), 16, 256); }

}  // namespace

void HeapBlocks::reset(std::uint64_t begin, std::uint64_t end) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    // A gap before the first block: p[-1] of the first block is outside every block too.
    begin_ = begin;
    end_ = end;
    blocks_.clear();
    quarantine_.clear();
    quarantined_bytes_ = 0;
    free_ranges_.clear();
    if (end > begin + alignment) free_ranges_.emplace(begin + alignment, end - begin - alignment);
}

std::uint64_t HeapBlocks::carve(std::uint64_t span) {
    for (auto it = free_ranges_.begin(); it != free_ranges_.end(); ++it) {
        if (it->second < span) continue;
        const std::uint64_t base = it->first, rest = it->second - span;
        free_ranges_.erase(it);
        if (rest > 0) free_ranges_.emplace(base + span, rest);
        return base;
    }
    return 0;
}

void HeapBlocks::give_back(std::uint64_t base, std::uint64_t span) {
    std::uint64_t begin = base, end = base + span;
    auto next = free_ranges_.lower_bound(begin);
    if (next != free_ranges_.end() && next->first == end) {
        end += next->second;
        next = free_ranges_.erase(next);
    }
    if (next != free_ranges_.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == begin) {
            begin = prev->first;
            free_ranges_.erase(prev);
        }
    }
    free_ranges_.emplace(begin, end - begin);
}

void HeapBlocks::release_oldest() {
    const std::uint64_t base = quarantine_.front();
    quarantine_.pop_front();
    auto it = blocks_.find(base);
    quarantined_bytes_ -= it->second.span;
    give_back(base, it->second.span);
    blocks_.erase(it);
}

std::uint64_t HeapBlocks::allocate(std::uint64_t bytes, const SourceLocation& at) {
    if (bytes == 0 || bytes > end_ - begin_) return 0;
    const std::uint64_t span = align_up(bytes) + red_zone(bytes);
    std::unique_lock<std::shared_mutex> lock(mutex_);
    std::uint64_t base = carve(span);
    while (base == 0 && !quarantine_.empty()) {
        release_oldest();
        base = carve(span);
    }
    if (base == 0) return 0;
    HeapBlock& b = blocks_[base];
    b.base = base;
    b.size = bytes;
    b.span = span;
    b.allocated_at = at;
    return base;
}

HeapBlocks::Freed HeapBlocks::release(std::uint64_t address, const SourceLocation& at, HeapBlock& block) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    auto it = blocks_.upper_bound(address);
    if (it == blocks_.begin()) return Freed::not_a_block;
    --it;
    HeapBlock& b = it->second;
    if (address - b.base >= b.size) return Freed::not_a_block;
    if (address != b.base) {
        block = b;
        return Freed::inside_block;
    }
    if (b.freed) {
        block = b;
        return Freed::twice;
    }
    b.freed = true;
    b.freed_at = at;
    quarantine_.push_back(b.base);
    quarantined_bytes_ += b.span;
    // A quarter of the heap stays quarantined at most: the rest is for blocks yet to be made.
    while (!quarantine_.empty() &&
           (quarantined_bytes_ > (end_ - begin_) / 4 || quarantine_.size() > quarantine_entries)) {
        release_oldest();
    }
    return Freed::freed;
}

HeapBlocks::Access HeapBlocks::check(std::uint64_t address, std::uint64_t bytes, HeapBlock& block,
                                     bool& has_block) const {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    has_block = false;
    auto after = blocks_.upper_bound(address);
    if (after != blocks_.begin()) {
        const HeapBlock& b = std::prev(after)->second;
        if (address - b.base < b.span) {
            if (!b.freed && address - b.base < b.size && bytes <= b.size - (address - b.base)) return Access::ok;
            block = b;
            has_block = true;
            return b.freed ? Access::freed : Access::out_of_bounds;
        }
    }
    // In free space: the nearer of the blocks on either side.
    const HeapBlock* best = nullptr;
    std::uint64_t distance = 0;
    if (after != blocks_.begin()) {
        const HeapBlock& b = std::prev(after)->second;
        best = &b;
        distance = address - (b.base + b.size);
    }
    if (after != blocks_.end() && (best == nullptr || after->second.base - address < distance)) best = &after->second;
    if (best != nullptr) {
        block = *best;
        has_block = true;
    }
    return Access::out_of_bounds;
}

}  // namespace xcuda::cpu
