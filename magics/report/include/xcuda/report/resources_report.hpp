// `%%cuda --resources`: per-kernel resource usage as ptxas reports it, with theoretical
// occupancy and advice from the architecture's limits. Needs no GPU.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "xcuda/report/occupancy.hpp"
#include "xcuda/report/rich.hpp"

namespace xcuda::report {

struct KernelResources {
    std::string name;   // as the user wrote it (demangled)
    std::string arch;   // "sm_90"; selects the limits when none are given
    int registers = 0;  // per thread
    std::size_t spill_store_bytes = 0;
    std::size_t spill_load_bytes = 0;
    std::size_t stack_bytes = 0;     // local memory per thread (stack frame)
    std::size_t shared_bytes = 0;    // static shared memory per block
    std::size_t constant_bytes = 0;  // cmem[0] bytes the kernel uses
};

struct ResourcesOptions {
    // The device's limits when a GPU is present; otherwise taken from each kernel's arch.
    std::optional<DeviceLimits> limits;
    int block_size = 256;            // the launch the occupancy column describes
    std::size_t dynamic_shared = 0;  // per block, bytes
};

// A table (kernel, arch, registers, spills, stack, shared, constant, occupancy at
// block_size, limited by, best block size) and one advice line per kernel below it.
// A kernel whose arch is not in the table gets "?" for occupancy and a line saying why.
Rich resources_report(const std::vector<KernelResources>& kernels, const ResourcesOptions& options = {});

}  // namespace xcuda::report
