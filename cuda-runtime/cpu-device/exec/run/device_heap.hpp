// The device heap that kernels' malloc and free use: one region of device memory, made the
// first time a kernel that calls malloc is launched (CU_LIMIT_MALLOC_HEAP_SIZE, 8 MiB by
// default, as on a GPU), shared by every launch of the process. Its blocks are kept and checked
// by check/heap_blocks.hpp.
#pragma once

#include "check/device_memory.hpp"
#include "check/heap_blocks.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>

namespace xcuda::cpu {

class DeviceHeap {
public:
    static DeviceHeap& instance();
    // Makes the region if there is none yet (false when device memory has no room for it).
    bool ensure(DeviceMemory& memory);
    HeapBlocks& blocks() { return blocks_; }

private:
    std::mutex mutex_;
    std::size_t size_ = std::size_t{8} << 20;
    std::uint64_t base_ = 0;
    const DeviceMemory* memory_ = nullptr;  // whose arena holds the region
    std::uint64_t arena_ = 0;               // that arena's start (a new DeviceMemory may reuse the old one's address)
    HeapBlocks blocks_;
};

}  // namespace xcuda::cpu
