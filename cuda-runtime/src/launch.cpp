#include "driver_api.hpp"

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
        throw LaunchError("launch", "no CUDA context is current on this thread: retain a PrimaryContext and call "
                                    "make_current() before launching");
    }
    if (ctx != cached_context || !cached_device) {
        CUdevice dev = 0;
        detail::call("cuCtxGetDevice", d.cuCtxGetDevice, &dev);
        cached_device = std::make_unique<Device>(static_cast<int>(dev));
        cached_context = ctx;
    }
    return cached_device->properties();
}

}  // namespace

void validate_launch(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes) {
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
    if (shared_bytes == 0) return;   // spares a driver call on the common path
    const int dyn_max = function.attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    if (shared_bytes > static_cast<std::size_t>(dyn_max)) {
        std::string fix = shared_bytes <= static_cast<std::size_t>(p.max_shared_per_block_optin)
                              ? "raise the kernel's limit first (set_max_dynamic_shared_bytes / "
                                "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)"
                              : "this device allows at most " + std::to_string(p.max_shared_per_block_optin) +
                                    " bytes per block";
        throw LaunchError("launch", "dynamic shared memory of " + std::to_string(shared_bytes) + " bytes exceeds kernel " +
                                        function.name() + "'s limit of " + std::to_string(dyn_max) + " bytes; " + fix);
    }
}

void launch(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes, CUstream stream,
            void** params) {
    validate_launch(function, grid, block, shared_bytes);
    launch_validated(function, grid, block, shared_bytes, stream, params);
}

void launch_validated(const Function& function, Dim3 grid, Dim3 block, std::size_t shared_bytes, CUstream stream,
                      void** params) {
    detail::note_launch(function.handle(), function.name());
    const CUresult rc = detail::driver().cuLaunchKernel(function.handle(), grid.x, grid.y, grid.z, block.x, block.y,
                                                        block.z, static_cast<unsigned>(shared_bytes), stream, params,
                                                        nullptr);
    if (rc == CUDA_SUCCESS) return;
    if (rc == CUDA_ERROR_OUT_OF_MEMORY || is_sticky(rc)) check(rc, "cuLaunchKernel", "launching " + function.name());
    throw LaunchError(rc, "cuLaunchKernel", "launching " + function.name() + " with grid " + grid.str() + ", block " +
                                                block.str() + ", " + std::to_string(shared_bytes) + " bytes shared");
}

}  // namespace xcuda::rt
