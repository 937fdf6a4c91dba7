// The emulated device's process-wide state: whether cuInit ran, its device memory, its one
// primary context (the retain count, the context current on each thread) and the context's limits.
#pragma once

#include "check/device_memory.hpp"

#include <cuda.h>

#include <cstddef>

namespace xcuda::cpu::driver::detail {

// cuInit: reserves the device memory the first time.
CUresult initialize(unsigned flags);
// Valid once initialize() succeeded; never destroyed (stream workers use it until the process ends).
DeviceMemory& device_memory();

// Entry checks in the real driver's order: CUDA_ERROR_NOT_INITIALIZED before cuInit, then
// CUDA_ERROR_INVALID_CONTEXT unless the retained primary context is current on this thread.
CUresult require_initialized() noexcept;
CUresult require_context() noexcept;

CUcontext primary_context() noexcept;
CUresult retain_primary_context();
CUresult release_primary_context();
CUcontext current_context() noexcept;
CUresult make_current(CUcontext context) noexcept;

CUresult set_limit(CUlimit limit, std::size_t value);
CUresult get_limit(CUlimit limit, std::size_t* value);
std::size_t printf_fifo_bytes();
// Called for every launch queued: afterwards the printf FIFO and malloc heap sizes are fixed, as
// on a GPU, whose driver sizes those buffers at the first launch.
void note_launch() noexcept;

}  // namespace xcuda::cpu::driver::detail
