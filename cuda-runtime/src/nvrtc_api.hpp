// The NVRTC entry points this library uses, resolved from a dlopen'ed libnvrtc on first use.
// Linked instead, the library (about 100 MB) was mapped and relocated at every process start and
// held 27 MiB of an idle kernel's 82 MiB resident memory, whether the notebook compiled or not.
#pragma once

#include <xcuda/rt/toolkit.hpp>

#include <nvrtc.h>

#include <string>

// The table keeps its hand-made layout: clang-format indents each continuation line deeper.
// clang-format off
#define XCUDA_NVRTC_FUNCTIONS(X)                                                                     \
    X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcCreateProgram) X(nvrtcDestroyProgram)              \
    X(nvrtcCompileProgram) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetPTXSize)        \
    X(nvrtcGetPTX) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN) X(nvrtcAddNameExpression)                   \
    X(nvrtcGetLoweredName) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs)
// clang-format on

namespace xcuda::rt::detail {

struct NvrtcApi {
#define XCUDA_DECLARE(fn) decltype(&::fn) fn = nullptr;
    XCUDA_NVRTC_FUNCTIONS(XCUDA_DECLARE)
#undef XCUDA_DECLARE
    std::string path;             // the file loaded, for messages and to find the toolkit's headers
    ToolkitPlace place;           // where it came from: its headers, nvJitLink and CUPTI go with it
    std::string driver_mismatch;  // why it does not suit the GPU, found while choosing among several
    std::string skipped;          // NvrtcInUse::skipped
};

// Loads NVRTC once (thread-safe): $XCUDA_NVRTC when set (whatever the driver), else the first of
// the toolkit places (set_toolkit_places), libnvrtc.so.<CUDA major> by the dynamic loader's
// search and the one this library was configured with that a GPU's driver can use: one whose
// CUDA major the driver supports and that compiles for the GPU's arch. Where none fits, the first
// that loads, with driver_mismatch saying why. The driver is asked only when the candidates span
// more than one CUDA major. Throws CudaError naming every place tried and the pip package to
// install when none loads.
const NvrtcApi& nvrtc();
// The NVRTC loaded so far, or nullptr: never loads (a module from a pickle needs none).
const NvrtcApi* nvrtc_if_loaded() noexcept;
// Why `api` does not suit this machine's GPU (a driver of an older CUDA, an arch it cannot
// target), or "" (no GPU, or it suits). Loads the driver.
std::string unfit_for_the_gpu(const NvrtcApi& api);

// Where a library that goes with NVRTC (nvJitLink, CUPTI) is looked for, in order: the one of
// NVRTC's own place (`of_place`), those of the other places of its CUDA major, then
// `soname_stem`.N by the loader's search and in NVRTC's folder. Sets `major` to NVRTC's CUDA major
// (the headers' when none loads) and `nvrtc_dir` to NVRTC's folder ("" when none loads, or its file
// is not known).
std::vector<std::string> companion_candidates(std::string ToolkitPlace::*of_place, const std::string& soname_stem,
                                              int& major, std::string& nvrtc_dir);

}  // namespace xcuda::rt::detail
