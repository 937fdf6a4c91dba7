// The CPU device's execution engine as the driver entry points see it: load a PTX module, look
// up its kernels and variables, run one launch to its end. Streams, events, ordering and error
// state are the driver layer's (driver/); this runs a grid, synchronously, on the worker pool.
#pragma once

#include "check/device_memory.hpp"

#include <xcuda/cpu/argument_extents.hpp>
#include <xcuda/cpu/finding.hpp>
#include <xcuda/cpu/access_trace.hpp>
#include <xcuda/cpu/line_profile.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::cpu {

class Program;  // exec/decode/program.hpp: the decoded module

// A kernel parameter as the PTX declares it: where it goes in the parameter buffer.
struct ParamInfo {
    std::size_t offset = 0, size = 0, align = 1;
};

// What cuFuncGetAttribute and the occupancy calls need to know of a kernel.
struct KernelInfo {
    std::string name;  // as in the PTX (mangled for C++ kernels)
    std::vector<ParamInfo> params;
    std::size_t param_bytes = 0;
    std::size_t static_shared_bytes = 0;  // .shared declared in the kernel and the functions it calls
    std::size_t local_bytes = 0;          // per thread (.local: depots and arrays)
    std::size_t const_bytes = 0;          // the module's .const variables
    int num_regs = 0;                     // ptxas's count when the loader was given one, else an estimate
    int max_threads_per_block = 1024;     // .maxntid / .reqntid product, else the device's 1024
    Dim3 reqntid{0, 0, 0};                // .reqntid (0s: none)
    Dim3 cluster_dims{0, 0, 0};           // .reqnctapercluster (0s: none)
    bool explicit_cluster = false;        // .explicitcluster
    unsigned max_cluster_rank = 0;        // .maxclusterrank
    int ptx_version = 0;                  // .version 9.0 -> 90
    int binary_version = 90;              // the emulated sm_90
    int entry_index = -1;                 // the engine's own reference to the decoded kernel
    // It, or a function it calls, synchronises the whole grid (cooperative_groups' grid.sync()
    // reads the grid workspace): as a GPU's driver does for such a kernel, every launch of it gets
    // the workspace and all of its blocks resident at once (a cooperative launch).
    bool syncs_grid = false;
};

class ModuleLoadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;  // what(): the JIT error log text ("line 12: ...")
};

// A loaded module: parsed, decoded, its .global/.const variables placed in device memory (and
// initialised). Unloading frees them.
class Module {
public:
    // `register_counts`: ptxas's registers per kernel (from the CUBIN of the same compile), when known.
    static std::shared_ptr<Module> load(std::string_view ptx, DeviceMemory& memory,
                                        const std::map<std::string, int>& register_counts = {});
    ~Module();
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    // nullptr when the module has no kernel (.entry) of that name.
    const KernelInfo* kernel(std::string_view name) const;
    std::vector<const KernelInfo*> kernels() const;

    struct Symbol {
        std::uint64_t address = 0;
        std::size_t bytes = 0;
    };
    // A .global or .const variable; nullopt when there is none of that name.
    std::optional<Symbol> global(std::string_view name) const;

    const Program& program() const { return *program_; }

private:
    Module() = default;
    DeviceMemory* memory_ = nullptr;
    std::unique_ptr<Program> program_;
    std::vector<KernelInfo> kernels_;
    std::map<std::string, Symbol, std::less<>> globals_;
    std::vector<std::uint64_t> owned_;  // allocations to free on unload
};

// The grid a launch runs: what the driver checks once and the engine runs by, so that a launch
// the driver holds (a queued one, a graph's node) passes it on whole.
struct LaunchShape {
    Dim3 grid, block;
    Dim3 cluster{1, 1, 1};  // blocks per cluster (1,1,1: no clusters)
    unsigned dynamic_shared_bytes = 0;
    bool cooperative = false;
};

struct LaunchSpec : LaunchShape {
    std::shared_ptr<const Module> module;
    const KernelInfo* kernel = nullptr;
    std::vector<std::byte> params;  // packed as kernel->params says
    DeviceMemory* memory = nullptr;
    unsigned depth = 0;  // 0: launched from the host; a grid launched from the device is its parent's + 1
    std::vector<ArgumentExtent> argument_extents;  // the arrays passed, as their caller knows them
};

struct RunOptions {
    bool checks = true;          // every access checked, races, divergence (else only the arena's bounds)
    bool deterministic = false;  // one worker, blocks in order
    unsigned workers = 0;        // 0: one per core
    bool profile = false;        // fill LaunchOutcome::profile
    bool trace = false;          // fill LaunchOutcome::trace (one worker, every access on the slow path)
    std::size_t printf_fifo_bytes = std::size_t{64} << 20;
};

struct LaunchOutcome {
    CUresult status = CUDA_SUCCESS;
    std::shared_ptr<const Failure> failure;  // when status is an error (not when cancelled)
    bool cancelled = false;                  // `cancel` became true before the grid finished
    std::shared_ptr<const LineProfile> profile;
    // The grids it launched from the device (and theirs), in the order they ran.
    std::vector<std::shared_ptr<const LineProfile>> child_profiles;
    std::shared_ptr<const AccessTrace> trace;
};

// Runs every block of `spec` and returns when all are done, one has failed (the others stop
// soon after) or `cancel` became true; then the grids its threads launched from the device
// (device_runtime.hpp). Device printf output is written to fd 1 before it returns.
LaunchOutcome run_launch(const LaunchSpec& spec, const RunOptions& options, const std::atomic<bool>& cancel);

}  // namespace xcuda::cpu
