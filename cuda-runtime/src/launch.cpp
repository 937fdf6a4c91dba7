#include "driver_api.hpp"
#include "launch_config.hpp"

#include <xcuda/rt/device.hpp>
#include <xcuda/rt/launch.hpp>

#include <memory>
#include <string>

namespace xcuda::rt {
namespace {

void check_dims(const char* what, Dim3 dims, Dim3 max) {
    const char* axis[] = {"x", "y", "z"};
    const unsigned v[] = {dims.x, dims.y, dims.z};
    const unsigned m[] = {max.x, max.y, max.z};
    for (int i = 0; i < 3; ++i) {
        if (v[i] == 0) {
            throw LaunchError("launch", std::string(what) + " " + dims.str() + " has a zero " + axis[i] +
                                            " dimension; every dimension must be at least 1");
        }
        if (v[i] > m[i]) {
            throw LaunchError("launch", std::string(what) + " " + dims.str() + " has " + axis[i] + " = " +
                                            std::to_string(v[i]) + "; this device allows at most " +
                                            std::to_string(m[i]) + " in " + axis[i]);
        }
    }
}

// The current context's device, remembered per thread: launches are the hot path and a thread
// rarely switches contexts.
const DeviceProperties& current_device_properties() {
    thread_local CUcontext cached_context = nullptr;
    thread_local std::unique_ptr<Device> cached_device;
    const auto& d = detail::driver();
    CUcontext ctx = nullptr;
    detail::call("cuCtxGetCurrent", d.cuCtxGetCurrent, &ctx);
    if (ctx == nullptr) {
        throw LaunchError("launch",
                          "no CUDA context is current on this thread: retain a PrimaryContext and call "
                          "make_current() before launching");
    }
    if (ctx != cached_context || !cached_device) {
        CUdevice dev = 0;
        detail::call("cuCtxGetDevice", d.cuCtxGetDevice, &dev);
        cached_device = std::make_unique<Device>(detail::ordinal_of(detail::current_backend(), dev));
        cached_context = ctx;
    }
    return cached_device->properties();
}

}  // namespace

namespace {

std::string bytes_text(std::size_t bytes) { return std::to_string(bytes) + " bytes"; }

// Dynamic shared memory above the kernel's current limit: raise the limit while the device's
// opt-in maximum allows (what every CUDA sample does with cudaFuncSetAttribute), else refuse.
void check_shared_memory(const Function& function, const DeviceProperties& p, std::size_t shared_bytes) {
    const int dyn_max = function.attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    if (shared_bytes <= static_cast<std::size_t>(dyn_max)) return;
    const auto static_bytes = static_cast<std::size_t>(function.attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
    const auto optin = static_cast<std::size_t>(p.max_shared_per_block_optin);
    const std::size_t most = optin > static_bytes ? optin - static_bytes : 0;
    if (shared_bytes > most) {
        throw LaunchError("launch", "dynamic shared memory of " + bytes_text(shared_bytes) + " is more than kernel " +
                                        function.name() + " can have on this device: at most " + bytes_text(most) +
                                        " (the device's opt-in maximum of " + bytes_text(optin) +
                                        " per block, less the " + bytes_text(static_bytes) +
                                        " of static shared memory the kernel declares); pass "
                                        "shared_mem <= " +
                                        std::to_string(most));
    }
    function.set_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(shared_bytes));
}

// Every block of a cooperative grid must be resident at once, or grid.sync() never returns.
// `what`: how the refused launch is named ("cooperative launch of K").
void check_cooperative(const Function& function, const DeviceProperties& p, Dim3 grid, Dim3 block,
                       std::size_t shared_bytes, const std::string& what) {
    if (!p.cooperative_launch) {
        throw LaunchError("launch", "this device (" + p.name + ") does not support cooperative launches; launch " +
                                        function.name() + " without cooperative=True");
    }
    const int per_sm = function.max_active_blocks_per_sm(static_cast<int>(block.volume()), shared_bytes);
    const unsigned long long most = 1ULL * static_cast<unsigned>(per_sm) * static_cast<unsigned>(p.sm_count);
    if (grid.volume() > most) {
        throw LaunchError("launch", what + ": grid " + grid.str() + " has " + std::to_string(grid.volume()) +
                                        " blocks but at most " + std::to_string(most) + " can be resident at once (" +
                                        std::to_string(per_sm) + " per SM x " + std::to_string(p.sm_count) +
                                        " SMs with block " + block.str() + " and " + bytes_text(shared_bytes) +
                                        " of dynamic shared memory); use a grid of at most " + std::to_string(most) +
                                        " blocks (a grid-stride loop covers the rest)");
    }
}

std::string grid_sync_reason(const Function& function) {
    return "kernel " + function.name() +
           " synchronises its whole grid (cooperative_groups::this_grid().sync()), so every block must be resident "
           "at once";
}

void check_cluster(const Function& function, const DeviceProperties& p, Dim3 grid, Dim3 block, std::size_t shared_bytes,
                   Dim3 cluster) {
    if (!p.cluster_launch) {
        throw LaunchError("launch", "cluster=" + cluster.str() +
                                        " needs thread block clusters (compute capability "
                                        "9.0 or newer); this device (" +
                                        p.name + ") is " + p.arch + ": launch " + function.name() +
                                        " without cluster=");
    }
    const char* axis[] = {"x", "y", "z"};
    const unsigned g[] = {grid.x, grid.y, grid.z};
    const unsigned c[] = {cluster.x, cluster.y, cluster.z};
    for (int i = 0; i < 3; ++i) {
        if (c[i] == 0 || g[i] % c[i] != 0) {
            const unsigned up = c[i] == 0 ? 0 : (g[i] + c[i] - 1) / c[i] * c[i];
            throw LaunchError("launch", "grid " + grid.str() + " is not a whole number of clusters " + cluster.str() +
                                            ": " + axis[i] + " = " + std::to_string(g[i]) + " is not a multiple of " +
                                            std::to_string(c[i]) + "; use a grid of " + std::to_string(up) + " in " +
                                            axis[i]);
        }
    }
    const Dim3 required(static_cast<unsigned>(function.attribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH)),
                        static_cast<unsigned>(function.attribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT)),
                        static_cast<unsigned>(function.attribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH)));
    if (required.x != 0 && !(required == cluster)) {
        throw LaunchError("launch", "kernel " + function.name() + " requires clusters of " + required.str() +
                                        " (__cluster_dims__ or its required_cluster_* attributes); launch it with "
                                        "cluster=" +
                                        required.str() + " or without cluster=");
    }
    int clusters = 0;
    try {
        clusters = function.max_active_clusters(grid, block, shared_bytes, cluster);
    } catch (const ContextLostError&) {
        throw;
    } catch (const DriverError& e) {
        throw LaunchError("launch", "clusters " + cluster.str() + " of block " + block.str() +
                                        " are refused by the "
                                        "driver (" +
                                        e.name() + ": " + e.driver_message() +
                                        "); portable clusters "
                                        "have at most 8 blocks, up to 16 once the kernel's "
                                        "non_portable_cluster_size_allowed attribute is 1");
    }
    if (clusters == 0) {
        throw LaunchError("launch",
                          "kernel " + function.name() + " cannot run clusters of " + std::to_string(cluster.volume()) +
                              " blocks " + cluster.str() + " with block " + block.str() + " and " +
                              bytes_text(shared_bytes) +
                              " of dynamic shared memory on this "
                              "device (cuOccupancyMaxActiveClusters: 0); use smaller clusters or blocks (at "
                              "most 8 blocks per cluster unless the kernel's non_portable_cluster_size_allowed "
                              "attribute is 1, then 16)");
    }
}

}  // namespace

