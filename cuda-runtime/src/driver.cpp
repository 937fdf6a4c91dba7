#include "driver_api.hpp"

#include <xcuda/rt/driver.hpp>

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#define XCUDA_STR2(x) #x
#define XCUDA_STR(x) XCUDA_STR2(x)  // expands cuda.h's macro first: "cuMemAlloc_v2"

namespace xcuda::rt {
namespace detail {
namespace {

struct DriverState {
    DriverApi api;
    bool loaded = false;  // every symbol resolved
    bool usable = false;  // cuInit succeeded and a device exists
    NoDeviceError::Why why = NoDeviceError::Why::no_driver_library;
    std::string reason;
    int version = 0;
    int devices = 0;
};

std::string library_name() {
    const char* env = std::getenv("XCUDA_CUDA_DRIVER");
    return (env != nullptr && *env != '\0') ? env : "libcuda.so.1";
}

std::string error_text(const DriverApi& api, CUresult code) {
    const char* name = nullptr;
    const char* text = nullptr;
    api.cuGetErrorName(code, &name);
    api.cuGetErrorString(code, &text);
    return std::string(name != nullptr ? name : "CUDA_ERROR_?") + " (" + std::to_string(code) +
           "): " + (text != nullptr ? text : "unknown error");
}

void load(DriverState& s) {
    const std::string lib = library_name();
    // Never dlclose'd: function pointers live as long as the process.
    void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* err = dlerror();
        s.why = NoDeviceError::Why::no_driver_library;
        s.reason = "no CUDA driver: cannot load " + lib + " (" + (err != nullptr ? err : "unknown") +
                   "); install the NVIDIA driver, or run on a machine with a GPU";
        return;
    }
    const char* missing = nullptr;
#define XCUDA_RESOLVE(fn)                                                          \
    s.api.fn = reinterpret_cast<decltype(s.api.fn)>(dlsym(handle, XCUDA_STR(fn))); \
    if (s.api.fn == nullptr && missing == nullptr) missing = XCUDA_STR(fn);
    XCUDA_DRIVER_FUNCTIONS(XCUDA_RESOLVE)
#undef XCUDA_RESOLVE
    if (s.api.cuDriverGetVersion != nullptr) {
        s.api.cuDriverGetVersion(&s.version);
    }
    if (missing != nullptr) {
        s.why = NoDeviceError::Why::driver_too_old;
        s.reason = "CUDA driver too old: " + lib + " (CUDA " + std::to_string(s.version / 1000) + "." +
                   std::to_string(s.version % 1000 / 10) + ") lacks " + missing +
                   "; this build needs a driver for CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +
                   std::to_string(CUDA_VERSION % 1000 / 10) + " or newer: update the NVIDIA driver";
        return;
    }
    s.loaded = true;
    CUresult rc = s.api.cuInit(0);
    if (rc == CUDA_ERROR_NO_DEVICE) {
        s.why = NoDeviceError::Why::no_device;
        s.reason = "no CUDA device: the driver (" + lib + ") loaded but cuInit reports no device (" +
                   error_text(s.api, rc) + "); check nvidia-smi and CUDA_VISIBLE_DEVICES";
        return;
    }
    if (rc != CUDA_SUCCESS) {
        s.why = rc == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH || rc == CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE
                    ? NoDeviceError::Why::driver_too_old
                    : NoDeviceError::Why::driver_init_failed;
        s.reason = "CUDA driver unusable: cuInit failed with " + error_text(s.api, rc);
        return;
    }
    rc = s.api.cuDeviceGetCount(&s.devices);
    if (rc != CUDA_SUCCESS || s.devices == 0) {
        s.why = NoDeviceError::Why::no_device;
        s.reason = "no CUDA device: the driver loaded but reports " +
                   (rc != CUDA_SUCCESS ? error_text(s.api, rc) : std::string("0 devices")) +
                   "; check nvidia-smi and CUDA_VISIBLE_DEVICES";
        return;
    }
    s.usable = true;
}

// A function-local static rather than std::call_once: every driver call comes through here, and
// libstdc++'s call_once sets thread-local state on each call, even once done (seen in perf as a
// measurable share of a launch). Should load() throw (bad_alloc), the next call tries again.
DriverState& state() {
    static DriverState& s = []() -> DriverState& {
        static DriverState loaded;
        load(loaded);
        return loaded;
    }();
    return s;
}

}  // namespace

const DriverApi& driver() {
    DriverState& s = state();
    if (!s.usable) {
        throw NoDeviceError(s.why, s.reason);
    }
    return s.api;
}

const DriverApi* driver_if_loaded() noexcept {
    try {
        DriverState& s = state();
        return s.loaded ? &s.api : nullptr;
    } catch (...) {  // only std::bad_alloc from load()'s messages
        return nullptr;
    }
}

}  // namespace detail

bool driver_available() noexcept {
    try {
        return detail::state().usable;
    } catch (...) {
        return false;
    }
}

std::string driver_unavailable_reason() { return detail::state().usable ? std::string() : detail::state().reason; }

void require_driver() { (void)detail::driver(); }

int driver_version() {
    const auto& s = detail::state();
    if (!s.loaded) {  // a driver without devices still has a version
        throw NoDeviceError(s.why, s.reason);
    }
    return s.version;
}

int device_count() {
    (void)detail::driver();
    return detail::state().devices;
}

}  // namespace xcuda::rt
