// Copies and memsets, queued on a stream or recorded as graph nodes, and the pinned host memory
// (cuMemHostAlloc) that decides whether an asynchronous copy may read or write host memory later.
#pragma once

#include "driver/stream_queues.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace xcuda::cpu::driver::detail {

struct Transfer {
    enum class Kind : std::uint8_t { copy, fill };
    Kind kind = Kind::copy;
    void* dst = nullptr;
    const void* src = nullptr;  // copy
    unsigned char value = 0;    // fill
    std::size_t bytes = 0;
    // Device sides are checked again when the transfer runs: a graph may replay it after its
    // memory was freed.
    bool dst_on_device = false;
    bool src_on_device = false;
    std::shared_ptr<const std::vector<unsigned char>> staged;  // pageable source, copied when queued
};

// CUDA_SUCCESS when [address, address + bytes) lies inside one live allocation (a module's
// variables included), else CUDA_ERROR_INVALID_VALUE.
CUresult check_device_range(CUdeviceptr address, std::size_t bytes);

// Performs `t`, or fails with CUDA_ERROR_ILLEGAL_ADDRESS (and says why) when a device side is no
// longer allocated.
Outcome perform(const Transfer& t);

class PinnedMemory {
public:
    // Page-aligned and zero-filled; nullptr when the system has no memory left.
    void* allocate(std::size_t bytes);
    bool free(void* base);
    bool contains(const void* address, std::size_t bytes) const;

private:
    mutable std::mutex mutex_;
    std::map<std::uintptr_t, std::size_t> blocks_;  // base -> bytes
};

PinnedMemory& pinned_memory();

}  // namespace xcuda::cpu::driver::detail
