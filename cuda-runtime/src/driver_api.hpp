// The driver entry points this library uses, resolved from the dlopen'ed libcuda.so.1 or taken
// from the CPU device. Each field is declared through cuda.h's own macro (cuMemAlloc ->
// cuMemAlloc_v2), so its name and signature are exactly the ABI the header describes; the symbol
// looked up is the same expanded name.
#pragma once

#include "driver_functions.hpp"

#include <xcuda/rt/errors.hpp>

#include <cuda.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

namespace xcuda::rt::detail {

struct DriverApi {
#define XCUDA_DECLARE(fn) decltype(&::fn) fn = nullptr;
    XCUDA_DRIVER_FUNCTIONS(XCUDA_DECLARE)
#undef XCUDA_DECLARE
};

// A driver the runtime can use: NVIDIA's libcuda.so.1 (dlopen'ed; $XCUDA_CUDA_DRIVER names
// another), or the CPU device (cpu-device/, linked in). Each has its table and its own sticky-fault
// state: a lost GPU context leaves the CPU device usable.
struct Backend {
    DriverApi api;
    bool cpu = false;
    bool loaded = false;  // every entry point resolved
    bool usable = false;  // cuInit succeeded and a device exists
    NoDeviceError::Why why = NoDeviceError::Why::no_driver_library;
    std::string reason;  // why not usable
    int version = 0;
    int devices = 0;
    // The first sticky fault, thrown again by every later call on this backend.
    std::atomic<bool> lost{false};
    std::mutex lost_mutex;
    std::unique_ptr<ContextLostError> lost_error;
};

// Loaded (and cuInit'ed) on first use; never throw.
Backend& gpu_backend() noexcept;
Backend& cpu_backend() noexcept;
// The backend that runs when nothing chose one: $XCUDA_DEVICE = auto (the GPU when usable, else the
// CPU device), cpu, or gpu/none (the GPU only).
Backend& default_backend() noexcept;
// The backend of this thread's current context (the last PrimaryContext made current here), else
// the default. Objects remember the backend they were made with.
Backend& current_backend() noexcept;
void make_backend_current(Backend& backend) noexcept;

// The current backend's table; throws NoDeviceError saying why when it is not usable.
const DriverApi& driver();
// The current backend's table when it loaded (even with zero devices), else nullptr. Never throws.
const DriverApi* driver_if_loaded() noexcept;

// The ordinal rt::Device uses for `device` of `backend` (cpu_device_ordinal for the CPU device).
int ordinal_of(const Backend& backend, CUdevice device) noexcept;

// Remembers the kernel for last_launched_kernel(); cheap when the same kernel launches again.
void note_launch(CUfunction function, const std::string& name);

// Throws the backend's sticky fault again, if it had one.
void throw_if_lost(Backend& backend);

// Fail fast after a sticky fault, then call and check. `name` is the unversioned call name.
template <class F, class... Args>
void call(const char* name, F fn, Args... args) {
    throw_if_context_lost();
    check(fn(args...), name);
}

// For destructors: call `backend`'s `fn` (&DriverApi::cuMemFree) unless it never loaded or a
// sticky fault came first; ignore errors (a destructor has no one to report to, and the fault
// was already reported).
template <class F, class... Args>
void call_noexcept(const Backend* backend, F DriverApi::*fn, Args... args) noexcept {
    if (backend != nullptr && backend->loaded && !backend->lost.load()) {
        (void)(backend->api.*fn)(args...);
    }
}

}  // namespace xcuda::rt::detail
