#include "driver/context_state.hpp"

#include "exec/emulated_device.hpp"

#include <atomic>
#include <mutex>
#include <new>

namespace xcuda::cpu::driver::detail {
using namespace emulated;  // the device this driver describes (exec/emulated_device.hpp)
namespace {

struct Context {
    std::mutex mutex;
    DeviceMemory* memory = nullptr;  // guarded by mutex until set, then read without it
    std::atomic<bool> initialized{false};
    std::atomic<int> retains{0};
    std::atomic<bool> launched{false};
    std::size_t printf_fifo = default_printf_fifo_bytes;  // limits: guarded by mutex
    std::size_t malloc_heap = default_malloc_heap_bytes;
    std::size_t stack = default_stack_bytes;
    std::size_t pending_launches = default_pending_launch_count;
    std::size_t l2_fetch_granularity = 64;
    std::size_t persisting_l2 = 0;
};

// Never destroyed: stream workers and the runtime's static destructors use it until exit.
Context& context() {
    static Context* c = new Context();
    return *c;
}

thread_local CUcontext t_current = nullptr;

}  // namespace

CUresult initialize(unsigned flags) {
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    Context& c = context();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.memory == nullptr) {
        try {
            c.memory = new DeviceMemory(default_device_memory_capacity());
        } catch (const std::bad_alloc&) {
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    c.initialized.store(true, std::memory_order_release);
    return CUDA_SUCCESS;
}

DeviceMemory& device_memory() { return *context().memory; }

CUresult require_initialized() noexcept {
    return context().initialized.load(std::memory_order_acquire) ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult require_context() noexcept {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    return t_current == primary_context() && context().retains.load() > 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUcontext primary_context() noexcept { return reinterpret_cast<CUcontext>(&context()); }

CUresult retain_primary_context() {
    context().retains.fetch_add(1);
    return CUDA_SUCCESS;
}

// At zero the real driver destroys the context and everything in it; here memory, modules and
// streams survive, and calls that need the context answer CUDA_ERROR_INVALID_CONTEXT until it is
// retained again.
CUresult release_primary_context() {
    int count = context().retains.load();
    do {
        if (count == 0) return CUDA_ERROR_INVALID_CONTEXT;
    } while (!context().retains.compare_exchange_weak(count, count - 1));
    return CUDA_SUCCESS;
}

CUcontext current_context() noexcept { return t_current; }

CUresult make_current(CUcontext ctx) noexcept {
    if (ctx != nullptr && (ctx != primary_context() || context().retains.load() == 0))
        return CUDA_ERROR_INVALID_CONTEXT;
    t_current = ctx;
    return CUDA_SUCCESS;
}

CUresult set_limit(CUlimit limit, std::size_t value) {
    Context& c = context();
    std::lock_guard<std::mutex> lock(c.mutex);
    const bool launched = c.launched.load();
    switch (limit) {
        case CU_LIMIT_STACK_SIZE: c.stack = value; return CUDA_SUCCESS;
        case CU_LIMIT_PRINTF_FIFO_SIZE:
            if (launched) return CUDA_ERROR_INVALID_VALUE;
            c.printf_fifo = value;
            return CUDA_SUCCESS;
        case CU_LIMIT_MALLOC_HEAP_SIZE:
            if (launched) return CUDA_ERROR_INVALID_VALUE;
            c.malloc_heap = value;
            return CUDA_SUCCESS;
        case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: c.pending_launches = value; return CUDA_SUCCESS;
        case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
            if (value > 128) return CUDA_ERROR_INVALID_VALUE;
            c.l2_fetch_granularity = value;
            return CUDA_SUCCESS;
        case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
            // A hint the device has no cache for: clamped to the only size it can honour.
            c.persisting_l2 = 0;
            return CUDA_SUCCESS;
        default: return CUDA_ERROR_UNSUPPORTED_LIMIT;  // CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: none on sm_90
    }
}

CUresult get_limit(CUlimit limit, std::size_t* value) {
    Context& c = context();
    std::lock_guard<std::mutex> lock(c.mutex);
    switch (limit) {
        case CU_LIMIT_STACK_SIZE: *value = c.stack; return CUDA_SUCCESS;
        case CU_LIMIT_PRINTF_FIFO_SIZE: *value = c.printf_fifo; return CUDA_SUCCESS;
        case CU_LIMIT_MALLOC_HEAP_SIZE: *value = c.malloc_heap; return CUDA_SUCCESS;
        case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: *value = c.pending_launches; return CUDA_SUCCESS;
        case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: *value = c.l2_fetch_granularity; return CUDA_SUCCESS;
        case CU_LIMIT_PERSISTING_L2_CACHE_SIZE: *value = c.persisting_l2; return CUDA_SUCCESS;
        default: return CUDA_ERROR_UNSUPPORTED_LIMIT;
    }
}

std::size_t printf_fifo_bytes() {
    Context& c = context();
    std::lock_guard<std::mutex> lock(c.mutex);
    return c.printf_fifo;
}

void note_launch() noexcept { context().launched.store(true); }

}  // namespace xcuda::cpu::driver::detail
