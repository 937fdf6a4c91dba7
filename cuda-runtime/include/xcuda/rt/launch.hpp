// Kernel launch, validated against the device's limits before the driver sees it. Every launch
// of the library (plain, timed, profiled, benchmarked) goes through launch_validated().
#pragma once

#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/module.hpp>

#include <cuda.h>

#include <cstddef>
#include <optional>

namespace xcuda::rt {

// What a launch asks for beyond grid, block and shared memory: cuLaunchKernelEx attributes.
struct LaunchOptions {
    // CU_LAUNCH_ATTRIBUTE_COOPERATIVE: all blocks resident at once, so the kernel may
    // synchronise the whole grid (cooperative_groups::this_grid().sync()).
    bool cooperative = false;
    // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: thread block clusters of this shape (sm_90+).
    std::optional<Dim3> cluster;

    bool any() const noexcept { return cooperative || cluster.has_value(); }
};

// Throws LaunchError (not sticky) naming the limit when grid/block/shared memory/options exceed
// what the current context's device or the function allow. Dynamic shared memory above the
// kernel's current limit (48 KiB by default) raises that limit (cuFuncSetAttribute) up to the
// device's opt-in maximum less the kernel's static shared memory; beyond it, LaunchError names
// that maximum.
void validate_launch(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes,
                     const LaunchOptions& options = {});

// Validates, then launch_validated. `params` as for cuLaunchKernel: one pointer per kernel
// parameter, pointing at the argument's value. Does not wait.
void launch(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes, CUstream stream, void** params,
            const LaunchOptions& options = {});

// The launch without validate_launch, for a caller that validated this function (in this
// context) with this configuration before: a launch loop's fixed configuration. Plain launches
// take cuLaunchKernel, launches with options cuLaunchKernelEx with their attributes.
void launch_validated(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes, CUstream stream,
                      void** params, const LaunchOptions& options = {});

}  // namespace xcuda::rt
