// cuInit, the driver's version and the one emulated device: its name, memory and attributes.
#include "driver/context_state.hpp"
#include "exec/emulated_device.hpp"

#include <xcuda/cpu/cpu_device.hpp>

#include <algorithm>
#include <cstring>

namespace xcuda::cpu::driver {
using namespace emulated;  // the device this driver describes (exec/emulated_device.hpp)
namespace {

using namespace detail;

CUresult check_device(CUdevice dev) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

// Attributes of the emulated H100; every other attribute of the enumeration reads 0: a feature
// the CPU device does not have (textures, surfaces, managed memory, IPC, ...).
int attribute_value(CUdevice_attribute a) {
    switch (a) {
        case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return max_threads_per_block;
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return static_cast<int>(max_block_dims[0]);
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return static_cast<int>(max_block_dims[1]);
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return static_cast<int>(max_block_dims[2]);
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return static_cast<int>(max_grid_dims[0]);
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return static_cast<int>(max_grid_dims[1]);
        case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return static_cast<int>(max_grid_dims[2]);
        case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return shared_per_block;
        case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return constant_bytes;
        case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return warp_size;
        case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 2147483647;
        case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return registers_per_block;
        case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return clock_khz;
        case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: return 1;
        case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return sm_count;
        case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: return 0;
        case CU_DEVICE_ATTRIBUTE_INTEGRATED: return 0;
        case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 0;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: return CU_COMPUTEMODE_DEFAULT;
        case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
        case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
        case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
        case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: return 0;
        case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return memory_clock_khz;
        case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return memory_bus_width_bits;
        case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return l2_cache_bytes;
        case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return max_threads_per_sm;
        case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 1;  // copies run on their stream's worker
        case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return emulated_major;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return emulated_minor;
        case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
        case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: return 1;
        case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return shared_per_sm;
        case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return registers_per_sm;
        case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 0;
        case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: return 2;
        case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: return 1;
        case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
        case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return shared_per_block_optin;
        case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return max_blocks_per_sm;
        case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: return reserved_shared_per_block;
        case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: return 1;
        case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: return 1;
#if CUDA_VERSION >= 12020
        case CU_DEVICE_ATTRIBUTE_NUMA_ID: return -1;  // CU_DEVICE_NUMA_CONFIG_NONE
#endif
#if CUDA_VERSION >= 12040
        case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: return -1;
#endif
        default: return 0;
    }
}

}  // namespace

CUresult cuInit(unsigned int flags) { return initialize(flags); }

CUresult cuDriverGetVersion(int* version) {
    if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *version = driver_version;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
    if (CUresult rc = check_device(dev); rc != CUDA_SUCCESS) return rc;
    if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    const std::size_t n = std::min(std::strlen(device_name), static_cast<std::size_t>(len) - 1);
    std::memcpy(name, device_name, n);
    name[n] = '\0';
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice dev) {
    if (CUresult rc = check_device(dev); rc != CUDA_SUCCESS) return rc;
    if (value == nullptr || attribute <= 0 || attribute >= CU_DEVICE_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
    *value = attribute_value(attribute);
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t* bytes, CUdevice dev) {
    if (CUresult rc = check_device(dev); rc != CUDA_SUCCESS) return rc;
    if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *bytes = device_memory().capacity();
    return CUDA_SUCCESS;
}

}  // namespace xcuda::cpu::driver
