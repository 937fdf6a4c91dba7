// Kernel launch, validated against the device's limits before the driver sees it.
#pragma once

#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/module.hpp>

#include <cuda.h>

#include <cstddef>

namespace xcuda::rt {

// Throws LaunchError (not sticky) naming the limit when grid/block/shared memory exceed what
// the current context's device or the function allow; otherwise does nothing.
void validate_launch(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes);

// Validates, then cuLaunchKernel in the current context. `params` as for cuLaunchKernel:
// one pointer per kernel parameter, pointing at the argument's value. Does not wait.
void launch(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes,
            CUstream stream, void** params);

// cuLaunchKernel without validate_launch, for a caller that validated this function (in this
// context) with this grid, block and shared size before: a launch loop's fixed configuration.
void launch_validated(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes,
                      CUstream stream, void** params);

}  // namespace xcuda::rt
