// Stand-ins for libcuda.so.1 that exercise the two NoDeviceError reasons a real machine rarely
// shows: every entry point this library resolves answers CUDA_ERROR_NO_DEVICE (XCUDA_FAKE_NO_DEVICE),
// or the newest one is missing as in a driver older than the headers (XCUDA_FAKE_TOO_OLD), or
// cuEventElapsedTime comes without the _v2 that CUDA 12.8 added, as in a driver for CUDA 12.3-12.7
// (XCUDA_FAKE_EVENT_TIME_V1).
// The symbol names come from the library's own list, so the fakes follow it when it changes.
#include "driver_api.hpp"

#define XCUDA_STR2(x) #x
#define XCUDA_STR(x) XCUDA_STR2(x)

extern "C" CUresult cuDriverGetVersion(int* version) {
    *version = XCUDA_FAKE_VERSION;
    return CUDA_SUCCESS;
}
extern "C" CUresult xcuda_fake_no_device() { return CUDA_ERROR_NO_DEVICE; }

#ifdef XCUDA_FAKE_EVENT_TIME_V1
#undef cuEventElapsedTime
#endif
#ifdef XCUDA_FAKE_TOO_OLD
#undef cuEventElapsedTime
#define cuEventElapsedTime cuEventElapsedTime_absent
#endif
#undef cuDriverGetVersion
#define cuDriverGetVersion cuDriverGetVersion_defined_above

#define XCUDA_ALIAS(fn) asm(".globl " XCUDA_STR(fn) "\n.set " XCUDA_STR(fn) ", xcuda_fake_no_device");
XCUDA_DRIVER_FUNCTIONS(XCUDA_ALIAS)
