#include "configured.hpp"
#include "library_loader.hpp"
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
    NvrtcApi api;
    std::string loaded, tried;
    void* lib = open_first_complete(candidates(), XCUDA_TABLE_RESOLVER(api, XCUDA_NVRTC_FUNCTIONS), loaded, tried);
    if (lib == nullptr) {
        throw CudaError("NVRTC, CUDA's runtime compiler, could not be loaded: tried " + tried +
                        ". Install the CUDA Toolkit's NVRTC (CUDA " + std::to_string(CUDA_VERSION / 1000) +
                        "), add its lib64 directory to LD_LIBRARY_PATH, or set XCUDA_NVRTC to the library's path");
    }
    Dl_info info{};
    api.path = ::dladdr(reinterpret_cast<void*>(api.nvrtcVersion), &info) != 0 && info.dli_fname != nullptr
                   ? info.dli_fname
                   : loaded;
    return api;
}

}  // namespace

const NvrtcApi& nvrtc() {
    // A failed load throws out of the initialiser, so the next call tries again.
    static const NvrtcApi api = load();
    return api;
}

}  // namespace xcuda::rt::detail
