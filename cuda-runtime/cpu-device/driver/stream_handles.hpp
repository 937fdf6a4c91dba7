// CUstream handles: the streams cuStreamCreate made and the legacy stream's two names.
#pragma once

#include "driver/handles.hpp"
#include "driver/stream_queues.hpp"

#include <cuda.h>

#include <memory>

namespace xcuda::cpu::driver::detail {

HandleTable<Stream>& stream_table();

// The stream `handle` names: NULL and CU_STREAM_LEGACY are the legacy stream;
// CU_STREAM_PER_THREAD is CUDA_ERROR_NOT_SUPPORTED (the CPU device has no per-thread default
// streams), anything not made by cuStreamCreate (or already destroyed) CUDA_ERROR_INVALID_HANDLE.
CUresult resolve_stream(CUstream handle, std::shared_ptr<Stream>& stream);

}  // namespace xcuda::cpu::driver::detail
