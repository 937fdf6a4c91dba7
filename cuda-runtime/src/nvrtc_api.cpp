#include "configured.hpp"
#include "library_loader.hpp"
#include "nvrtc_api.hpp"

#include <xcuda/rt/device.hpp>
#include <xcuda/rt/driver.hpp>
#include <xcuda/rt/errors.hpp>

#include <cuda.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <set>
#include <vector>

namespace xcuda::rt::detail {
namespace {

constexpr int built_major = CUDA_VERSION / 1000;

struct Candidate {
    std::string path;
    ToolkitPlace place;   // origin always; the other pieces where a finder listed the place
    bool forced = false;  // $XCUDA_NVRTC: used whatever the driver says
};

std::vector<Candidate> candidates() {
    if (const char* path = std::getenv("XCUDA_NVRTC"); path != nullptr && *path != '\0') {
        ToolkitPlace named;
        named.origin = "XCUDA_NVRTC";
        return {{path, named, true}};
    }
    std::vector<Candidate> list;
    for (auto& place : toolkit_places()) {
        if (!place.nvrtc.empty()) list.push_back({place.nvrtc, place, false});
    }
    ToolkitPlace loader, configured;
    loader.origin = "the dynamic loader's search (LD_LIBRARY_PATH, ld.so.cache)";
    configured.origin = "the CUDA Toolkit xcuda was built with";
    list.push_back({"libnvrtc.so." + std::to_string(built_major), loader, false});
    list.push_back({XCUDA_CONFIGURED_NVRTC_LIBRARY, configured, false});
    return list;
}

std::string cuda_version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// What a GPU asks of the NVRTC that compiles for it; nothing without a GPU (the CPU device runs
// the PTX of any NVRTC).
struct GpuNeeds {
    int driver_version = 0;  // cuDriverGetVersion's form, 12040
    std::string arch;        // device 0's, "sm_75"
};

std::optional<GpuNeeds> gpu_needs() {
    if (!gpu_available()) return std::nullopt;  // loads the driver (cuInit) the first time
    try {
        return GpuNeeds{driver_version(), Device(0).arch()};
    } catch (const CudaError&) {
        return std::nullopt;
    }
}

// Empty when `api` suits the GPU; otherwise why not.
std::string unfit_for(const NvrtcApi& api, const GpuNeeds& gpu) {
    int major = 0, minor = 0;
    api.nvrtcVersion(&major, &minor);
    const std::string version = std::to_string(major) + "." + std::to_string(minor);
    if (major > gpu.driver_version / 1000) {
        return "NVRTC " + version + " makes code for CUDA " + std::to_string(major) +
               ", and the GPU's driver supports CUDA " + cuda_version_text(gpu.driver_version);
    }
    int count = 0;
    if (api.nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
        std::vector<int> archs(static_cast<std::size_t>(count));
        if (api.nvrtcGetSupportedArchs(archs.data()) == NVRTC_SUCCESS &&
            std::none_of(archs.begin(), archs.end(), [&](int a) { return gpu.arch == "sm_" + std::to_string(a); })) {
            return "NVRTC " + version + " cannot compile for the GPU's " + gpu.arch;
        }
    }
    return {};
}

std::string not_found_message(const std::string& tried) {
    return "NVRTC, CUDA's runtime compiler, was not found: tried " + tried + ". Install it into the kernel's " +
           "Python environment: pip install \"" + pip_extra_for(built_major) + "\" (or pip install " +
           pip_package_for("nvrtc", built_major) + " " + pip_package_for("headers", built_major) + " " +
           pip_package_for("cccl", built_major) + "; for a driver older than CUDA " + std::to_string(built_major) +
           ": pip install \"" + pip_extra_for(built_major - 1) +
           "\"), or set XCUDA_NVRTC to a libnvrtc.so's full path, then restart the kernel";
}

// Whether the candidates may be of more than one CUDA major (a place's major, or the soname's):
// only then is there a choice for the GPU's driver to make, and the driver worth loading now. A
// process that compiles for a given arch and never launches keeps its start free of cuInit.
bool choice_to_make(const std::vector<Candidate>& list) {
    std::set<int> majors;
    for (const auto& c : list) majors.insert(c.place.cuda_major != 0 ? c.place.cuda_major : built_major);
    return majors.size() > 1;
}

NvrtcApi load() {
    const std::vector<Candidate> list = candidates();
    std::optional<GpuNeeds> gpu;
    bool gpu_asked = !choice_to_make(list);
    std::optional<NvrtcApi> fallback;  // the best that loaded but does not suit the GPU
    std::string tried;
    std::set<std::string> seen;
    for (const auto& candidate : list) {
        NvrtcApi attempt;
        std::string why;
        void* lib = open_complete(candidate.path, XCUDA_TABLE_RESOLVER(attempt, XCUDA_NVRTC_FUNCTIONS), why);
        if (lib == nullptr) {
            tried += (tried.empty() ? "" : "; ") + candidate.path + " (" + why + ")";
            continue;
        }
        attempt.path = loaded_file(reinterpret_cast<const void*>(attempt.nvrtcVersion), candidate.path);
        if (!seen.insert(attempt.path).second) {  // the loader's search found a place's library again
            ::dlclose(lib);
            continue;
        }
        attempt.place = candidate.place;
        if (!gpu_asked) {
            gpu = gpu_needs();
            gpu_asked = true;
        }
        std::string unfit = gpu ? unfit_for(attempt, *gpu) : std::string();
        if (!unfit.empty() && !candidate.forced) {
            tried += (tried.empty() ? "" : "; ") + attempt.path + " (" + unfit + ")";
            if (!fallback) {
                attempt.driver_mismatch = unfit;
                fallback = std::move(attempt);
            } else {
                ::dlclose(lib);
            }
            continue;
        }
        attempt.skipped = tried;
        return attempt;
    }
    if (fallback) {
        fallback->skipped = tried;
        return std::move(*fallback);
    }
    throw CudaError(not_found_message(tried));
}

}  // namespace

namespace {
std::atomic<const NvrtcApi*> loaded_api{nullptr};
}

const NvrtcApi& nvrtc() {
    // A failed load throws out of the initialiser, so the next call tries again.
    static const NvrtcApi api = load();
    loaded_api.store(&api, std::memory_order_release);
    return api;
}

const NvrtcApi* nvrtc_if_loaded() noexcept { return loaded_api.load(std::memory_order_acquire); }

std::string unfit_for_the_gpu(const NvrtcApi& api) {
    if (!api.driver_mismatch.empty()) return api.driver_mismatch;
    const std::optional<GpuNeeds> gpu = gpu_needs();
    return gpu ? unfit_for(api, *gpu) : std::string();
}

std::vector<std::string> companion_candidates(std::string ToolkitPlace::*of_place, const std::string& soname_stem,
                                              int& major, std::string& nvrtc_dir) {
    major = CUDA_VERSION / 1000;
    nvrtc_dir.clear();
    std::vector<std::string> names;
    try {
        const NvrtcApi& api = nvrtc();
        int minor = 0;
        api.nvrtcVersion(&major, &minor);
        if (!(api.place.*of_place).empty()) names.push_back(api.place.*of_place);
        // A bare soname (the loader could not say which file) gives no folder to look in.
        if (const auto slash = api.path.rfind('/'); slash != std::string::npos) nvrtc_dir = api.path.substr(0, slash);
    } catch (const CudaError&) {
        // No NVRTC: the places of the headers' CUDA major and the loader's search remain.
    }
    for (const auto& place : toolkit_places()) {
        if (place.cuda_major == major && !(place.*of_place).empty()) names.push_back(place.*of_place);
    }
    const std::string soname = soname_stem + "." + std::to_string(major);
    names.push_back(soname);
    if (!nvrtc_dir.empty()) names.push_back(nvrtc_dir + "/" + soname);
    return names;
}

}  // namespace xcuda::rt::detail
