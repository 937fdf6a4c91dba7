#include "library_loader.hpp"
#include "nvjitlink_api.hpp"
#include "nvrtc_api.hpp"

#include <xcuda/rt/handle.hpp>
#include <xcuda/rt/linker.hpp>
#include <xcuda/rt/toolkit.hpp>

#include <cuda.h>

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

namespace xcuda::rt {
namespace fs = std::filesystem;
namespace detail {
namespace {

// nvJitLink of the NVRTC's own place, then of another place of its CUDA major, then the loader's
// search and the NVRTC's folder (a toolkit's lib64, a wheel's lib).
std::vector<std::string> candidates(int& major) {
    major = CUDA_VERSION / 1000;
    if (const char* path = std::getenv("XCUDA_NVJITLINK"); path != nullptr && *path != '\0') return {path};
    std::string nvrtc_dir;
    return companion_candidates(&ToolkitPlace::nvjitlink, "libnvJitLink.so", major, nvrtc_dir);
}

NvJitLinkApi load() {
    int major = 0;
    const std::vector<std::string> names = candidates(major);
    NvJitLinkApi api;
    std::string tried;
    void* lib = open_first_complete(names, XCUDA_TABLE_RESOLVER(api, XCUDA_NVJITLINK_FUNCTIONS), api.path, tried);
    if (lib == nullptr) {
        throw CudaError("nvJitLink, CUDA's device linker (needed for -dc/-rdc cells), was not found: tried " + tried +
                        ". Install it into the kernel's Python environment: pip install " +
                        pip_package_for("nvjitlink", major) + " (CUDA " + std::to_string(major) +
                        "), or set XCUDA_NVJITLINK to libnvJitLink.so's full path");
    }
    api.path = loaded_file(reinterpret_cast<const void*>(api.nvJitLinkVersion), api.path);
    return api;
}

}  // namespace

const NvJitLinkApi& nvjitlink() {
    static const NvJitLinkApi api = load();  // a failed load throws, so the next call tries again
    return api;
}

}  // namespace detail

std::string nvjitlink_in_use() { return detail::nvjitlink().path; }

namespace {

struct LinkDestroy {
    void operator()(nvJitLinkHandle h) const noexcept { detail::nvjitlink().nvJitLinkDestroy(&h); }
};

// nvJitLink's error or info log (they share one shape of size + copy calls).
std::string read_log(nvJitLinkHandle h, decltype(&::nvJitLinkGetErrorLogSize) size_of,
                     decltype(&::nvJitLinkGetErrorLog) copy) {
    std::size_t size = 0;
    if (size_of(h, &size) != NVJITLINK_SUCCESS || size == 0) return {};
    std::string log(size, '\0');
    if (copy(h, log.data()) != NVJITLINK_SUCCESS) return {};
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return log;
}

}  // namespace

LinkError::LinkError(std::string log) : CudaError("device link failed:\n" + log), log_(std::move(log)) {}

std::string cudadevrt_path() {
    // Beside NVRTC (a toolkit's lib64, CUDA 13's wheel folder nvidia/cu13/lib), beside the runtime's
    // headers (CUDA 12's nvidia/cuda_runtime/lib), then the toolkits'.
    std::vector<fs::path> dirs;
    try {
        const detail::NvrtcApi& api = detail::nvrtc();
        dirs.push_back(fs::path(api.path).parent_path());
        if (!api.place.include_dir.empty()) dirs.push_back(fs::path(api.place.include_dir).parent_path() / "lib");
    } catch (const CudaError&) {
        // No NVRTC: the toolkits' folders remain.
    }
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
        dirs.push_back(fs::path(home) / "lib64");
        dirs.push_back(fs::path(home) / "lib");
    }
    dirs.emplace_back("/usr/local/cuda/lib64");
    for (const auto& d : dirs) {
        std::error_code ec;
        if (fs::is_regular_file(d / "libcudadevrt.a", ec)) return (d / "libcudadevrt.a").string();
    }
    return {};
}

LinkResult link(const std::string& arch, const std::vector<LinkInput>& inputs, bool with_device_runtime) {
    const auto& api = detail::nvjitlink();
    std::string devrt;
    if (with_device_runtime) {
        devrt = cudadevrt_path();
        if (devrt.empty()) {
            throw CudaError(
                "libcudadevrt.a (CUDA's device runtime, for launches from the device) was not found next "
                "to NVRTC, in $CUDA_HOME/lib64 or /usr/local/cuda/lib64: install the CUDA Toolkit's "
                "static libraries or set CUDA_HOME");
        }
    }
    const std::string arch_option = "-arch=" + arch;
    const char* options[] = {arch_option.c_str()};
    detail::Handle<nvJitLinkHandle, LinkDestroy> handle;
    auto fail = [&](nvJitLinkResult r, const char* call) {
        std::string log = read_log(handle.get(), api.nvJitLinkGetErrorLogSize, api.nvJitLinkGetErrorLog);
        if (log.empty()) log = std::string(call) + " failed with nvJitLink error " + std::to_string(int(r));
        throw LinkError(log);
    };
    if (nvJitLinkResult r = api.nvJitLinkCreate(handle.put(), 1, options); r != NVJITLINK_SUCCESS) {
        throw CudaError("nvJitLinkCreate(" + arch_option + ") failed with nvJitLink error " + std::to_string(int(r)));
    }
    for (const auto& in : inputs) {
        if (nvJitLinkResult r = api.nvJitLinkAddData(handle.get(), NVJITLINK_INPUT_CUBIN, in.cubin.data(),
                                                     in.cubin.size(), in.name.c_str());
            r != NVJITLINK_SUCCESS)
            fail(r, "nvJitLinkAddData");
    }
    if (!devrt.empty()) {
        if (nvJitLinkResult r = api.nvJitLinkAddFile(handle.get(), NVJITLINK_INPUT_LIBRARY, devrt.c_str());
            r != NVJITLINK_SUCCESS)
            fail(r, "nvJitLinkAddFile");
    }
    if (nvJitLinkResult r = api.nvJitLinkComplete(handle.get()); r != NVJITLINK_SUCCESS) fail(r, "nvJitLinkComplete");
    std::size_t size = 0;
    if (nvJitLinkResult r = api.nvJitLinkGetLinkedCubinSize(handle.get(), &size); r != NVJITLINK_SUCCESS)
        fail(r, "nvJitLinkGetLinkedCubinSize");
    LinkResult out;
    out.cubin.resize(size);
    if (nvJitLinkResult r = api.nvJitLinkGetLinkedCubin(handle.get(), out.cubin.data()); r != NVJITLINK_SUCCESS)
        fail(r, "nvJitLinkGetLinkedCubin");
    out.info_log = read_log(handle.get(), api.nvJitLinkGetInfoLogSize, api.nvJitLinkGetInfoLog);
    return out;
}

}  // namespace xcuda::rt
