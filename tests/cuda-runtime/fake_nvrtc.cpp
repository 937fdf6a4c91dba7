// A stand-in for libnvrtc.so.<major>: it loads, says its version (XCUDA_FAKE_NVRTC_MAJOR.MINOR)
// and the archs it targets (sm_75 and up), and compiles nothing (every other entry point answers
// NVRTC_ERROR_INTERNAL_ERROR). Enough to test which of several NVRTCs the loader picks for a GPU's
// driver without installing two CUDA versions. The symbol names come from the loader's own list.
#include "nvrtc_api.hpp"

#define XCUDA_STR2(x) #x
#define XCUDA_STR(x) XCUDA_STR2(x)

extern "C" nvrtcResult nvrtcVersion(int* major, int* minor) {
    *major = XCUDA_FAKE_NVRTC_MAJOR;
    *minor = XCUDA_FAKE_NVRTC_MINOR;
    return NVRTC_SUCCESS;
}

namespace {
constexpr int archs[] = {75, 80, 86, 89, 90};
}

extern "C" nvrtcResult nvrtcGetNumSupportedArchs(int* count) {
    *count = static_cast<int>(sizeof(archs) / sizeof(archs[0]));
    return NVRTC_SUCCESS;
}

extern "C" nvrtcResult nvrtcGetSupportedArchs(int* out) {
    for (int a : archs) *out++ = a;
    return NVRTC_SUCCESS;
}

extern "C" const char* nvrtcGetErrorString(nvrtcResult) { return "fake NVRTC: compiles nothing"; }

extern "C" nvrtcResult xcuda_fake_nvrtc_fails() { return NVRTC_ERROR_INTERNAL_ERROR; }

#define nvrtcVersion nvrtcVersion_defined_above
#define nvrtcGetNumSupportedArchs nvrtcGetNumSupportedArchs_defined_above
#define nvrtcGetSupportedArchs nvrtcGetSupportedArchs_defined_above
#define nvrtcGetErrorString nvrtcGetErrorString_defined_above
#define XCUDA_ALIAS(fn) asm(".globl " XCUDA_STR(fn) "\n.set " XCUDA_STR(fn) ", xcuda_fake_nvrtc_fails");
XCUDA_NVRTC_FUNCTIONS(XCUDA_ALIAS)
