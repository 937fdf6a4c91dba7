// cuGetErrorName and cuGetErrorString: every CUresult of cuda.h, with the real driver's names and
// messages (codes newer than the toolkit built against have none). Neither needs cuInit, as the
// real driver's do not.
#include <xcuda/cpu/cpu_device.hpp>

namespace xcuda::cpu::driver {
namespace {

struct ErrorText {
    const char* name;
    const char* message;
};

#define XCUDA_ERROR(code, message) \
    case code: return {#code, message};

ErrorText error_text(CUresult error) {
    switch (error) {
        XCUDA_ERROR(CUDA_SUCCESS, "no error")
        XCUDA_ERROR(CUDA_ERROR_INVALID_VALUE, "invalid argument")
        XCUDA_ERROR(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")
        XCUDA_ERROR(CUDA_ERROR_NOT_INITIALIZED, "initialization error")
        XCUDA_ERROR(CUDA_ERROR_DEINITIALIZED, "driver shutting down")
        XCUDA_ERROR(CUDA_ERROR_PROFILER_DISABLED, "profiler disabled while using external profiling tool")
        XCUDA_ERROR(CUDA_ERROR_PROFILER_NOT_INITIALIZED, "profiler not initialized: call cudaProfilerInitialize()")
        XCUDA_ERROR(CUDA_ERROR_PROFILER_ALREADY_STARTED, "profiler already started")
        XCUDA_ERROR(CUDA_ERROR_PROFILER_ALREADY_STOPPED, "profiler already stopped")
        XCUDA_ERROR(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library")
#if CUDA_VERSION >= 12040
        XCUDA_ERROR(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "API call is not supported in the installed CUDA driver")
#endif
        XCUDA_ERROR(CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA-capable device(s) is/are busy or unavailable")
        XCUDA_ERROR(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected")
        XCUDA_ERROR(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")
        XCUDA_ERROR(CUDA_ERROR_DEVICE_NOT_LICENSED, "device doesn't have valid Grid license")
        XCUDA_ERROR(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid")
        XCUDA_ERROR(CUDA_ERROR_INVALID_CONTEXT, "invalid device context")
        XCUDA_ERROR(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "context already current")
        XCUDA_ERROR(CUDA_ERROR_MAP_FAILED, "mapping of buffer object failed")
        XCUDA_ERROR(CUDA_ERROR_UNMAP_FAILED, "unmapping of buffer object failed")
        XCUDA_ERROR(CUDA_ERROR_ARRAY_IS_MAPPED, "array is mapped")
        XCUDA_ERROR(CUDA_ERROR_ALREADY_MAPPED, "resource already mapped")
        XCUDA_ERROR(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device")
        XCUDA_ERROR(CUDA_ERROR_ALREADY_ACQUIRED, "resource already acquired")
        XCUDA_ERROR(CUDA_ERROR_NOT_MAPPED, "resource not mapped")
        XCUDA_ERROR(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "resource not mapped as array")
        XCUDA_ERROR(CUDA_ERROR_NOT_MAPPED_AS_POINTER, "resource not mapped as pointer")
        XCUDA_ERROR(CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error encountered")
        XCUDA_ERROR(CUDA_ERROR_UNSUPPORTED_LIMIT, "limit is not supported on this architecture")
        XCUDA_ERROR(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, "exclusive-thread device already in use by a different thread")
        XCUDA_ERROR(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access is not supported between these two devices")
        XCUDA_ERROR(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed")
        XCUDA_ERROR(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "invalid OpenGL or DirectX context")
        XCUDA_ERROR(CUDA_ERROR_NVLINK_UNCORRECTABLE, "uncorrectable NVLink error detected during the execution")
        XCUDA_ERROR(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "PTX JIT compiler library not found")
        XCUDA_ERROR(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "the provided PTX was compiled with an unsupported toolchain.")
        XCUDA_ERROR(CUDA_ERROR_JIT_COMPILATION_DISABLED, "PTX JIT compilation was disabled")
        XCUDA_ERROR(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, "the provided execution affinity is not supported")
#if CUDA_VERSION >= 12040
        XCUDA_ERROR(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC,
                    "the provided PTX contains unsupported call to cudaDeviceSynchronize")
#endif
#if CUDA_VERSION >= 12080
        XCUDA_ERROR(CUDA_ERROR_CONTAINED, "an exception occurred on the device that is now contained by the GPU")
#endif
        XCUDA_ERROR(CUDA_ERROR_INVALID_SOURCE, "device kernel image is invalid")
        XCUDA_ERROR(CUDA_ERROR_FILE_NOT_FOUND, "file not found")
        XCUDA_ERROR(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "shared object symbol not found")
        XCUDA_ERROR(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "shared object initialization failed")
        XCUDA_ERROR(CUDA_ERROR_OPERATING_SYSTEM, "OS call failed or operation not supported on this OS")
        XCUDA_ERROR(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")
        XCUDA_ERROR(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state")
#if CUDA_VERSION >= 12030
        XCUDA_ERROR(CUDA_ERROR_LOSSY_QUERY, "attempted introspection would be semantically lossy")
#endif
        XCUDA_ERROR(CUDA_ERROR_NOT_FOUND, "named symbol not found")
        XCUDA_ERROR(CUDA_ERROR_NOT_READY, "device not ready")
        XCUDA_ERROR(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")
        XCUDA_ERROR(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch")
        XCUDA_ERROR(CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated")
        XCUDA_ERROR(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, "launch uses incompatible texturing mode")
        XCUDA_ERROR(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled")
        XCUDA_ERROR(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled")
        XCUDA_ERROR(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "cannot set while device is active in this process")
        XCUDA_ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed")
        XCUDA_ERROR(CUDA_ERROR_ASSERT, "device-side assert triggered")
        XCUDA_ERROR(CUDA_ERROR_TOO_MANY_PEERS, "peer mapping resources exhausted")
        XCUDA_ERROR(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                    "part or all of the requested memory range is already mapped")
        XCUDA_ERROR(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "pointer does not correspond to a registered memory region")
        XCUDA_ERROR(CUDA_ERROR_HARDWARE_STACK_ERROR, "hardware stack error")
        XCUDA_ERROR(CUDA_ERROR_ILLEGAL_INSTRUCTION, "an illegal instruction was encountered")
        XCUDA_ERROR(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address")
        XCUDA_ERROR(CUDA_ERROR_INVALID_ADDRESS_SPACE, "operation not supported on global/shared address space")
        XCUDA_ERROR(CUDA_ERROR_INVALID_PC, "invalid program counter")
        XCUDA_ERROR(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure")
        XCUDA_ERROR(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "too many blocks in cooperative launch")
#if CUDA_VERSION >= 12080
        XCUDA_ERROR(CUDA_ERROR_TENSOR_MEMORY_LEAK, "tensor memory not completely freed")
#endif
        XCUDA_ERROR(CUDA_ERROR_NOT_PERMITTED, "operation not permitted")
        XCUDA_ERROR(CUDA_ERROR_NOT_SUPPORTED, "operation not supported")
        XCUDA_ERROR(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized")
        XCUDA_ERROR(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
                    "system has unsupported display driver / cuda driver combination")
        XCUDA_ERROR(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
                    "forward compatibility was attempted on non supported HW")
        XCUDA_ERROR(CUDA_ERROR_MPS_CONNECTION_FAILED,
                    "MPS client failed to connect to the MPS control daemon or the MPS server")
        XCUDA_ERROR(CUDA_ERROR_MPS_RPC_FAILURE,
                    "the remote procedural call between the MPS server and the MPS client failed")
        XCUDA_ERROR(CUDA_ERROR_MPS_SERVER_NOT_READY, "MPS server is not ready to accept new MPS client requests")
        XCUDA_ERROR(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED,
                    "the hardware resources required to create MPS client have been exhausted")
        XCUDA_ERROR(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,
                    "the hardware resources required to support device connections have been exhausted")
        XCUDA_ERROR(CUDA_ERROR_MPS_CLIENT_TERMINATED, "the MPS client has been terminated by the server")
        XCUDA_ERROR(CUDA_ERROR_CDP_NOT_SUPPORTED,
                    "module is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not "
                    "support it")
        XCUDA_ERROR(CUDA_ERROR_CDP_VERSION_MISMATCH,
                    "the interface for CUDA Dynamic Parallelism has changed and the module is using the old one")
        XCUDA_ERROR(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing")
        XCUDA_ERROR(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "operation failed due to a previous error during capture")
        XCUDA_ERROR(CUDA_ERROR_STREAM_CAPTURE_MERGE, "operation would result in a merge of separate capture sequences")
        XCUDA_ERROR(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "capture was not ended in the same stream as it began")
        XCUDA_ERROR(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "capturing stream has unjoined work")
        XCUDA_ERROR(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "dependency created on uncaptured work in another stream")
        XCUDA_ERROR(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                    "operation would make the legacy stream depend on a capturing blocking stream")
        XCUDA_ERROR(CUDA_ERROR_CAPTURED_EVENT,
                    "operation not permitted on an event last recorded in a capturing stream")
        XCUDA_ERROR(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
                    "attempt to terminate a thread-local capture sequence from another thread")
        XCUDA_ERROR(CUDA_ERROR_TIMEOUT, "wait operation timed out")
        XCUDA_ERROR(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
                    "the graph update was not performed because it included changes which violated constraints "
                    "specific to instantiated graph update")
        XCUDA_ERROR(CUDA_ERROR_EXTERNAL_DEVICE, "an async error has occured in external entity outside of CUDA")
        XCUDA_ERROR(CUDA_ERROR_INVALID_CLUSTER_SIZE,
                    "a kernel launch error has occurred due to cluster misconfiguration")
#if CUDA_VERSION >= 12040
        XCUDA_ERROR(CUDA_ERROR_FUNCTION_NOT_LOADED,
                    "the function handle is not loaded when calling an API that requires a loaded function")
        XCUDA_ERROR(CUDA_ERROR_INVALID_RESOURCE_TYPE,
                    "one or more resources passed in are not valid resource types for the operation")
        XCUDA_ERROR(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
                    "one or more resources are insufficient or non-applicable for the operation")
#endif
#if CUDA_VERSION >= 12060
        XCUDA_ERROR(CUDA_ERROR_KEY_ROTATION, "an error happened during the key rotation sequence")
#endif
        XCUDA_ERROR(CUDA_ERROR_UNKNOWN, "unknown error")
        default: return {nullptr, nullptr};
    }
}

#undef XCUDA_ERROR

}  // namespace

// An unknown code is CUDA_ERROR_INVALID_VALUE with *pStr set to NULL, as the real driver answers.
CUresult cuGetErrorName(CUresult error, const char** pStr) {
    if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *pStr = error_text(error).name;
    return *pStr != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char** pStr) {
    if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *pStr = error_text(error).message;
    return *pStr != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

}  // namespace xcuda::cpu::driver
