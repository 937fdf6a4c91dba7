#include "driver_api.hpp"

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/device.hpp>
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

void load_gpu(Backend& s) {
    const std::string lib = library_name();
    // Never dlclose'd: function pointers live as long as the process.
    void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* error = dlerror();
        const std::string err = error != nullptr ? error : "unknown";
        s.why = NoDeviceError::Why::no_driver_library;
        // The loader's message names the file again; on a machine with no driver (a laptop, CI)
        // that is all there is to say.
        s.reason = "no CUDA driver: cannot load " + lib + " (" +
                   (err.find("cannot open shared object file") != std::string::npos
                        ? std::string("no NVIDIA driver is installed here")
                        : err) +
                   ")";
        return;
    }
#define XCUDA_RESOLVE(fn) s.api.fn = reinterpret_cast<decltype(s.api.fn)>(dlsym(handle, XCUDA_STR(fn)));
    XCUDA_DRIVER_FUNCTIONS(XCUDA_RESOLVE)
#undef XCUDA_RESOLVE
    // CUDA 12.8 added cuEventElapsedTime_v2, which cuda.h now names, with the same signature and
    // meaning; a driver for CUDA 12.3-12.7 (Colab's and Kaggle's among them) has only the first.
    if (s.api.cuEventElapsedTime == nullptr) {
        s.api.cuEventElapsedTime =
            reinterpret_cast<decltype(s.api.cuEventElapsedTime)>(dlsym(handle, "cuEventElapsedTime"));
    }
    const char* missing = nullptr;
#define XCUDA_FIND_MISSING(fn) \
    if (s.api.fn == nullptr && missing == nullptr) missing = XCUDA_STR(fn);
    XCUDA_DRIVER_FUNCTIONS(XCUDA_FIND_MISSING)
#undef XCUDA_FIND_MISSING
    if (s.api.cuDriverGetVersion != nullptr) {
        s.api.cuDriverGetVersion(&s.version);
    }
    if (missing != nullptr) {
        s.why = NoDeviceError::Why::driver_too_old;
        s.reason = "CUDA driver too old: " + lib + " (CUDA " + std::to_string(s.version / 1000) + "." +
                   std::to_string(s.version % 1000 / 10) + ") lacks " + missing +
                   "; xcuda needs a driver for CUDA 12.3 or newer (the newest entry point it uses, " +
                   "cuStreamGetCaptureInfo_v3, came with 12.3): update the NVIDIA driver";
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

// The CPU device: its entry points are this library's own, and it always has its one device.
void load_cpu(Backend& s) {
    s.cpu = true;
#define XCUDA_TAKE(fn) s.api.fn = &::xcuda::cpu::driver::fn;
    XCUDA_DRIVER_FUNCTIONS(XCUDA_TAKE)
#undef XCUDA_TAKE
    s.loaded = true;
    s.api.cuDriverGetVersion(&s.version);
    if (s.api.cuInit(0) != CUDA_SUCCESS || s.api.cuDeviceGetCount(&s.devices) != CUDA_SUCCESS || s.devices == 0) {
        s.why = NoDeviceError::Why::driver_init_failed;
        s.reason = "the CPU device could not start";
        return;
    }
    s.usable = true;
}

enum class Selection { automatic, cpu, gpu };

// $XCUDA_DEVICE, read once: which device runs when the program does not choose one.
Selection selection() {
    static const Selection chosen = [] {
        const char* env = std::getenv("XCUDA_DEVICE");
        const std::string v = env != nullptr ? env : "";
        if (v == "cpu") return Selection::cpu;
        if (v == "gpu" || v == "none") return Selection::gpu;
        return Selection::automatic;
    }();
    return chosen;
}

thread_local Backend* t_current = nullptr;

}  // namespace

// Function-local statics rather than std::call_once: every driver call comes through here, and
// libstdc++'s call_once sets thread-local state on each call, even once done (seen in perf as a
// measurable share of a launch). Never destroyed: objects released at exit still call through them.
Backend& gpu_backend() noexcept {
    static Backend& b = []() -> Backend& {
        static Backend* loaded = new Backend();
        try {
            load_gpu(*loaded);
        } catch (...) {  // only std::bad_alloc from load_gpu's messages
            loaded->usable = false;
        }
        return *loaded;
    }();
    return b;
}

Backend& cpu_backend() noexcept {
    static Backend& b = []() -> Backend& {
        static Backend* loaded = new Backend();
        load_cpu(*loaded);
        return *loaded;
    }();
    return b;
}

Backend& default_backend() noexcept {
    switch (selection()) {
        case Selection::cpu: return cpu_backend();
        case Selection::gpu: return gpu_backend();
        case Selection::automatic: break;
    }
    return gpu_backend().usable ? gpu_backend() : cpu_backend();
}

Backend& current_backend() noexcept { return t_current != nullptr ? *t_current : default_backend(); }

void make_backend_current(Backend& backend) noexcept { t_current = &backend; }

Backend* current_backend_pointer() noexcept { return &current_backend(); }

int ordinal_of(const Backend& backend, CUdevice device) noexcept {
    return backend.cpu ? cpu_device_ordinal : static_cast<int>(device);
}

const DriverApi& driver() {
    Backend& b = current_backend();
    if (!b.usable) throw NoDeviceError(b.why, b.reason);
    return b.api;
}

const DriverApi* driver_if_loaded() noexcept {
    Backend& b = current_backend();
    return b.loaded ? &b.api : nullptr;
}

}  // namespace detail

bool driver_available() noexcept { return detail::default_backend().usable; }

std::string driver_unavailable_reason() {
    const detail::Backend& b = detail::default_backend();
    return b.usable ? std::string() : b.reason;
}

bool gpu_available() noexcept { return detail::gpu_backend().usable; }

std::string gpu_unavailable_reason() {
    const detail::Backend& b = detail::gpu_backend();
    return b.usable ? std::string() : b.reason;
}

bool cpu_device_available() noexcept { return detail::cpu_backend().usable; }

int default_device_ordinal() {
    detail::Backend& b = detail::default_backend();
    if (!b.usable) throw NoDeviceError(b.why, b.reason);
    return b.cpu ? cpu_device_ordinal : 0;
}

void require_driver() { (void)detail::driver(); }

int driver_version() {
    const detail::Backend& s = detail::gpu_backend();
    if (!s.loaded) {  // a driver without devices still has a version
        throw NoDeviceError(s.why, s.reason);
    }
    return s.version;
}

int device_count() {
    detail::Backend& s = detail::gpu_backend();
    if (!s.usable) throw NoDeviceError(s.why, s.reason);
    return s.devices;
}

}  // namespace xcuda::rt
