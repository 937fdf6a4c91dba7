// Per-kernel resource usage read from ptxas' verbose output (-Xptxas=-v), so a machine with
// no GPU can still show registers, spills and memory per kernel.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace xcuda::rt {

struct KernelResources {
    std::string arch;  // "sm_90", as ptxas names it
    int registers = 0;
    int barriers = 0;
    std::size_t stack_frame_bytes = 0;  // local memory per thread ("stack frame")
    std::size_t spill_store_bytes = 0;
    std::size_t spill_load_bytes = 0;
    std::size_t cumulative_stack_bytes = 0;  // stack including callees
    std::size_t shared_bytes = 0;            // static shared memory ("smem")
    std::size_t constant_bytes = 0;          // sum of the kernel's cmem[N] banks (0 when ptxas omits them)
};

// Kernels keyed by their (mangled) entry name. A pure function of its input: lines it does not
// recognise are skipped, so any text (including truncated or hostile logs) is safe to pass.
std::map<std::string, KernelResources> parse_ptxas_info(std::string_view log);

}  // namespace xcuda::rt