void validate_launch(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes,
                     const LaunchOptions& options) {
    const auto& p = current_device_properties();
    const auto threads = block.volume();
    if (threads > static_cast<unsigned long long>(p.max_threads_per_block)) {
        throw LaunchError("launch", "block " + block.str() + " has " + std::to_string(threads) +
                                        " threads; this device allows at most " +
                                        std::to_string(p.max_threads_per_block) + " per block");
    }
    check_dims("block", block, p.max_block_dims);
    check_dims("grid", grid, p.max_grid_dims);
    const int kernel_max = function.max_threads_per_block();
    if (threads > static_cast<unsigned long long>(kernel_max)) {
        throw LaunchError("launch", "block " + block.str() + " has " + std::to_string(threads) + " threads; kernel " +
                                        function.name() + " can run at most " + std::to_string(kernel_max) +
                                        " per block (its register use); use a smaller block");
    }
    if (shared_bytes != 0)
        check_shared_memory(function, p, shared_bytes);  // spares two driver calls on the common path
    if (options.cluster) check_cluster(function, p, grid, block, shared_bytes, *options.cluster);
    if (options.cooperative) {
        check_cooperative(function, p, grid, block, shared_bytes, "cooperative launch of " + function.name());
    } else if (function.syncs_grid()) {
        check_cooperative(function, p, grid, block, shared_bytes, grid_sync_reason(function));
    }
}

