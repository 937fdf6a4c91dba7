#include "driver/transfers.hpp"

#include "driver/context_state.hpp"

#include <sys/mman.h>

#include <cstring>
#include <string>

namespace xcuda::cpu::driver::detail {
namespace {

std::shared_ptr<const Failure> unallocated(const Transfer& t, std::uint64_t address, Access access,
                                           const AllocationTable& table) {
    auto failure = std::make_shared<Failure>();
    failure->code = CUDA_ERROR_ILLEGAL_ADDRESS;
    const char* what = t.kind == Transfer::Kind::copy ? "memcpy" : "memset";
    failure->kernel = what;
    Finding& f = failure->finding;
    f.kind = table.freed_containing(address) != nullptr ? FindingKind::use_after_free : FindingKind::out_of_bounds;
    f.access = access;
    f.space = MemorySpace::global;
    f.address = address;
    f.instruction = std::string(what) + " of " + std::to_string(t.bytes) + " bytes";
    if (const Allocation* near = table.nearest(address)) {
        f.region.kind = Region::Kind::allocation;
        f.region.base = near->base;
        f.region.size = near->size;
        f.region.offset = static_cast<std::int64_t>(address - near->base);
    }
    f.detail = std::string("a ") + what +
               " recorded in a graph reached device memory that is no longer allocated: free the memory only "
               "after the last launch of the graph";
    return failure;
}

}  // namespace

CUresult check_device_range(CUdeviceptr address, std::size_t bytes) {
    return device_memory().table()->find(address, bytes) != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

Outcome perform(const Transfer& t) {
    if (t.dst_on_device || t.src_on_device) {
        const std::shared_ptr<const AllocationTable> table = device_memory().table();
        const auto dst = reinterpret_cast<std::uint64_t>(t.dst);
        const auto src = reinterpret_cast<std::uint64_t>(t.src);
        if (t.dst_on_device && table->find(dst, t.bytes) == nullptr)
            return {CUDA_ERROR_ILLEGAL_ADDRESS, unallocated(t, dst, Access::write, *table)};
        if (t.src_on_device && table->find(src, t.bytes) == nullptr)
            return {CUDA_ERROR_ILLEGAL_ADDRESS, unallocated(t, src, Access::read, *table)};
    }
    if (t.kind == Transfer::Kind::fill) {
        std::memset(t.dst, t.value, t.bytes);
    } else {
        std::memmove(t.dst, t.staged ? t.staged->data() : t.src, t.bytes);
    }
    if (t.dst_on_device) device_memory().mark_written(reinterpret_cast<std::uint64_t>(t.dst), t.bytes);
    return {};
}

void* PinnedMemory::allocate(std::size_t bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    blocks_.emplace(reinterpret_cast<std::uintptr_t>(p), bytes);
    return p;
}

bool PinnedMemory::free(void* base) {
    std::size_t bytes = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(base));
        if (it == blocks_.end()) return false;
        bytes = it->second;
        blocks_.erase(it);
    }
    munmap(base, bytes);
    return true;
}

bool PinnedMemory::contains(const void* address, std::size_t bytes) const {
    const auto p = reinterpret_cast<std::uintptr_t>(address);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = blocks_.upper_bound(p);
    if (it == blocks_.begin()) return false;
    --it;
    const std::size_t offset = p - it->first;
    return offset < it->second && bytes <= it->second - offset;
}

PinnedMemory& pinned_memory() {
    static auto* pinned = new PinnedMemory();  // never destroyed: freed at exit by the runtime's destructors
    return *pinned;
}

}  // namespace xcuda::cpu::driver::detail
