#pragma once
// Device memory for numpy launch arguments, kept between launches. A loop launching on numpy
// arrays would otherwise cuMemAlloc and cuMemFree every argument on every call, which at a few
// MiB per argument costs more than the copies (bench/ transfer part, 2026-12-02); CuPy keeps a
// pool for the same reason. Buffers come back only after the launch that used them finished.
#include <xcuda/rt/memory.hpp>

#include <cstddef>

namespace xcuda::magics {

// At most this much device memory stays cached (per device): a one-off launch on a huge numpy
// array gives its memory back at once.
inline constexpr std::size_t staging_cache_limit = std::size_t{256} << 20;

// A buffer of at least `bytes` in the current context (that of `device`): a cached one of at
// most twice the size, else a new one. A new allocation that finds the device full frees the
// cache and tries once more. Needs the GIL (the cache is unsynchronised).
rt::DeviceBuffer take_staging_buffer(int device, std::size_t bytes);

// Returns a buffer no launch uses any more; it is cached, or freed when the cache is full.
void give_back_staging_buffer(int device, rt::DeviceBuffer buffer);

// Keeps a buffer that work still running on the GPU may use after the wait for it was abandoned
// (an interrupt): freeing it would block in cuMemFree until that kernel ends, which is what
// the interrupt was for. Kept, unused, until the process exits.
void abandon_staging_buffer(rt::DeviceBuffer buffer);

}  // namespace xcuda::magics
