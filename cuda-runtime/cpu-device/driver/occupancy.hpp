// Occupancy of a kernel on the emulated sm_90, computed by CUDA's own occupancy calculator
// (cuda_occupancy.h, the toolkit's rendering of the rules the driver applies): warps per SM,
// registers allocated per warp in units of 256 within four sub-partitions, shared memory in
// 128-byte units plus the 1 KiB the driver reserves per block, the carveout the kernel prefers,
// blocks per SM. Clusters: a cluster's blocks share one GPC (exec/emulated_device.hpp).
#pragma once

#include "driver/kernel_objects.hpp"

#include <cuda.h>

#include <cstddef>

namespace xcuda::cpu::driver::detail {

// The register count the limits use: ptxas never assigns more than 255, and the engine's estimate
// (without ptxas's count) is capped there too.
int effective_registers(const KernelInfo& info);
// The largest block (a multiple of 128 threads, up to 1024) whose registers fit in one SM.
int register_limited_threads(int registers_per_thread);

// Blocks of `block_size` threads resident at once on one SM (0 when none fit).
CUresult max_active_blocks(const Function& function, int block_size, std::size_t dynamic_shared, int& blocks);
// cuOccupancyMaxPotentialBlockSize; `shared_of_block` (may be nullptr) maps a block size to its
// dynamic shared memory, replacing `dynamic_shared`; `block_limit` 0 is no limit.
CUresult max_potential_block_size(const Function& function, CUoccupancyB2DSize shared_of_block,
                                  std::size_t dynamic_shared, int block_limit, int& min_grid, int& block);
// Clusters of `cluster_blocks` blocks resident at once, with `blocks_per_sm` blocks per SM.
int max_active_clusters(int blocks_per_sm, unsigned cluster_blocks);

}  // namespace xcuda::cpu::driver::detail
