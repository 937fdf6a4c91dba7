#include "check/device_memory.hpp"
#include "check/init_shadow.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <string>

namespace xcuda::cpu {
namespace {

constexpr std::size_t gib = std::size_t{1} << 30;
constexpr std::size_t max_default_capacity = 64 * gib;

std::size_t page_size() {
    static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return size;
}

std::uint64_t round_up(std::uint64_t value, std::uint64_t to) { return (value + to - 1) / to * to; }
std::uint64_t round_down(std::uint64_t value, std::uint64_t to) { return value / to * to; }

// A red zone grows with the allocation (a sixteenth, 256 bytes to 64 KiB): an overrun by a row
// of a large array, not only by a few elements, still lands in it rather than in the next
// allocation. It is address space only: nothing writes it, so it commits no memory.
std::uint64_t block_bytes(std::uint64_t bytes) {
    const std::uint64_t red_zone = std::clamp<std::uint64_t>(round_up(bytes / 16, 256), 256, 64 * 1024);
    return round_up(bytes, DeviceMemory::alignment) + red_zone;
}

// Gives the pages wholly inside [begin, end) back to the system (they read as zeros afterwards).
void discard_pages(std::uint64_t begin, std::uint64_t end) {
    const std::uint64_t first = round_up(begin, page_size());
    const std::uint64_t last = round_down(end, page_size());
    if (first < last) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

void* reserve(std::size_t& capacity) {
    for (;;) {
        void* p = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) return p;
        if (capacity / 2 < gib) throw std::bad_alloc();
        capacity /= 2;
    }
}

}  // namespace

struct DeviceMemory::State {
    struct Block {
        Allocation allocation;
        std::uint64_t bytes = 0;  // with alignment padding and red zone
    };
    std::size_t quarantine_limit = 0;
    std::map<std::uint64_t, std::uint64_t> free_ranges;  // base -> bytes; coalesced, sorted
    std::map<std::uint64_t, Block> live;                 // by base
    std::deque<Block> quarantine;                        // oldest first
    std::size_t quarantined_bytes = 0;
    std::size_t used = 0;
    std::uint64_t next_serial = 1;
    std::set<std::uint64_t> unwritten;  // bases of live allocations with a shadow

    // Drops the shadow of the allocation at `base` when every byte is written; true if it did.
    bool settle(std::uint64_t base) {
        Allocation& a = live.at(base).allocation;
        if (!a.unwritten->complete()) return false;
        a.unwritten.reset();
        unwritten.erase(base);
        return true;
    }

    // First fit, from the lowest address: the base of `bytes` carved out of a free range, or 0.
    std::uint64_t carve(std::uint64_t bytes) {
        for (auto it = free_ranges.begin(); it != free_ranges.end(); ++it) {
            if (it->second < bytes) continue;
            const std::uint64_t base = it->first;
            const std::uint64_t rest = it->second - bytes;
            free_ranges.erase(it);
            if (rest > 0) free_ranges.emplace(base + bytes, rest);
            return base;
        }
        return 0;
    }

    void release_oldest() {
        const Block block = std::move(quarantine.front());
        quarantine.pop_front();
        quarantined_bytes -= block.bytes;
        release(block);
    }

