#include "exec/run/device_heap.hpp"

namespace xcuda::cpu {

DeviceHeap& DeviceHeap::instance() {
    static DeviceHeap* heap = new DeviceHeap();  // its memory belongs to the arena, which outlives it
    return *heap;
}

bool DeviceHeap::ensure(DeviceMemory& memory) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (base_ != 0 && memory_ == &memory && arena_ == memory.arena_begin()) return true;
    // The first heap, or device memory made anew (each test engine has its own): a new region.
    memory_ = &memory;
    arena_ = memory.arena_begin();
    base_ = memory.allocate(size_, Allocation::Kind::device_heap, "device malloc heap");
    if (base_ != 0) blocks_.reset(base_, base_ + size_);
    return base_ != 0;
}

}  // namespace xcuda::cpu
