// Modules loaded into the current context, their functions, attributes and occupancy.
#pragma once

#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/handle.hpp>

#include <cuda.h>

#include <cstddef>
#include <map>
#include <string>
#include <vector>
#include <utility>
#include <string_view>

namespace xcuda::rt {

struct FunctionAttributes {
    int num_regs = 0;
    std::size_t shared_bytes = 0;  // static
    std::size_t local_bytes = 0;   // per thread
    std::size_t const_bytes = 0;
    int max_threads_per_block = 0;  // limited by this kernel's registers
    int max_dynamic_shared_bytes = 0;
    int ptx_version = 0;     // e.g. 90
    int binary_version = 0;  // e.g. 90
};

struct BlockSizeSuggestion {
    int min_grid_size = 0;  // blocks needed to fill the device
    int block_size = 0;
};

// A kernel of a loaded Module. Does not own anything: valid while its Module lives.
class Function {
public:
    // Reads the attributes every launch checks, once. `syncs_grid`: the kernel synchronises its
    // whole grid (grid_sync_scan.hpp), so every launch of it is cooperative.
    Function(CUfunction handle, std::string name, bool syncs_grid = false);
    CUfunction handle() const noexcept { return handle_; }
    const std::string& name() const noexcept { return name_; }  // the mangled name
    bool syncs_grid() const noexcept { return syncs_grid_; }

    FunctionAttributes attributes() const;
    int attribute(CUfunction_attribute attribute) const;
    // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (fixed at load time), without a driver call.
    int max_threads_per_block() const noexcept { return max_threads_per_block_; }
    // cuFuncSetAttribute: the settable attributes (dynamic shared memory, carveout, cluster
    // shape and policy). Throws DriverError naming the attribute and value.
    void set_attribute(CUfunction_attribute attribute, int value) const;
    // Active blocks per SM for this block size and dynamic shared memory.
    int max_active_blocks_per_sm(int block_size, std::size_t dynamic_shared_bytes = 0) const;
    // cuOccupancyMaxPotentialBlockSize with a constant dynamic shared size; block_size_limit 0 = none.
    BlockSizeSuggestion suggested_block_size(std::size_t dynamic_shared_bytes = 0, int block_size_limit = 0) const;
    // cuOccupancyMaxActiveClusters: clusters of `cluster` blocks that can run at once with this
    // grid, block and dynamic shared memory (0 when such a cluster cannot be scheduled at all).
    // A driver refusal (an invalid cluster size) is thrown as DriverError.
    int max_active_clusters(Dim3 grid, Dim3 block, std::size_t dynamic_shared_bytes, Dim3 cluster) const;

private:
    CUfunction handle_;
    std::string name_;
    int max_threads_per_block_;
    bool syncs_grid_;
};

// A __device__/__constant__ variable in a loaded module: where it lives and how big it is.
struct DeviceSymbol {
    CUdeviceptr ptr = 0;
    std::size_t bytes = 0;
};

namespace detail {
struct ModuleUnload : BackendRelease {
    void operator()(CUmodule module) const noexcept;
};
}  // namespace detail

// A loaded module (RAII: unloaded on destruction), move-only. Loads into the calling thread's
// current context: make a PrimaryContext current first, and keep it alive longer than this.
class Module {
public:
    // Throws DriverError with the JIT error log appended when loading fails.
    static Module from_cubin(std::string_view cubin);
    static Module from_ptx(std::string_view ptx);
    // What the current device runs of one compile: its CUBIN on a GPU (its PTX when there is no
    // CUBIN, for the driver to JIT), its PTX on the CPU device (told ptxas's register counts by the
    // CUBIN, so attributes and occupancy match the GPU's).
    static Module from_image(std::string_view ptx, std::string_view cubin);

    // Throws DriverError(NOT_FOUND) naming the kernel when it is not in the module.
    Function function(const std::string& mangled_name) const;
    // cuModuleGetGlobal. Throws DriverError(NOT_FOUND) naming the variable when it is not there.
    DeviceSymbol global(const std::string& lowered_name) const;
    CUmodule handle() const noexcept { return module_.get(); }

private:
    Module() = default;
    static Module load(std::string_view image, bool nul_terminate, const std::map<std::string, int>* registers);
    detail::Handle<CUmodule, detail::ModuleUnload> module_;
    std::vector<std::string> grid_syncing_;  // kernels that synchronise their grid (from the PTX, when loaded from it)
};

}  // namespace xcuda::rt
