// The driver entry points this library uses, resolved from the dlopen'ed libcuda.so.1.
// Each field is declared through cuda.h's own macro (cuMemAlloc -> cuMemAlloc_v2), so its name
// and signature are exactly the ABI the header describes; the symbol looked up is the same
// expanded name.
#pragma once

#include <xcuda/rt/errors.hpp>

#include <cuda.h>

#include <string>

// The table keeps its hand-made layout: clang-format indents each continuation line deeper.
// clang-format off
#define XCUDA_DRIVER_FUNCTIONS(X)                                                                  \
    X(cuGetErrorName) X(cuGetErrorString) X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount)      \
    X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem)                  \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxGetCurrent) \
    X(cuCtxGetDevice) X(cuCtxSynchronize) X(cuCtxSetLimit) X(cuCtxGetLimit) X(cuMemGetInfo)        \
    X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuModuleGetGlobal)            \
    X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)     \
    X(cuOccupancyMaxPotentialBlockSize) X(cuOccupancyMaxActiveClusters) X(cuMemAlloc) X(cuMemFree) \
    X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemsetD8) \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemsetD8Async)              \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamQuery) X(cuEventCreate) X(cuEventDestroy)       \
    X(cuEventRecord) X(cuEventQuery) X(cuEventElapsedTime) X(cuLaunchKernel) X(cuLaunchKernelEx)   \
    X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuStreamIsCapturing) X(cuStreamGetCaptureInfo)  \
    X(cuGraphInstantiate) X(cuGraphLaunch) X(cuGraphDestroy) X(cuGraphExecDestroy) X(cuGraphGetNodes) \
    X(cuGraphNodeGetType) X(cuGraphKernelNodeGetParams) X(cuGraphExecKernelNodeSetParams)
// clang-format on

namespace xcuda::rt::detail {

struct DriverApi {
#define XCUDA_DECLARE(fn) decltype(&::fn) fn = nullptr;
    XCUDA_DRIVER_FUNCTIONS(XCUDA_DECLARE)
#undef XCUDA_DECLARE
};

// Loads the driver and calls cuInit once (thread-safe); throws NoDeviceError saying why
// when the library, a symbol, cuInit or every device is missing.
const DriverApi& driver();
// The same table when it loaded (even with zero devices), else nullptr. Never throws.
const DriverApi* driver_if_loaded() noexcept;

// Remembers the kernel for last_launched_kernel(); cheap when the same kernel launches again.
void note_launch(CUfunction function, const std::string& name);

// Fail fast after a sticky fault, then call and check. `name` is the unversioned call name.
template <class F, class... Args>
void call(const char* name, F fn, Args... args) {
    throw_if_context_lost();
    check(fn(args...), name);
}

// For destructors: call the driver's `fn` (&DriverApi::cuMemFree) unless it never loaded or a
// sticky fault came first; ignore errors (a destructor has no one to report to, and the fault
// was already reported).
template <class F, class... Args>
void call_noexcept(F DriverApi::*fn, Args... args) noexcept {
    const DriverApi* d = driver_if_loaded();
    if (d != nullptr && !context_lost()) {
        (void)(d->*fn)(args...);
    }
}

}  // namespace xcuda::rt::detail
