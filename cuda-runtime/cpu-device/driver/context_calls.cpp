// The primary context: retain/release, the current context of each thread, synchronisation,
// limits and the memory left.
#include "driver/context_state.hpp"
#include "driver/stream_queues.hpp"

#include <xcuda/cpu/cpu_device.hpp>

namespace xcuda::cpu::driver {

using namespace detail;

CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    retain_primary_context();
    *ctx = primary_context();
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    return release_primary_context();
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    return make_current(ctx);
}

CUresult cuCtxGetCurrent(CUcontext* ctx) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *ctx = current_context();
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *device = 0;
    return CUDA_SUCCESS;
}

// Waits for everything queued on every stream, then reports the device's error once (see
// stream_queues.hpp). A capture in progress cannot be waited for: the real driver refuses too.
CUresult cuCtxSynchronize() {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    Scheduler& s = Scheduler::instance();
    {
        auto lock = s.lock();
        if (s.any_capture_active_locked()) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    s.wait_idle();
    return s.report();
}

CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    return set_limit(limit, value);
}

CUresult cuCtxGetLimit(size_t* value, CUlimit limit) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
    return get_limit(limit, value);
}

CUresult cuMemGetInfo(size_t* free, size_t* total) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (free == nullptr || total == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const DeviceMemory& memory = device_memory();
    *total = memory.capacity();
    *free = memory.capacity() - memory.used();
    return CUDA_SUCCESS;
}

}  // namespace xcuda::cpu::driver
