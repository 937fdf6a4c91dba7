// The CUlaunchConfig of a launch shape, for cuLaunchKernelEx and the cluster occupancy query.
#pragma once

#include <xcuda/rt/dim3.hpp>

#include <cuda.h>

#include <cstddef>

namespace xcuda::rt::detail {

inline CUlaunchConfig launch_config(Dim3 grid, Dim3 block, std::size_t shared_bytes, CUstream stream,
                                    CUlaunchAttribute* attrs, unsigned attr_count) {
    CUlaunchConfig config{};
    config.gridDimX = grid.x;
    config.gridDimY = grid.y;
    config.gridDimZ = grid.z;
    config.blockDimX = block.x;
    config.blockDimY = block.y;
    config.blockDimZ = block.z;
    config.sharedMemBytes = static_cast<unsigned>(shared_bytes);
    config.hStream = stream;
    config.attrs = attrs;
    config.numAttrs = attr_count;
    return config;
}

}  // namespace xcuda::rt::detail
