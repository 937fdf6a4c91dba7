// Which kernels of a PTX module synchronise their whole grid (cooperative_groups'
// this_grid().sync()): a GPU runs such a kernel only in a cooperative launch (launched plainly,
// the H100 fails it with CUDA_ERROR_LAUNCH_FAILED and the context is lost:
// bench/probes/grid_sync_plain.py), so the runtime launches them cooperatively, as the CPU
// device runs them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace xcuda::rt {

// The .entry names (mangled) whose code, or a function it calls, reads the grid workspace.
std::vector<std::string> kernels_that_sync_the_grid(std::string_view ptx);

}  // namespace xcuda::rt
