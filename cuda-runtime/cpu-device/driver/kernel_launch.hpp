// A kernel launch as the driver checks it, queues it and runs it: the same object for
// cuLaunchKernel(Ex), a captured kernel node and each replay of that node by cuGraphLaunch.
#pragma once

#include "driver/kernel_objects.hpp"
#include "driver/stream_queues.hpp"

#include <xcuda/cpu/finding.hpp>

#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

namespace xcuda::cpu::driver::detail {

struct KernelLaunch : LaunchShape {
    std::shared_ptr<Function> function;
    std::vector<std::byte> params;                 // packed at the kernel's parameter offsets
    std::vector<ArgumentExtent> argument_extents;  // LaunchArgumentExtents of the launching thread
};

// What cuLaunchKernel(Ex) and a kernel node's parameters describe.
struct LaunchRequest {
    CUfunction function = nullptr;
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned shared_bytes = 0;
    void** kernel_params = nullptr;
    void** extra = nullptr;
    const CUlaunchAttribute* attributes = nullptr;
    unsigned attribute_count = 0;
};

// The request of `f` on the grid, block and dynamic shared bytes of a CUlaunchConfig or a
// CUDA_KERNEL_NODE_PARAMS, which name those fields alike.
template <class DriverParams>
LaunchRequest launch_request(CUfunction f, const DriverParams& p) {
    LaunchRequest r;
    r.function = f;
    r.grid[0] = p.gridDimX, r.grid[1] = p.gridDimY, r.grid[2] = p.gridDimZ;
    r.block[0] = p.blockDimX, r.block[1] = p.blockDimY, r.block[2] = p.blockDimZ;
    r.shared_bytes = p.sharedMemBytes;
    return r;
}

// Checks `request` as the real driver does (handles, dimensions, the kernel's limits, shared
// memory, clusters, cooperative grids that cannot all be resident) and packs its parameters.
CUresult prepare_launch(const LaunchRequest& request, KernelLaunch& launch);

// Runs `launch` on the engine with the current settings; its profile, when profiling, is kept for
// take_profiles(). Never throws: an engine that does becomes a failed launch.
Outcome run_kernel(const KernelLaunch& launch, const std::atomic<bool>& cancel);

}  // namespace xcuda::cpu::driver::detail
