#include "driver/occupancy.hpp"

#include "exec/emulated_device.hpp"

#include <xcuda/cpu/cpu_device.hpp>

#include <cuda_occupancy.h>

#include <algorithm>

namespace xcuda::cpu::driver::detail {
using namespace emulated;  // the device this driver describes (exec/emulated_device.hpp)
namespace {

cudaOccDeviceProp device_properties() {
    cudaOccDeviceProp p;
    p.computeMajor = emulated_major;
    p.computeMinor = emulated_minor;
    p.maxThreadsPerBlock = max_threads_per_block;
    p.maxThreadsPerMultiprocessor = max_threads_per_sm;
    p.regsPerBlock = registers_per_block;
    p.regsPerMultiprocessor = registers_per_sm;
    p.warpSize = warp_size;
    p.sharedMemPerBlock = shared_per_block;
    p.sharedMemPerMultiprocessor = shared_per_sm;
    p.numSms = sm_count;
    p.sharedMemPerBlockOptin = shared_per_block_optin;
    p.reservedSharedMemPerBlock = reserved_shared_per_block;
    return p;
}

cudaOccFuncAttributes function_attributes(const Function& function, const FunctionAttributes& settable,
                                          int thread_limit) {
    cudaOccFuncAttributes a;
    a.maxThreadsPerBlock = thread_limit;
    a.numRegs = effective_registers(function.info());
    a.sharedSizeBytes = function.info().static_shared_bytes;
    a.partitionedGCConfig = PARTITIONED_GC_OFF;
    // The driver knows each function's opt-in limit (cuFuncSetAttribute), so it always applies it.
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    a.maxDynamicSharedSizeBytes = static_cast<std::size_t>(settable.max_dynamic_shared);
    a.numBlockBarriers = 1;
    return a;
}

cudaOccDeviceState device_state(const FunctionAttributes& settable) {
    cudaOccDeviceState s;
    s.carveoutConfig = settable.carveout;
    return s;
}

CUresult to_result(cudaOccError e) {
    switch (e) {
        case CUDA_OCC_SUCCESS: return CUDA_SUCCESS;
        case CUDA_OCC_ERROR_INVALID_INPUT: return CUDA_ERROR_INVALID_VALUE;
        default: return CUDA_ERROR_UNKNOWN;
    }
}

}  // namespace

int effective_registers(const KernelInfo& info) { return std::clamp(info.num_regs, 0, max_registers_per_thread); }

int register_limited_threads(int registers_per_thread) {
    const int per_warp = (registers_per_thread * warp_size + 255) / 256 * 256;
    if (per_warp == 0) return max_threads_per_block;
    // Warps are counted in whole sub-partitions (4), as the hardware checks a block's registers.
    const int warps = registers_per_block / per_warp / 4 * 4;
    return std::min(max_threads_per_block, warps * warp_size);
}

CUresult max_active_blocks(const Function& function, int block_size, std::size_t dynamic_shared, int& blocks) {
    if (block_size <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (block_size > function.max_threads_per_block()) {
        blocks = 0;
        return CUDA_SUCCESS;
    }
    const FunctionAttributes settable = function.attributes();
    const cudaOccDeviceProp props = device_properties();
    const cudaOccFuncAttributes attrs = function_attributes(function, settable, function.max_threads_per_block());
    const cudaOccDeviceState state = device_state(settable);
    cudaOccResult result{};
    const CUresult rc =
        to_result(cudaOccMaxActiveBlocksPerMultiprocessor(&result, &props, &attrs, &state, block_size, dynamic_shared));
    if (rc == CUDA_SUCCESS) blocks = result.activeBlocksPerMultiprocessor;
    return rc;
}

CUresult max_potential_block_size(const Function& function, CUoccupancyB2DSize shared_of_block,
                                  std::size_t dynamic_shared, int block_limit, int& min_grid, int& block) {
    if (block_limit < 0) return CUDA_ERROR_INVALID_VALUE;
    const FunctionAttributes settable = function.attributes();
    const int limit =
        block_limit == 0 ? function.max_threads_per_block() : std::min(block_limit, function.max_threads_per_block());
    const cudaOccDeviceProp props = device_properties();
    const cudaOccFuncAttributes attrs = function_attributes(function, settable, limit);
    const cudaOccDeviceState state = device_state(settable);
    cudaOccError e;
    if (shared_of_block != nullptr) {
        e = cudaOccMaxPotentialOccupancyBlockSizeVariableSMem(&min_grid, &block, &props, &attrs, &state,
                                                              [&](int size) { return shared_of_block(size); });
    } else {
        e = cudaOccMaxPotentialOccupancyBlockSize(&min_grid, &block, &props, &attrs, &state, dynamic_shared);
    }
    return to_result(e);
}

int max_active_clusters(int blocks_per_sm, unsigned cluster_blocks) {
    if (blocks_per_sm <= 0 || cluster_blocks == 0) return 0;
    int clusters = 0;
    for (int sms : gpc_sm_counts) clusters += blocks_per_sm * sms / static_cast<int>(cluster_blocks);
    return clusters;
}

}  // namespace xcuda::cpu::driver::detail
