#include "device_heap.hpp"

namespace xcuda::cpu {

DeviceHeap& DeviceHeap::instance() {
    static DeviceHeap* heap = new DeviceHeap();  // its memory belongs to the arena, which outlives it
    return *heap;
}

bool DeviceHeap::ensure(DeviceMemory& memory) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (base_ != 0) return true;
    base_ = memory.allocate(size_, Allocation::Kind::workspace, "device malloc heap");
    return base_ != 0;
}

void DeviceHeap::set_size(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    size_ = bytes;
}

std::size_t DeviceHeap::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return size_;
}

std::uint64_t DeviceHeap::allocate(std::uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (base_ == 0 || bytes == 0) return 0;
    bytes = (bytes + 15) & ~std::uint64_t{15};
    std::uint64_t at = base_;  // first fit between the blocks in use
    for (const auto& [start, size] : used_) {
        if (start - at >= bytes) break;
        at = start + size;
    }
    if (at + bytes > base_ + size_) return 0;
    used_.emplace(at, bytes);
    return at;
}

bool DeviceHeap::release(std::uint64_t address) {
    std::lock_guard<std::mutex> lock(mutex_);
    return used_.erase(address) == 1;
}

}  // namespace xcuda::cpu
