#include "configured.hpp"
#include "nvrtc_api.hpp"

#include <xcuda/rt/errors.hpp>

#include <cuda.h>

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace xcuda::rt::detail {
namespace {

std::vector<std::string> candidates() {
    if (const char* path = std::getenv("XCUDA_NVRTC"); path != nullptr && *path != '\0') return {path};
    return {"libnvrtc.so." + std::to_string(CUDA_VERSION / 1000), XCUDA_CONFIGURED_NVRTC_LIBRARY};
}

NvrtcApi load() {
    std::string tried;
    for (const auto& name : candidates()) {
        void* lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr) {
            const char* why = ::dlerror();
            tried += (tried.empty() ? "" : "; ") + name + " (" + (why ? why : "not found") + ")";
            continue;
        }
        NvrtcApi api;
        const char* missing = nullptr;
#define XCUDA_RESOLVE(fn)                                                      \
    api.fn = reinterpret_cast<decltype(&::fn)>(::dlsym(lib, #fn));            \
    if (api.fn == nullptr && missing == nullptr) missing = #fn;
        XCUDA_NVRTC_FUNCTIONS(XCUDA_RESOLVE)
#undef XCUDA_RESOLVE
        if (missing != nullptr) {
            tried += (tried.empty() ? "" : "; ") + name + " (lacks " + missing + ": too old)";
            ::dlclose(lib);
            continue;
        }
        Dl_info info{};
        api.path = ::dladdr(reinterpret_cast<void*>(api.nvrtcVersion), &info) != 0 && info.dli_fname != nullptr
                       ? info.dli_fname
                       : name;
        return api;  // kept loaded for the life of the process
    }
    throw CudaError("NVRTC, CUDA's runtime compiler, could not be loaded: tried " + tried +
                    ". Install the CUDA Toolkit's NVRTC (CUDA " + std::to_string(CUDA_VERSION / 1000) +
                    "), add its lib64 directory to LD_LIBRARY_PATH, or set XCUDA_NVRTC to the library's path");
}

}  // namespace

const NvrtcApi& nvrtc() {
    // A failed load throws out of the initialiser, so the next call tries again.
    static const NvrtcApi api = load();
    return api;
}

}  // namespace xcuda::rt::detail
