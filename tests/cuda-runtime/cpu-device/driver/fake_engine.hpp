// A test double of the execution engine (exec/engine.hpp's Module::load and run_launch), linked
// into the driver's tests only: the driver layer is tested for what it does around a launch
// (ordering, errors, cancelling, capture), with kernels whose behaviour the tests choose.
//
// A module is text, one declaration a line ('#' starts a comment):
//   kernel NAME [params=8,4] [regs=N] [shared=BYTES] [local=BYTES] [maxntid=N] [reqntid=X,Y,Z]
//               [cluster=X,Y,Z] [explicit_cluster] [max_cluster_rank=N] [syncs_grid]
//   global NAME BYTES
// Anything else fails to load with "line N: ..." (CUDA_ERROR_INVALID_PTX and that JIT log).
// What a kernel does when launched depends on its name's prefix:
//   noop    nothing
//   append  appends its first parameter (a u32) to appended()
//   store   writes its second parameter (a u32) at its first (a u64 device address)
//   sleep   sleeps its first parameter (a u32) milliseconds, or until cancelled
//   gate    waits until open_gate(its first parameter, a u32), or until cancelled
//   fail    fails with CUDA_ERROR_ILLEGAL_ADDRESS and a Failure naming the kernel
//   throw   throws std::runtime_error (an engine bug the driver must contain)
#pragma once

#include "exec/engine.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace xcuda::cpu::fake_engine {

struct Launched {
    std::string kernel;
    Dim3 grid, block, cluster;
    unsigned dynamic_shared_bytes = 0;
    bool cooperative = false;
    std::vector<std::byte> params;
    RunOptions options;
};

// Every launch run so far, in the order they started.
std::vector<Launched> launches();
std::vector<std::uint32_t> appended();
void open_gate(std::uint32_t gate);
// Forgets launches, appended values and open gates.
void reset();

}  // namespace xcuda::cpu::fake_engine
