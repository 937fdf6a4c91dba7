#pragma once

#include <cstddef>

#include "driver_api.hpp"

namespace xcuda::rt::detail {

// Device-to-host copies of up to pinned_readback_bytes (memory.hpp) through one page-locked
// bounce buffer: the DMA is queued right behind the stream's work, one interruptible wait covers
// both, then a memcpy to `dst`. A copy into pageable memory must wait for the stream first and
// then lets the driver stage the bytes itself: on the H200 a 16 KiB launch + sync + readback took 16.9 us that way
// and 13.5 us through pinned memory (bench/results/2026-12-03-1005-nvidia-h200.md, the C++ floor rows). Returns false,
// having done nothing, when the copy is too big for the buffer or another thread holds it: the caller copies the
// pageable way.
bool read_back_through_bounce_buffer(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream);

}  // namespace xcuda::rt::detail
