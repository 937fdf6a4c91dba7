#include "nvrtc_api.hpp"

#include <xcuda/rt/toolkit.hpp>

#include <mutex>

namespace xcuda::rt {
namespace {

std::mutex places_mutex;
std::vector<ToolkitPlace>& places() {
    static std::vector<ToolkitPlace> list;
    return list;
}

}  // namespace

void set_toolkit_places(std::vector<ToolkitPlace> list) {
    std::lock_guard<std::mutex> lock(places_mutex);
    places() = std::move(list);
}

std::vector<ToolkitPlace> toolkit_places() {
    std::lock_guard<std::mutex> lock(places_mutex);
    return places();
}

NvrtcInUse nvrtc_in_use() {
    const detail::NvrtcApi& api = detail::nvrtc();
    NvrtcInUse in_use;
    in_use.path = api.path;
    in_use.origin = api.place.origin;
    api.nvrtcVersion(&in_use.major, &in_use.minor);
    in_use.driver_mismatch = detail::unfit_for_the_gpu(api);
    in_use.skipped = api.skipped;
    return in_use;
}

std::string origin_of(const std::string& path) {
    for (const auto& place : toolkit_places()) {
        for (const std::string* piece :
             {&place.nvrtc, &place.include_dir, &place.cccl_dir, &place.nvjitlink, &place.cupti}) {
            if (!piece->empty() && *piece == path) return place.origin;
        }
    }
    return {};
}

std::string pip_package_for(const std::string& piece, int cuda_major) {
    // NVIDIA's wheels: CUDA 13's carry no suffix (site-packages/nvidia/cu13), older majors' name
    // it (nvidia-cuda-nvrtc-cu12, site-packages/nvidia/cuda_nvrtc).
    const std::string suffix = cuda_major > 0 && cuda_major < 13 ? "-cu" + std::to_string(cuda_major) : "";
    if (piece == "nvrtc") return "nvidia-cuda-nvrtc" + suffix;
    if (piece == "headers") return "nvidia-cuda-runtime" + suffix;
    if (piece == "cccl") return "nvidia-cuda-cccl" + suffix;
    if (piece == "nvjitlink") return "nvidia-nvjitlink" + suffix;
    if (piece == "cupti") return "nvidia-cuda-cupti" + suffix;
    if (piece == "sanitizer") return "nvidia-cuda-sanitizer-api" + suffix;
    return {};
}

std::string pip_extra_for(int cuda_major) { return cuda_major == 12 ? "xcuda[cuda12]" : "xcuda[cuda13]"; }

}  // namespace xcuda::rt