    // The block becomes free space; its pages (and neighbouring pages now wholly free) go back to
    // the system.
    void release(const Block& block) {
        std::uint64_t begin = block.allocation.base;
        std::uint64_t end = begin + block.bytes;
        auto next = free_ranges.lower_bound(begin);
        if (next != free_ranges.end() && next->first == end) {
            end += next->second;
            next = free_ranges.erase(next);
        }
        if (next != free_ranges.begin()) {
            auto prev = std::prev(next);
            if (prev->first + prev->second == begin) {
                begin = prev->first;
                free_ranges.erase(prev);
            }
        }
        free_ranges.emplace(begin, end - begin);
        const std::uint64_t touched_begin = round_down(block.allocation.base, page_size());
        const std::uint64_t touched_end = round_up(block.allocation.base + block.bytes, page_size());
        discard_pages(std::max(begin, touched_begin), std::min(end, touched_end));
    }
};

DeviceMemory::DeviceMemory(std::size_t capacity, std::size_t quarantine_bytes) : state_(std::make_unique<State>()) {
    capacity_ = static_cast<std::size_t>(round_up(std::max<std::size_t>(capacity, page_size()), page_size()));
    begin_ = reinterpret_cast<std::uint64_t>(reserve(capacity_));
    state_->quarantine_limit = quarantine_bytes;
    state_->free_ranges.emplace(begin_, capacity_);
}

DeviceMemory::~DeviceMemory() { munmap(reinterpret_cast<void*>(begin_), capacity_); }

std::uint64_t DeviceMemory::allocate(std::size_t bytes, Allocation::Kind kind, std::string label, bool written) {
    if (bytes == 0 || bytes > capacity_) return 0;
    const std::uint64_t need = block_bytes(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    State& s = *state_;
    std::uint64_t base = s.carve(need);
    while (base == 0 && !s.quarantine.empty()) {
        s.release_oldest();
        base = s.carve(need);
    }
    if (base == 0) return 0;
    // Free space may hold anything: a kernel run without checks can write past its allocations.
    // Whole pages are discarded (no memory committed for a large allocation); the partial pages at
    // either end are shared with neighbours and cleared byte by byte.
    const std::uint64_t end = base + bytes;
    const std::uint64_t head_end = std::min<std::uint64_t>(round_up(base, page_size()), end);
    const std::uint64_t tail_begin = std::max<std::uint64_t>(round_down(end, page_size()), head_end);
    std::memset(reinterpret_cast<void*>(base), 0, head_end - base);
    discard_pages(head_end, tail_begin);
    std::memset(reinterpret_cast<void*>(tail_begin), 0, end - tail_begin);

    State::Block block;
    block.allocation = Allocation{base, bytes, kind, std::move(label), s.next_serial++, nullptr};
    if (!written) {
        block.allocation.unwritten = std::make_shared<InitShadow>(base, bytes);
        s.unwritten.insert(base);
    }
    block.bytes = need;
    s.live.emplace(base, std::move(block));
    s.used += need;
    table_.reset();
    return base;
}

DeviceMemory::FreeResult DeviceMemory::free(std::uint64_t base) {
    std::lock_guard<std::mutex> lock(mutex_);
    State& s = *state_;
    auto it = s.live.find(base);
    if (it == s.live.end()) return FreeResult::not_allocated;
    s.used -= it->second.bytes;
    s.unwritten.erase(base);
    it->second.allocation.unwritten.reset();  // a use after free is found by the quarantine
    const Allocation::Kind kind = it->second.allocation.kind;
    if (kind == Allocation::Kind::launch_parameters || kind == Allocation::Kind::workspace ||
        kind == Allocation::Kind::device_heap) {
        // The engine's own memory, freed after every launch: a use after free of it is the
        // engine's bug, not a kernel's, and quarantining it would crowd out the user's frees.
        s.release(it->second);
        s.live.erase(it);
        table_.reset();
        return FreeResult::freed;
    }
    s.quarantined_bytes += it->second.bytes;
    s.quarantine.push_back(std::move(it->second));
    s.live.erase(it);
    while (!s.quarantine.empty() &&
           (s.quarantined_bytes > s.quarantine_limit || s.quarantine.size() > quarantine_entries)) {
        s.release_oldest();
    }
    table_.reset();
    return FreeResult::freed;
}

void DeviceMemory::mark_written(std::uint64_t address, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    State& s = *state_;
    auto it = s.live.upper_bound(address);
    if (it == s.live.begin()) return;
    --it;
    Allocation& a = it->second.allocation;
    if (!a.unwritten || address - a.base >= a.size) return;
    if (address == a.base && bytes >= a.size) {  // the whole allocation (to_device, zeros): no shadow to fill and scan
        a.unwritten.reset();
        s.unwritten.erase(a.base);
        table_.reset();
        return;
    }
    a.unwritten->mark(address, std::min<std::uint64_t>(bytes, a.size - (address - a.base)));
    if (s.settle(a.base)) table_.reset();
}

void DeviceMemory::settle_written() {
    std::lock_guard<std::mutex> lock(mutex_);
    State& s = *state_;
    bool changed = false;
    for (auto it = s.unwritten.begin(); it != s.unwritten.end();) {
        const std::uint64_t base = *it++;  // settle() may erase it
        changed = s.settle(base) || changed;
    }
    if (changed) table_.reset();
}

void DeviceMemory::forget_unwritten() {
    std::lock_guard<std::mutex> lock(mutex_);
    State& s = *state_;
    if (s.unwritten.empty()) return;
    for (std::uint64_t base : s.unwritten) s.live.at(base).allocation.unwritten.reset();
    s.unwritten.clear();
    table_.reset();
}

std::size_t DeviceMemory::used() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_->used;
}

std::shared_ptr<const AllocationTable> DeviceMemory::table() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!table_) {
        auto table = std::make_shared<AllocationTable>();
        table->live.reserve(state_->live.size());
        for (const auto& [base, block] : state_->live) table->live.push_back(block.allocation);
        table->freed.reserve(state_->quarantine.size());
        for (const State::Block& block : state_->quarantine) table->freed.push_back(block.allocation);
        std::sort(table->freed.begin(), table->freed.end(),
                  [](const Allocation& a, const Allocation& b) { return a.base < b.base; });
        table_ = std::move(table);
    }
    return table_;
}