void launch(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes, CUstream stream, void** params,
            const LaunchOptions& options) {
    validate_launch(function, grid, block, shared_bytes, options);
    launch_validated(function, grid, block, shared_bytes, stream, params, options);
}

namespace {

// cuLaunchKernelEx with the options' attributes.
CUresult launch_ex(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes, CUstream stream,
                   void** params, const LaunchOptions& options) {
    CUlaunchAttribute attrs[2] = {};
    unsigned n = 0;
    if (options.cooperative) {
        attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attrs[n].value.cooperative = 1;
        ++n;
    }
    if (options.cluster) {
        attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[n].value.clusterDim.x = options.cluster->x;
        attrs[n].value.clusterDim.y = options.cluster->y;
        attrs[n].value.clusterDim.z = options.cluster->z;
        ++n;
    }
    CUlaunchConfig config = detail::launch_config(grid, block, shared_bytes, stream, attrs, n);
    return detail::driver().cuLaunchKernelEx(&config, function.handle(), params, nullptr);
}

std::string options_text(const LaunchOptions& options) {
    std::string s;
    if (options.cooperative) s += ", cooperative";
    if (options.cluster) s += ", cluster " + options.cluster->str();
    return s;
}

}  // namespace

void launch_validated(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes, CUstream stream,
                      void** params, const LaunchOptions& options) {
    detail::note_launch(function.handle(), function.name());
    if (function.syncs_grid() && !options.cooperative) {
        // A kernel that synchronises its grid runs only cooperatively on a GPU (launched plainly
        // it fails and the context is lost): every launch of it is one.
        LaunchOptions cooperative = options;
        cooperative.cooperative = true;
        launch_validated(function, grid, block, shared_bytes, stream, params, cooperative);
        return;
    }
    // Plain launches keep cuLaunchKernel: the hot path fills no launch config.
    const bool ex = options.any();
    const CUresult rc =
        ex ? launch_ex(function, grid, block, shared_bytes, stream, params, options)
           : detail::driver().cuLaunchKernel(function.handle(), grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                             static_cast<unsigned>(shared_bytes), stream, params, nullptr);
    if (rc == CUDA_SUCCESS) return;
    if (rc == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE && !options.cooperative) {
        // A plain launch the CPU device runs cooperatively because the kernel synchronises its
        // grid (its own reading of the PTX, for a module this runtime did not scan).
        check_cooperative(function, current_device_properties(), grid, block, shared_bytes, grid_sync_reason(function));
    }
    const char* call = ex ? "cuLaunchKernelEx" : "cuLaunchKernel";
    if (rc == CUDA_ERROR_OUT_OF_MEMORY || is_sticky(rc)) check(rc, call, "launching " + function.name());
    throw LaunchError(rc, call,
                      "launching " + function.name() + " with grid " + grid.str() + ", block " + block.str() + ", " +
                          std::to_string(shared_bytes) + " bytes shared" + options_text(options));
}

}  // namespace xcuda::rt
