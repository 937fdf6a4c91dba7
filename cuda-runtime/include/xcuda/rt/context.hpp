// Primary contexts, and the printf FIFO sized before the first launch.
#pragma once

#include <xcuda/rt/device.hpp>
#include <xcuda/rt/handle.hpp>

#include <cuda.h>

#include <cstddef>
#include <string>

namespace xcuda::rt {

// What happened to the device printf FIFO of a device's primary context in this process.
struct PrintfFifo {
    bool set = false;  // our size was applied before any launch
    std::size_t requested = 0;
    std::size_t bytes = 0;  // the size in effect (cuCtxGetLimit)
    std::string why_not;    // when !set: the driver's reason (e.g. a launch came first)
};

// Size requested for the printf FIFO of every primary context: 64 MiB (the driver's own default
// is about 8 MiB and silently drops lines).
std::size_t printf_fifo_size_requested() noexcept;

namespace detail {
// cuDevicePrimaryCtxRelease takes the device, not the context: the device is kept here, where a
// moved-from PrimaryContext still has it.
struct PrimaryCtxRelease {
    Device device;
    void operator()(CUcontext) const noexcept;
};
}  // namespace detail

// A retained primary context (RAII: released on destruction), move-only. The first retain of
// a device's primary context in this process sizes its printf FIFO.
class PrimaryContext {
public:
    explicit PrimaryContext(const Device& device);

    // Make this the calling thread's current context (cuCtxSetCurrent).
    void make_current() const;
    CUcontext handle() const noexcept { return ctx_.get(); }
    const Device& device() const noexcept { return ctx_.releaser().device; }
    PrintfFifo printf_fifo() const;

    // Waits for all work of this context, polling (see wait.hpp): interruptible.
    void synchronize() const;

private:
    detail::Handle<CUcontext, detail::PrimaryCtxRelease> ctx_;
};

// Waits for all work in the calling thread's current context, polling; throws Interrupted.
void synchronize_current_context();

}  // namespace xcuda::rt