namespace {

// The allocation of sorted, disjoint `v` that contains `address`, or nullptr.
const Allocation* containing_in(const std::vector<Allocation>& v, std::uint64_t address) noexcept {
    auto it = std::upper_bound(v.begin(), v.end(), address,
                               [](std::uint64_t a, const Allocation& alloc) { return a < alloc.base; });
    if (it == v.begin()) return nullptr;
    --it;
    return address - it->base < it->size ? &*it : nullptr;
}

}  // namespace

const Allocation* AllocationTable::find(std::uint64_t address, std::uint64_t bytes) const noexcept {
    const Allocation* a = containing_in(live, address);
    if (a == nullptr) return nullptr;
    return bytes <= a->size - (address - a->base) ? a : nullptr;
}

const Allocation* AllocationTable::containing(std::uint64_t address) const noexcept {
    return containing_in(live, address);
}

const Allocation* AllocationTable::freed_containing(std::uint64_t address) const noexcept {
    return containing_in(freed, address);
}

const Allocation* AllocationTable::nearest(std::uint64_t address) const noexcept {
    if (live.empty()) return nullptr;
    auto after = std::upper_bound(live.begin(), live.end(), address,
                                  [](std::uint64_t a, const Allocation& alloc) { return a < alloc.base; });
    const Allocation* best = nullptr;
    std::uint64_t best_distance = 0;
    auto consider = [&](const Allocation& a) {
        const std::uint64_t end = a.base + a.size;
        const std::uint64_t distance = address < a.base ? a.base - address : address >= end ? address - end + 1 : 0;
        if (best == nullptr || distance < best_distance) {
            best = &a;
            best_distance = distance;
        }
    };
    if (after != live.begin()) consider(*std::prev(after));
    if (after != live.end()) consider(*after);
    return best;
}

namespace {

// "8G", "512M", "1048576", "4KiB": bytes, or 0 when `text` is not a size.
std::size_t parse_size(const std::string& text) {
    std::size_t at = 0;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
    if (at == 0 || at > 15) return 0;
    std::size_t value = std::stoull(text.substr(0, at));
    std::string unit = text.substr(at);
    for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (unit == "IB" || unit == "B" || unit.empty()) return value;
    const std::size_t shift = unit[0] == 'K' ? 10 : unit[0] == 'M' ? 20 : unit[0] == 'G' ? 30 : 0;
    const std::string rest = unit.substr(1);
    if (shift == 0 || !(rest.empty() || rest == "B" || rest == "IB")) return 0;
    if (value > (std::numeric_limits<std::size_t>::max() >> shift)) return 0;
    return value << shift;
}

}  // namespace

std::size_t default_device_memory_capacity() {
    const std::size_t physical =
        static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t fallback = std::min(physical / 2, max_default_capacity);
    const char* env = std::getenv("XCUDA_CPU_MEMORY");
    if (env == nullptr || *env == '\0') return fallback;
    const std::size_t bytes = parse_size(env);
    if (bytes != 0) return bytes;
    std::cerr << "xcuda: XCUDA_CPU_MEMORY='" << env << "' is not a size; the CPU device uses its default of "
              << (fallback >> 20) << " MiB. Set bytes or a number with K, M or G (XCUDA_CPU_MEMORY=8G).\n";
    return fallback;
}

}  // namespace xcuda::cpu
