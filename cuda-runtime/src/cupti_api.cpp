#include "configured.hpp"
#include "cupti_api.hpp"
#include "library_loader.hpp"
#include "nvrtc_api.hpp"

#include <xcuda/rt/profiler_errors.hpp>
#include <xcuda/rt/toolkit.hpp>

#include <cuda.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace xcuda::rt::detail {
namespace {

std::string directory_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// CUPTI's profiler dlopens libnvperf_host.so and libnvperf_target.so by name. A toolkit puts their
// directory on the loader's path (ld.so.conf); NVIDIA's pip wheel (nvidia/cu13/lib) does not, and
// its libcupti has no RUNPATH: with it, cuptiProfilerHostInitialize failed with
// CUPTI_ERROR_NOT_INITIALIZED. Loaded here first from CUPTI's own directory, by their sonames they
// are the ones CUPTI's dlopen finds. Where a file is missing or does not load, CUPTI's own search
// runs as before and its error says so.
void load_perfworks_beside(const std::string& cupti_path) {
    if (cupti_path.find('/') == std::string::npos) return;
    const std::string dir = directory_of(cupti_path);
    for (const char* name : {"libnvperf_host.so", "libnvperf_target.so"}) {
        const std::string path = dir + "/" + name;
        if (::access(path.c_str(), R_OK) == 0) (void)::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    }
}

std::vector<std::string> candidates(int& major) {
    major = CUDA_VERSION / 1000;
    if (const char* path = std::getenv("XCUDA_CUPTI"); path != nullptr && *path != '\0') return {path};
    // The NVRTC's own place first (a wheel's nvidia/cu13/lib, a toolkit's), then the other places of
    // its CUDA major, the loader's search, and a toolkit's lib64 or, in older layouts,
    // extras/CUPTI/lib64 beside the NVRTC's lib64.
    std::string nvrtc_dir;
    std::vector<std::string> names = companion_candidates(&ToolkitPlace::cupti, "libcupti.so", major, nvrtc_dir);
    if (!nvrtc_dir.empty()) names.push_back(nvrtc_dir + "/../extras/CUPTI/lib64/libcupti.so." + std::to_string(major));
    if (*XCUDA_CONFIGURED_CUPTI_LIBRARY != '\0') names.emplace_back(XCUDA_CONFIGURED_CUPTI_LIBRARY);
    return names;
}

CuptiApi load() {
    CuptiApi api;
    int major = 0;
    const std::vector<std::string> names = candidates(major);
    std::string loaded, tried;
    void* lib = open_first_complete(names, XCUDA_TABLE_RESOLVER(api, XCUDA_CUPTI_FUNCTIONS), loaded, tried);
    if (lib == nullptr) {
        throw ProfilerUnavailable(ProfilerUnavailable::Why::no_cupti,
                                  "CUPTI, CUDA's profiling library, was not found: tried " + tried +
                                      ". Install it into the kernel's Python environment: pip install " +
                                      pip_package_for("cupti", major) + " (CUDA " + std::to_string(major) +
                                      "), or set XCUDA_CUPTI to libcupti.so's full path");
    }
    api.path = loaded_file(reinterpret_cast<const void*>(api.cuptiGetResultString), loaded);
    api.handle = lib;
    load_perfworks_beside(api.path);
    return api;
}

std::string result_name(CUptiResult result) {
    const char* text = nullptr;
    if (cupti().cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
        return "CUPTI error " + std::to_string(static_cast<int>(result));
    }
    return text;
}

}  // namespace

const CuptiApi& cupti() {
    // A failed load throws out of the initialiser, so the next call tries again.
    static const CuptiApi api = load();
    return api;
}

void require_nvidia_driver() {
    const char* driver = std::getenv("XCUDA_CUDA_DRIVER");
    if (driver == nullptr || *driver == '\0') return;
    const std::string name = std::string(driver).substr(std::string(driver).rfind('/') + 1);
    if (name.rfind("libcuda.so", 0) == 0) return;
    throw ProfilerUnavailable(ProfilerUnavailable::Why::unsupported,
                              std::string("CUPTI reads the counters of NVIDIA's driver (libcuda.so.1), and this "
                                          "process launches through XCUDA_CUDA_DRIVER=") +
                                  driver + ": unset it to profile with hardware counters");
}

void* optional_entry(const char* name) { return ::dlsym(cupti().handle, name); }

namespace {
std::mutex claim_mutex;
const char* claim_holder = nullptr;  // guarded by claim_mutex
}  // namespace

CuptiClaim::CuptiClaim(const char* who) {
    std::lock_guard<std::mutex> lock(claim_mutex);
    if (claim_holder != nullptr) {
        throw ProfilerUnavailable(ProfilerUnavailable::Why::busy,
                                  std::string(who) + " cannot start while " + claim_holder +
                                      " is recording: CUPTI serves one client at a time in a process. Run it in a "
                                      "cell of its own, after the other has finished");
    }
    claim_holder = who;
}

CuptiClaim::~CuptiClaim() {
    std::lock_guard<std::mutex> lock(claim_mutex);
    claim_holder = nullptr;
}

void check_cupti(CUptiResult result, const char* call) {
    using Why = ProfilerUnavailable::Why;
    switch (result) {
        case CUPTI_SUCCESS: return;
        case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
            throw ProfilerUnavailable(
                Why::not_permitted,
                std::string(call) + ": " + result_name(result) +
                    ": this machine lets only administrators read GPU performance counters. Run the kernel as root, or "
                    "have an administrator allow it: `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file "
                    "under /etc/modprobe.d, then reload the driver or reboot "
                    "(https://developer.nvidia.com/ERR_NVGPUCTRPERM); on a virtual GPU the host must enable profiling");
        case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
        case CUPTI_ERROR_NOT_SUPPORTED:
        case CUPTI_ERROR_NOT_COMPATIBLE:
            throw ProfilerUnavailable(Why::unsupported,
                                      std::string(call) + ": " + result_name(result) +
                                          ": this GPU or its configuration (a virtual GPU, a mining processor, WSL, or "
                                          "an architecture older than Volta) does not expose performance counters; "
                                          "event timing still works");
        default: throw ProfilerUnavailable(Why::failed, std::string(call) + ": " + result_name(result));
    }
}

}  // namespace xcuda::rt::detail

std::string xcuda::rt::cupti_in_use() { return detail::cupti().path; }
