#include "driver_api.hpp"
#include "interrupted_work_marks.hpp"
#include "stream_registry.hpp"

#include <xcuda/rt/context.hpp>
#include <xcuda/rt/stream.hpp>

#include <map>
#include <mutex>

namespace xcuda::rt {
namespace {

constexpr std::size_t fifo_request = std::size_t{64} << 20;
std::mutex g_fifo_mutex;
std::map<int, PrintfFifo> g_fifo;  // by device ordinal; primary contexts are per device and process

// The limit can only change before the context's first launch (afterwards the driver answers
// CUDA_ERROR_INVALID_VALUE), so it is applied once, at our first retain in this process.
void size_printf_fifo(const Device& device, CUcontext ctx) {
    std::lock_guard<std::mutex> lock(g_fifo_mutex);
    if (g_fifo.count(device.ordinal()) != 0) return;
    const auto& d = device.backend().api;
    PrintfFifo fifo;
    fifo.requested = fifo_request;
    // The limit applies to the current context; the caller's current context is put back after.
    CUcontext previous = nullptr;
    detail::call("cuCtxGetCurrent", d.cuCtxGetCurrent, &previous);
    detail::call("cuCtxSetCurrent", d.cuCtxSetCurrent, ctx);
    const CUresult rc = d.cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, fifo.requested);
    if (rc == CUDA_SUCCESS) {
        fifo.set = true;
    } else if (is_sticky(rc)) {
        check(rc, "cuCtxSetLimit");
    } else {
        const char* name = nullptr;
        d.cuGetErrorName(rc, &name);
        fifo.why_not = std::string("cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE) returned ") + (name ? name : "?") +
                       ": something launched in this primary context before xcuda retained it";
    }
    detail::call("cuCtxGetLimit", d.cuCtxGetLimit, &fifo.bytes, CU_LIMIT_PRINTF_FIFO_SIZE);
    detail::call("cuCtxSetCurrent", d.cuCtxSetCurrent, previous);
    g_fifo[device.ordinal()] = fifo;
}

}  // namespace

std::size_t printf_fifo_size_requested() noexcept { return fifo_request; }

// When sizing the FIFO throws, ctx_ (constructed) releases the context on the way out.
PrimaryContext::PrimaryContext(const Device& device) : ctx_(nullptr, detail::PrimaryCtxRelease{device}) {
    // Calls on the device's own driver: the thread's current one may be the other.
    detail::Backend& b = device.backend();
    detail::Backend& previous = detail::current_backend();
    detail::make_backend_current(b);
    try {
        detail::call("cuDevicePrimaryCtxRetain", b.api.cuDevicePrimaryCtxRetain, ctx_.put(), device.handle());
        size_printf_fifo(device, ctx_.get());
    } catch (...) {
        detail::make_backend_current(previous);
        throw;
    }
    detail::make_backend_current(previous);
}

void detail::PrimaryCtxRelease::operator()(CUcontext) const noexcept {
    release_or_defer(&device.backend(), &DriverApi::cuDevicePrimaryCtxRelease, device.handle());
}

void PrimaryContext::make_current() const {
    detail::Backend& b = device().backend();
    detail::make_backend_current(b);
    detail::call("cuCtxSetCurrent", b.api.cuCtxSetCurrent, ctx_.get());
}

PrintfFifo PrimaryContext::printf_fifo() const {
    std::lock_guard<std::mutex> lock(g_fifo_mutex);
    auto it = g_fifo.find(device().ordinal());
    return it == g_fifo.end() ? PrintfFifo{} : it->second;
}

void PrimaryContext::synchronize() const {
    make_current();
    synchronize_current_context();
}

void synchronize_current_context() {
    const auto& d = detail::driver();
    throw_if_context_lost();
    // The driver has no non-blocking "is the context idle?" query. Work queued before now on the
    // legacy default stream and on every blocking stream is done once an event recorded on the
    // legacy stream completes; non-blocking streams this library created are polled one by one.
    // cuCtxSynchronize then returns at once and reports any error left in the context.
    Event done(false);
    done.record(nullptr);
    done.synchronize();
    for (CUstream s : detail::live_streams()) synchronize_stream(s);
    detail::call("cuCtxSynchronize", d.cuCtxSynchronize);
}

}  // namespace xcuda::rt
