// The driver entry points cuda-runtime calls, in one list: the runtime's table (driver_api.hpp)
// has a field for each, filled from libcuda.so.1 or from the CPU device (cpu-device/driver/),
// which must define every one. Each name is the unversioned one; cuda.h's macros turn it into
// the versioned symbol (cuMemAlloc -> cuMemAlloc_v2) wherever the list is expanded.
#pragma once

#include <cuda.h>

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
