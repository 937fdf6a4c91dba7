// The nvJitLink entry points (device linking of relocatable device code), resolved from a
// dlopen'ed libnvJitLink on first use, like NVRTC: a notebook that never links never maps it.
#pragma once

#include <nvJitLink.h>

#include <string>

// The table keeps its hand-made layout: clang-format indents each continuation line deeper.
// clang-format off
#define XCUDA_NVJITLINK_FUNCTIONS(X)                                                                 \
    X(nvJitLinkCreate) X(nvJitLinkDestroy) X(nvJitLinkAddData) X(nvJitLinkAddFile)                   \
    X(nvJitLinkComplete) X(nvJitLinkGetLinkedCubinSize) X(nvJitLinkGetLinkedCubin)                   \
    X(nvJitLinkGetErrorLogSize) X(nvJitLinkGetErrorLog) X(nvJitLinkGetInfoLogSize)                   \
    X(nvJitLinkGetInfoLog) X(nvJitLinkVersion)
// clang-format on

namespace xcuda::rt::detail {

struct NvJitLinkApi {
#define XCUDA_DECLARE(fn) decltype(&::fn) fn = nullptr;
    XCUDA_NVJITLINK_FUNCTIONS(XCUDA_DECLARE)
#undef XCUDA_DECLARE
    std::string path;
};

// Loads nvJitLink once: $XCUDA_NVJITLINK when set, else libnvJitLink.so.<CUDA major> by the
// loader's search, else next to the NVRTC in use (the same toolkit). Throws CudaError naming
// every place tried.
const NvJitLinkApi& nvjitlink();

}  // namespace xcuda::rt::detail
