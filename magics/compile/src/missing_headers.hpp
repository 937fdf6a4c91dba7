// What to install when a cell includes a CUDA header the kernel's environment lacks: a Python
// user with NVIDIA's NVRTC wheel alone compiles plain kernels, and <cuda/std/cmath> fails with
// NVRTC's "could not open source file" and no word of the wheel that has it.
#pragma once

#include "xcuda/compile/diagnostics.hpp"

#include <string>
#include <vector>

namespace xcuda::compile::detail {

// Which of xcuda's pieces holds a header NVRTC could not open: "cccl" for <cuda/...>, <cub/...>,
// <thrust/...>, <nv/...>; "headers" for the runtime's (cuda_fp16.h, cooperative_groups.h, ...);
// "" for any other (the user's own).
std::string piece_for_header(const std::string& name);

// A line naming the pip package for each missing header of `ds` whose piece was not found
// (has_cccl / has_runtime_headers: what the loaded NVRTC's place offers), "" when none is.
std::string missing_header_hint(const std::vector<Diagnostic>& ds, bool has_cccl, bool has_runtime_headers,
                                int cuda_major);

}  // namespace xcuda::compile::detail
