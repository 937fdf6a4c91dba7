// Where the CUDA pieces this library opens at run time come from: NVRTC, the headers its
// programs include (cuda_fp16.h and the rest of the runtime's, CCCL's <cuda/std/...>), nvJitLink
// and CUPTI. A learner's machine often has no CUDA Toolkit but NVIDIA's PyPI wheels in the
// kernel's environment, or conda's; the package's finder (xcuda._toolkit, in Python, which knows
// site-packages) lists those places here, best first. The C++ tests set none: then the dynamic
// loader's search and the toolkit this library was built with serve, as before.
#pragma once

#include <string>
#include <vector>

namespace xcuda::rt {

// One place that holds some of a toolkit's pieces: a CUDA_HOME, the wheels of one CUDA major in
// one site-packages, a conda prefix, a system toolkit. Every path is "" where the place lacks it.
struct ToolkitPlace {
    std::string origin;       // how it was found, for messages: "pip (site-packages/nvidia/cu13)"
    int cuda_major = 0;       // the CUDA major of its pieces (13 for libnvrtc.so.13); 0 if unknown
    std::string nvrtc;        // libnvrtc.so.N
    std::string include_dir;  // the directory holding cuda_fp16.h
    std::string cccl_dir;     // the directory holding cuda/std/version
    std::string nvjitlink;    // libnvJitLink.so.N
    std::string cupti;        // libcupti.so.N
};

// The places tried after $XCUDA_NVRTC and before the dynamic loader's own search; each NVRTC
// loads with the headers, nvJitLink and CUPTI of its own place. Takes effect for what has not
// been loaded yet (NVRTC loads on the first compile).
void set_toolkit_places(std::vector<ToolkitPlace> places);
std::vector<ToolkitPlace> toolkit_places();

// The NVRTC in use and where it came from; loads it if needed (throws CudaError when none can be).
struct NvrtcInUse {
    std::string path;    // the file loaded
    std::string origin;  // "XCUDA_NVRTC", a place's origin, "the dynamic loader's search", ...
    int major = 0, minor = 0;
    // Set when it does not suit this machine's GPU ("NVRTC 13.0 makes code for CUDA 13, and the
    // GPU's driver supports CUDA 12.4"; none suited it): its modules may not load there.
    std::string driver_mismatch;
    // What each place tried before this one gave, in order ("... (not found); ...").
    std::string skipped;
};
NvrtcInUse nvrtc_in_use();

// The headers NVRTC's programs get (-I): the runtime's (cuda_fp16.h) and CCCL's (cuda/std/...),
// each with where it came from; a directory is "" when none was found. Loads NVRTC if needed.
struct HeadersInUse {
    std::string include_dir, include_origin;
    std::string cccl_dir, cccl_origin;
};
HeadersInUse headers_in_use();

// The nvJitLink and CUPTI files in use, loading them; each throws what a use would when it cannot
// load (CudaError; ProfilerUnavailable for CUPTI, also in a build without CUPTI's profilers).
std::string nvjitlink_in_use();
std::string cupti_in_use();
// The origin of the place that lists `path` (a library or a header directory), or "" if none does.
std::string origin_of(const std::string& path);

// What to pip install for a missing piece, from the place NVRTC came from (its CUDA major) or,
// without one, for the CUDA major this library was built with: "nvidia-cuda-cccl" (CUDA 13),
// "nvidia-cuda-cccl-cu12" (CUDA 12). `piece` is nvrtc, headers, cccl, nvjitlink, cupti or
// sanitizer (compute-sanitizer).
std::string pip_package_for(const std::string& piece, int cuda_major);
// The extra that brings them all for `cuda_major`: "xcuda[cuda13]".
std::string pip_extra_for(int cuda_major);

}  // namespace xcuda::rt
