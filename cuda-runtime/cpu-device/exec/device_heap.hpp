// The device heap that kernels' malloc and free use: one region of device memory, made the
// first time a kernel that calls malloc is launched (CU_LIMIT_MALLOC_HEAP_SIZE, 8 MiB by
// default, as on a GPU), shared by every launch of the process.
#pragma once

#include "../check/device_memory.hpp"

#include <cstdint>
#include <map>
#include <mutex>

namespace xcuda::cpu {

class DeviceHeap {
public:
    static DeviceHeap& instance();
    // Makes the region if there is none yet (false when device memory has no room for it).
    bool ensure(DeviceMemory& memory);
    void set_size(std::size_t bytes);  // takes effect when the region is made
    std::size_t size() const;
    // 16-byte aligned; 0 when the heap is full (device malloc returns NULL).
    std::uint64_t allocate(std::uint64_t bytes);
    // false: not a block of this heap.
    bool release(std::uint64_t address);

private:
    mutable std::mutex mutex_;
    std::size_t size_ = std::size_t{8} << 20;
    std::uint64_t base_ = 0;
    std::map<std::uint64_t, std::uint64_t> used_;  // start -> bytes
};

}  // namespace xcuda::cpu
